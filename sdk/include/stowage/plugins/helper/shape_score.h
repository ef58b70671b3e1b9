// Broken-line score functions (upstream helper/shape_score.go), which RequestedToCapacityRatio
// and VolumeBinding's capacity score build from a user's shape. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// A point of a shape: utilization in [0, 100] and its score.
struct ShapePoint {
  int64_t utilization = 0;
  int64_t score = 0;
  friend bool operator==(const ShapePoint&, const ShapePoint&) = default;
};

// shape[0].score up to the first point, linear (integer arithmetic) between points, the last
// score after the last point (0 for an empty shape).
std::function<int64_t(int64_t)> BuildBrokenLinearFunction(std::vector<ShapePoint> shape);

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
