#include "pkg/plugins/queue_sort/queue_sort.h"

#include "stowage/plugins/helper/priority.h"

namespace stowage::plugins::queue_sort {

bool PrioritySort::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  int32_t pa = helper::PodPriority(a.pod());
  int32_t pb = helper::PodPriority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<PrioritySort>());
}

}  // namespace stowage::plugins::queue_sort
