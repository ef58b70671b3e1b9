// A pod's scheduling priority (component-helpers' corev1.PodPriority).
#pragma once

#include <cstdint>

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// spec.priority, or 0 when unset: a pod created while no default PriorityClass existed keeps no
// priority, and upstream treats it as the static default 0.
inline int32_t PodPriority(const api::Pod& pod) { return pod.spec.priority.value_or(0); }

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
