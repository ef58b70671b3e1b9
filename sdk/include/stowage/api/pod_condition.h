// Setting a pod condition the way upstream's podutil does, shared by the scheduler's status
// writes and preemption's DisruptionTarget.
#pragma once

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::api {

// Sets condition in status as upstream's podutil.UpdatePodCondition does: a condition keeps its
// transition time while its status stays; false when nothing that function compares changed
// (observedGeneration is not compared).
bool UpdatePodCondition(PodStatus& status, Condition condition);

}  // namespace stowage::api

#pragma GCC visibility pop
