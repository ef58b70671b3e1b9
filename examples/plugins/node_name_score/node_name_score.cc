#include "node_name_score.h"

#include "stowage/plugins/helper/normalize_score.h"

namespace example {

int64_t NameNumber(std::string_view name) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  int64_t n = 0;
  for (char c : name.substr(start)) {
    n = n * 10 + (c - '0');
    if (n >= stowage::framework::kMaxNodeScore) return stowage::framework::kMaxNodeScore;
  }
  return n;
}

stowage::framework::Status NameScore::Score(const stowage::framework::CycleState&,
                                            const stowage::framework::PodInfo&,
                                            const stowage::framework::NodeInfo& node,
                                            int64_t& score) {
  score = NameNumber(node.name());
  return {};
}

stowage::framework::Status NameScore::NormalizeScore(const stowage::framework::CycleState&,
                                                     const stowage::framework::PodInfo&,
                                                     stowage::framework::NodeScoreList& scores) {
  return stowage::plugins::helper::DefaultNormalizeScore(stowage::framework::kMaxNodeScore,
                                                         /*reverse=*/false, scores);
}

}  // namespace example
