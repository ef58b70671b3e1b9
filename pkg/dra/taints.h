// Device taints: whether a request tolerates a device's taints, and DeviceTaintRules applied to
// slices the way upstream's ResourceSlice tracker does before the allocator sees them.
//
// Pure functions; safe from any thread.
#pragma once

#include <vector>

#include "stowage/api/types.h"

namespace stowage::dra {

// Whether toleration tolerates taint: effect and key match when set, then Equal compares values
// (an empty operator is Equal) and Exists matches any value.
bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint);

// Whether a NoSchedule or NoExecute taint of device is tolerated by none of tolerations. Other
// effects (None, unknown ones) never prevent allocation.
bool TaintPreventsAllocation(const api::Device& device,
                             const std::vector<api::DeviceToleration>& tolerations);

// slice with the taint of every rule whose driver, pool and device (each unset means any) name a
// device of it appended to that device's taints, in the rules' order. Upstream matches nothing
// when a rule has no deviceSelector at all; api::DeviceTaintRule cannot tell that from an empty
// selector yet, so such a rule taints every device here.
api::ResourceSlice ApplyDeviceTaintRules(const api::ResourceSlice& slice,
                                         const std::vector<api::DeviceTaintRule>& rules);

}  // namespace stowage::dra
