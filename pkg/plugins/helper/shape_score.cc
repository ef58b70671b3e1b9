#include "stowage/plugins/helper/shape_score.h"

#include <utility>

namespace stowage::plugins::helper {

std::function<int64_t(int64_t)> BuildBrokenLinearFunction(std::vector<ShapePoint> shape) {
  return [shape = std::move(shape)](int64_t p) -> int64_t {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (p > shape[i].utilization) continue;
      if (i == 0) return shape[0].score;
      const ShapePoint& lo = shape[i - 1];
      const ShapePoint& hi = shape[i];
      return lo.score +
             (hi.score - lo.score) * (p - lo.utilization) / (hi.utilization - lo.utilization);
    }
    // Validation rejects an empty shape; score 0 rather than read past it.
    return shape.empty() ? 0 : shape.back().score;
  };
}

}  // namespace stowage::plugins::helper
