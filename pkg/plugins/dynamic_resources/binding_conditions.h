// Device binding conditions (DRADeviceBindingConditions, beta and on in 1.37): a device whose
// ResourceSlice lists bindingConditions is allocated like any other, but the pod is bound only
// once its driver has set each of them True in the claim's status.devices[].conditions (a device
// being attached, say). PreBind waits for that, up to bindingTimeout; a bindingFailureCondition
// set True, or a claim allocated longer ago than bindingTimeout and still not ready, makes the
// claim unavailable in Filter so that PostFilter deallocates it (upstream's isClaimReadyForBinding,
// isClaimTimeout, listBindingConditionsStatus).
//
// Pure functions over claims; safe from any thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::plugins::dynamic_resources {

// Whether every allocated device with binding conditions has them all True. An error (upstream's
// ErrDeviceBindingFailed text, naming the claim and the condition's reason and message) when a
// failure condition is True. Not ready while the claim has no allocation.
StatusOr<bool> ReadyForBinding(const api::ResourceClaim& claim);

// Whether a device of the claim has binding conditions and the claim was allocated longer ago
// than timeout (never without an allocationTimestamp).
bool BindingTimedOut(const api::ResourceClaim& claim, std::chrono::nanoseconds timeout,
                     WallTime now);

// Whether an allocated device of any of the claims has binding conditions.
bool HasBindingConditions(const std::vector<dra::ResourceClaimPtr>& claims);

// Per allocated device with binding conditions, its driver and the conditions still pending and
// failed, for the metrics and the error of a wait that did not succeed.
struct BindingConditionsStatus {
  std::string driver, pool, device;
  std::vector<std::string> pending;  // binding conditions not True yet
  std::vector<std::string> failed;   // failure conditions True
};
std::vector<BindingConditionsStatus> ListBindingConditions(const api::ResourceClaim& claim);

}  // namespace stowage::plugins::dynamic_resources
