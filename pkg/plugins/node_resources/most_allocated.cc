// MostAllocated (upstream noderesources/most_allocated.go): favours nodes that are already busy,
// packing pods onto fewer nodes.
#include <utility>

#include "pkg/plugins/node_resources/resource_allocation.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::node_resources {
namespace {

// The used share of capacity on the 0..kMaxNodeScore scale. Requests can exceed capacity (pods
// without requests count with the non-zero defaults), so they are capped at capacity.
int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * framework::kMaxNodeScore / capacity;
}

}  // namespace

ScorerFn MostAllocatedScorer(std::vector<ResourceSpec> resources) {
  return [resources = std::move(resources)](std::span<const int64_t> requested,
                                            std::span<const int64_t> /*allocated*/,
                                            std::span<const int64_t> allocatable) -> int64_t {
    return WeightedResourceScore(resources, requested, allocatable, MostRequestedScore);
  };
}

}  // namespace stowage::plugins::node_resources
