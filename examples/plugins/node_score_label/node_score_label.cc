#include "node_score_label.h"

#include "stowage/common/log.h"
#include "stowage/plugins/helper/normalize_score.h"

namespace example {

using stowage::framework::Status;

Status NodeScoreLabel::Score(const stowage::framework::CycleState&,
                             const stowage::framework::PodInfo& pod,
                             const stowage::framework::NodeInfo& node, int64_t& score) {
  const std::string* value = node.node()->metadata.labels.Get("node");
  score = (value != nullptr && *value == "hello") ? 0 : 1;
  STOWAGE_VLOG(3) << "node=" << node.name() << " score " << score
                  << ", pod=" << pod.pod->metadata.name;
  return Status();
}

Status NodeScoreLabel::NormalizeScore(const stowage::framework::CycleState&,
                                      const stowage::framework::PodInfo&,
                                      stowage::framework::NodeScoreList& scores) {
  return stowage::plugins::helper::DefaultNormalizeScore(stowage::framework::kMaxNodeScore,
                                                         /*reverse=*/false, scores);
}

}  // namespace example
