// RequestedToCapacityRatio (upstream noderesources/requested_to_capacity_ratio.go and
// helper/shape_score.go): scores each resource's utilization through a user-defined broken-line
// function, which allows bin packing on any resource, extended ones included.
#include <cmath>
#include <utility>

#include "pkg/plugins/node_resources/resource_allocation.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::node_resources {
namespace {

constexpr int64_t kMaxUtilization = 100;
// Shape scores are given on a 0..10 scale (upstream config.MaxCustomPriorityScore).
constexpr int64_t kMaxCustomPriorityScore = 10;

}  // namespace

ScorerFn RequestedToCapacityRatioScorer(std::vector<ResourceSpec> resources,
                                        const std::vector<ShapePoint>& shape) {
  std::vector<ShapePoint> scaled;
  scaled.reserve(shape.size());
  for (const ShapePoint& p : shape) {
    scaled.push_back(
        {p.utilization, p.score * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
  auto raw = BuildBrokenLinearFunction(std::move(scaled));
  auto resource_score = [raw](int64_t requested, int64_t capacity) {
    if (capacity == 0 || requested > capacity) return raw(kMaxUtilization);
    return raw(requested * kMaxUtilization / capacity);
  };
  return [resources = std::move(resources), resource_score](
             std::span<const int64_t> requested, std::span<const int64_t> /*allocated*/,
             std::span<const int64_t> allocatable) -> int64_t {
    int64_t node_score = 0;
    int64_t weight_sum = 0;
    for (size_t i = 0; i < requested.size(); ++i) {
      if (allocatable[i] == 0) continue;
      const int64_t weight = resources[i].weight;
      const int64_t score = resource_score(requested[i], allocatable[i]);
      // Only resources with a positive score take part, in the numerator and the weights.
      if (score > 0) {
        node_score += score * weight;
        weight_sum += weight;
      }
    }
    if (weight_sum == 0) return 0;
    // math.Round: half away from zero, as std::round.
    return static_cast<int64_t>(
        std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  };
}

}  // namespace stowage::plugins::node_resources
