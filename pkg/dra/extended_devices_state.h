// The view of the devices that DynamicResources shares with the resource-allocation scorers
// within one scheduling cycle. Header-only: the allocator's own sources do not use the
// framework.
#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include "pkg/dra/allocator.h"
#include "pkg/dra/extended_resources.h"
#include "stowage/framework/cycle_state.h"

namespace stowage::dra {

// What the resource-allocation scorers need to weigh an extended resource a DeviceClass provides
// (upstream's draPreScoreState): the cycle's allocator (its inventory and what other claims hold)
// and which class provides which resource. DynamicResources' PreFilter writes it into the
// CycleState under kExtendedDevicesKey for a pod that requests such a resource, so both plugins
// see one view of the devices.
struct ExtendedDevices {
  std::shared_ptr<const Allocator> allocator;
  DeviceClassResolver resolver;
};
inline constexpr std::string_view kExtendedDevicesKey = "DynamicResources/ExtendedDevices";
struct ExtendedDevicesState final : framework::StateData {
  explicit ExtendedDevicesState(std::shared_ptr<const ExtendedDevices> d) : devices(std::move(d)) {}
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<ExtendedDevicesState>(devices);
  }
  std::shared_ptr<const ExtendedDevices> devices;
};

}  // namespace stowage::dra
