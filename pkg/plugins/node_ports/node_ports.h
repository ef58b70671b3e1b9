// NodePorts (upstream plugins/nodeports): a pod fits a node only if none of its host ports
// (protocol, host IP, port) is already used there; 0.0.0.0 conflicts with every IP.
//
// PreFilter collects the pod's host ports into CycleState and returns Skip when it has none;
// Filter rejects a conflicting node as Unschedulable, "node(s) didn't have free ports for the
// requested pod ports" (preemption may free the port). Only regular containers and restartable
// (sidecar) init containers hold their ports for the pod's lifetime, so ports of ordinary init
// containers are ignored, as upstream's util.GetHostPorts does. Thread-safe: Filter only reads.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_ports {

inline constexpr std::string_view kName = "NodePorts";
inline constexpr std::string_view kErrReason =
    "node(s) didn't have free ports for the requested pod ports";
// The CycleState key of the PreFilter state.
inline constexpr std::string_view kPreFilterStateKey = "PreFilterNodePorts";

class NodePorts final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // AssignedPod/Delete (IsSchedulableAfterPodDeleted) and Node/Add without a hint (always Queue).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodePorts>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodePorts>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodePorts>);

// The host ports the pod holds while running (hostPort > 0 on regular containers and sidecar
// init containers), with an empty host IP read as 0.0.0.0 and an empty protocol as TCP.
std::vector<framework::HostPort> HostPorts(const api::Pod& pod);

// True if none of want conflicts with used.
bool FitsPorts(const std::vector<framework::HostPort>& want, const framework::HostPortInfo& used);
// True if the pod's host ports are all free on the node.
bool Fits(const api::Pod& pod, const framework::NodeInfo& node);

// Queue when the deleted pod was assigned (or nominated) to a node and held a host port that
// conflicts with one of pod's. The deleted pod is the event's old object.
framework::QueueingHint IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                     const framework::EventObject& old_obj,
                                                     const framework::EventObject& new_obj);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_ports
