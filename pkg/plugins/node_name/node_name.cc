#include "pkg/plugins/node_name/node_name.h"

#include <set>
#include <string>

namespace stowage::plugins::node_name {

bool Fits(const api::Pod& pod, const framework::NodeInfo& node) {
  return pod.spec.node_name.empty() || pod.spec.node_name == node.name();
}

framework::Status NodeName::PreFilter(framework::CycleState& /*state*/,
                                      const framework::PodInfo& pod,
                                      const std::vector<const framework::NodeInfo*>& /*nodes*/,
                                      framework::PreFilterResult& result) {
  if (!pod->spec.node_name.empty()) result.node_names = std::set<std::string>{pod->spec.node_name};
  return {};
}

framework::Status NodeName::Filter(const framework::CycleState& /*state*/,
                                   const framework::PodInfo& pod, const framework::NodeInfo& node) {
  if (Fits(*pod, node)) return {};
  return framework::Status::Unresolvable(std::string(kErrReason));
}

std::vector<framework::ClusterEventWithHint> NodeName::EventsToRegister() const {
  return {{{framework::EventResource::kNode, framework::kAdd}, nullptr}};
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeName>());
}

}  // namespace stowage::plugins::node_name
