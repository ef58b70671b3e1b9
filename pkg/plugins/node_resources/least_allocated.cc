// LeastAllocated (upstream noderesources/least_allocated.go): favours nodes with more room left.
#include <utility>

#include "pkg/plugins/node_resources/resource_allocation.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::node_resources {
namespace {

// The unused share of capacity on the 0..kMaxNodeScore scale; 0 once the node is full.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * framework::kMaxNodeScore / capacity;
}

}  // namespace

ScorerFn LeastAllocatedScorer(std::vector<ResourceSpec> resources) {
  return [resources = std::move(resources)](std::span<const int64_t> requested,
                                            std::span<const int64_t> /*allocated*/,
                                            std::span<const int64_t> allocatable) -> int64_t {
    return WeightedResourceScore(resources, requested, allocatable, LeastRequestedScore);
  };
}

}  // namespace stowage::plugins::node_resources
