// NodeResourcesBalancedAllocation: favours nodes whose resource usage stays balanced across
// resources after placing the pod (upstream plugins/noderesources/balanced_allocation.go, 1.36).
//
// For a list of usage fractions f_i = min(req_i / alloc_i, 1) over the configured resources the
// node has (float64), the balance is B = int64((1 − std(f)) × 100), truncated toward zero,
// where std is |f0 − f1| / 2 for two resources, the population standard deviation for more, and 0
// for fewer. Since 1.36 the score compares the balance with the pod (requested = node requests
// + pod requests) against the balance without it (node requests only):
//
//   score = 50 + (50 + B(with pod) − B(without pod)) / 2        (int64 division, truncating)
//
// so an unchanged balance gives 75, a move from perfectly balanced to maximally unbalanced 50,
// and the reverse 100. Requests are actual ones (no non-zero defaults); scalar resources the pod
// does not request are skipped; PreScore returns Skip for a pod requesting none of the
// configured resources (best-effort). Immutable after construction; Score is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/plugins/node_resources/resource_allocation.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_resources {

inline constexpr std::string_view kBalancedAllocationName = "NodeResourcesBalancedAllocation";

// B above, for one list of (requested, allocatable); resources with allocatable 0 are skipped.
int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable);
// The 1.36 score from the lists a ResourceAllocationScorer builds.
int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable);

// The resources of defaulted, validated args (pkg/config does both).
std::vector<ResourceSpec> BalancedAllocationResources(
    const config::NodeResourcesBalancedAllocationArgs& args);

class BalancedAllocation final : public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  explicit BalancedAllocation(std::vector<ResourceSpec> resources);

  std::string_view Name() const override { return kBalancedAllocationName; }
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;

 private:
  ResourceAllocationScorer scorer_;
};
static_assert(std::is_base_of_v<framework::PreScorePlugin, BalancedAllocation>);
static_assert(std::is_base_of_v<framework::ScorePlugin, BalancedAllocation>);

// The plugin factory (registered through framework::WithArgs).
StatusOr<std::unique_ptr<framework::Plugin>> NewBalancedAllocation(
    const config::NodeResourcesBalancedAllocationArgs& args, framework::Handle& handle,
    const framework::Features& features);

}  // namespace stowage::plugins::node_resources
