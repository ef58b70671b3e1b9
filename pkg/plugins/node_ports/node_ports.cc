#include "pkg/plugins/node_ports/node_ports.h"

#include <string>

#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::node_ports {
namespace {

using framework::QueueingHint;

struct PreFilterState final : framework::StateData {
  std::vector<framework::HostPort> ports;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

void AppendHostPorts(const api::Container& c, std::vector<framework::HostPort>& out) {
  for (const auto& p : c.ports) {
    if (p.host_port <= 0) continue;
    out.push_back({p.host_ip.empty() ? "0.0.0.0" : p.host_ip,
                   p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
  }
}

}  // namespace

std::vector<framework::HostPort> HostPorts(const api::Pod& pod) {
  std::vector<framework::HostPort> out;
  for (const auto& c : pod.spec.init_containers) {
    if (c.restart_policy == "Always") AppendHostPorts(c, out);
  }
  for (const auto& c : pod.spec.containers) AppendHostPorts(c, out);
  return out;
}

bool FitsPorts(const std::vector<framework::HostPort>& want, const framework::HostPortInfo& used) {
  for (const auto& p : want) {
    if (used.CheckConflict(p)) return false;
  }
  return true;
}

bool Fits(const api::Pod& pod, const framework::NodeInfo& node) {
  return FitsPorts(HostPorts(pod), node.used_ports());
}

framework::Status NodePorts::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                       const std::vector<const framework::NodeInfo*>& /*nodes*/,
                                       framework::PreFilterResult& /*result*/) {
  auto s = std::make_unique<PreFilterState>();
  s->ports = HostPorts(*pod);
  if (s->ports.empty()) return framework::Status::Skip();
  state.Write(kPreFilterStateKey, std::move(s));
  return {};
}

framework::Status NodePorts::Filter(const framework::CycleState& state,
                                    const framework::PodInfo& /*pod*/,
                                    const framework::NodeInfo& node) {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error("reading \"" + std::string(kPreFilterStateKey) +
                                    "\" from cycleState: not found");
  }
  if (FitsPorts(s->ports, node.used_ports())) return {};
  return framework::Status::Unschedulable(std::string(kErrReason));
}

std::vector<framework::ClusterEventWithHint> NodePorts::EventsToRegister() const {
  return {
      // Container ports are immutable, so pod updates never free a port.
      {{framework::EventResource::kAssignedPod, framework::kDelete}, IsSchedulableAfterPodDeleted},
      {{framework::EventResource::kNode, framework::kAdd}, nullptr},
  };
}

QueueingHint IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                          const framework::EventObject& old_obj,
                                          const framework::EventObject& /*new_obj*/) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, framework::EventObject{}, objs) || objs.old_obj == nullptr) {
    return QueueingHint::kQueue;
  }
  const api::Pod& deleted = *objs.old_obj;
  // A pod that never had a node (nor a nominated one) freed nothing.
  if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
    return QueueingHint::kSkip;
  }
  std::vector<framework::HostPort> freed = HostPorts(deleted);
  if (freed.empty()) return QueueingHint::kSkip;
  framework::HostPortInfo in_use;
  for (const auto& p : freed) in_use.Add(p);
  return FitsPorts(HostPorts(pod), in_use) ? QueueingHint::kSkip : QueueingHint::kQueue;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodePorts>());
}

}  // namespace stowage::plugins::node_ports
