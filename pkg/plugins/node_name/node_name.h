// NodeName: a pod that names a node in spec.nodeName fits only that node (upstream
// plugins/nodename). PreFilter narrows the cycle to that node (a PreFilterResult of one name), so
// the other nodes are neither filtered nor offered to preemption; Filter rejects any other node
// as UnschedulableAndUnresolvable, "node(s) didn't match the requested node name". Stateless and
// thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_name {

inline constexpr std::string_view kName = "NodeName";
inline constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

class NodeName final : public framework::PreFilterPlugin,
                       public framework::FilterPlugin,
                       public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return kName; }
  // Restricts result to spec.nodeName when the pod names a node (a bound pod whose resize was
  // deferred comes back to the scheduler that way); otherwise leaves every node in.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  // Node/Add without a hint (always Queue), as upstream registers it with queueing hints on:
  // only a new node can carry the requested name, and upstream does not filter by name here.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodeName>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodeName>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodeName>);

// True if the pod names no node or names this one.
bool Fits(const api::Pod& pod, const framework::NodeInfo& node);

// Takes no arguments.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_name
