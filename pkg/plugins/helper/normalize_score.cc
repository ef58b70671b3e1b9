#include "stowage/plugins/helper/normalize_score.h"

#include <algorithm>

namespace stowage::plugins::helper {

framework::Status DefaultNormalizeScore(int64_t max_priority, bool reverse,
                                        framework::NodeScoreList& scores) {
  int64_t highest = 0;
  for (const auto& s : scores) highest = std::max(highest, s.score);
  if (highest == 0) {
    if (reverse) {
      for (auto& s : scores) s.score = max_priority;
    }
    return {};
  }
  for (auto& s : scores) {
    int64_t scaled = max_priority * s.score / highest;
    s.score = reverse ? max_priority - scaled : scaled;
  }
  return {};
}

}  // namespace stowage::plugins::helper
