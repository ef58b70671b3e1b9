// Taint and toleration matching, as component-helpers' scheduling/corev1 and the core/v1
// Toleration.ToleratesTaint method define it, plus upstream's plugins/helper/taint.go filter.
//
// A toleration tolerates a taint when its effect is empty or equal to the taint's, its key is
// empty or equal, and its operator matches the value: "" and "Equal" compare values, "Exists"
// matches any value. "Gt" and "Lt" compare canonical decimal integers (taint value greater /
// less than the toleration's) only when the TaintTolerationComparisonOperators gate is on; it is
// off by default in 1.37, so by default they match nothing. Unknown operators match nothing.
// All functions are pure and thread-safe.
#pragma once

#include <span>

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The default of the TaintTolerationComparisonOperators feature gate in 1.37 (alpha).
inline constexpr bool kDefaultEnableComparisonOperators = false;

bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    bool enable_comparison_operators = kDefaultEnableComparisonOperators);

// True if any of the tolerations tolerates the taint.
bool TolerationsTolerateTaint(std::span<const api::Toleration> tolerations, const api::Taint& taint,
                              bool enable_comparison_operators = kDefaultEnableComparisonOperators);

// The taints that keep pods off a node at scheduling time: NoSchedule and NoExecute
// (upstream DoNotScheduleTaintsFilterFunc).
bool IsDoNotScheduleTaint(const api::Taint& taint);

// The first taint accepted by `include` that none of the tolerations tolerates, or nullptr
// when all of them are tolerated. A null `include` considers every taint.
const api::Taint* FindMatchingUntoleratedTaint(
    std::span<const api::Taint> taints, std::span<const api::Toleration> tolerations,
    bool (*include)(const api::Taint&),
    bool enable_comparison_operators = kDefaultEnableComparisonOperators);

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
