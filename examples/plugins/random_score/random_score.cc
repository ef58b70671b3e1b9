#include "random_score.h"

#include "stowage/common/log.h"

namespace example {

stowage::framework::Status RandomScore::Score(const stowage::framework::CycleState&,
                                              const stowage::framework::PodInfo&,
                                              const stowage::framework::NodeInfo&, int64_t& score) {
  stowage::MutexLock lock(mu_);
  score = static_cast<int64_t>(random_() % stowage::framework::kMaxNodeScore);
  return {};
}

void RandomScore::PostBind(stowage::framework::CycleState&, const stowage::api::Pod& pod,
                           std::string_view node) {
  STOWAGE_LOG(INFO) << "Decision: " << pod.metadata.namespace_ << "/" << pod.metadata.name << " => "
                    << node;
}

}  // namespace example
