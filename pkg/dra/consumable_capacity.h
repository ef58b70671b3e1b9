// Consumable capacity (DRAConsumableCapacity): how much of a device's capacities a request takes,
// rounded to the device's request policy, and whether that still fits beside what other shares of
// the device already consume.
//
// Pure functions; safe from any thread. Amounts are exact nano-units (Quantity::Nanos).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::dra {

// Consumed amount per capacity name, in nano-units.
using CapacityAmounts = std::map<std::string, __int128>;

// Whether requests fit the device's capacity beside consumed (by allocated shares) and
// allocating (by shares of the current search); either may be null. A request naming a capacity
// the device lacks does not fit; a request that cannot be represented, or comes out negative,
// is an error. fractional is DRAFractionalCapacityRange.
StatusOr<bool> RequestFitsCapacity(const CapacityAmounts* consumed,
                                   const api::ResourceList& requests,
                                   const api::Map<api::DeviceCapacity>& capacity,
                                   const CapacityAmounts* allocating, bool fractional);

// What one share takes of each capacity of the device: the request rounded up to the policy,
// or the policy's default (else the whole capacity) for capacities not requested.
StatusOr<std::vector<std::pair<std::string, api::Quantity>>> ConsumedByRequest(
    const api::ResourceList& requests, const api::Map<api::DeviceCapacity>& capacity,
    bool fractional);

}  // namespace stowage::dra
