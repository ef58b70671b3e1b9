#include "stowage/api/pod_condition.h"

#include <utility>

namespace stowage::api {

bool UpdatePodCondition(PodStatus& status, Condition condition) {
  for (auto& old : status.conditions) {
    if (old.type != condition.type) continue;
    if (old.status == condition.status) condition.last_transition_time = old.last_transition_time;
    const bool equal = old.status == condition.status && old.reason == condition.reason &&
                       old.message == condition.message &&
                       old.last_probe_time == condition.last_probe_time &&
                       old.last_transition_time == condition.last_transition_time;
    old = std::move(condition);
    return !equal;
  }
  status.conditions.push_back(std::move(condition));
  return true;
}

}  // namespace stowage::api
