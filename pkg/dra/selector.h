// The seam between the allocator and a CEL engine: device selectors (of DeviceClasses and of
// requests) are compiled by a SelectorCompiler into DeviceSelectors, which the allocator asks
// whether a device matches.
//
// The allocator never parses an expression itself, so any engine that evaluates the DRA CEL
// environment (the `device` variable: driver, attributes, capacity, allowMultipleAllocations) can
// plug in here.
//
// Thread-safety: one compiler and the selectors it returns are shared by every concurrent
// Allocate call, so Compile and Matches must be safe to call from several threads at once.
// Invariants: Compile returns either a selector or a non-OK Status (a compile error), never a
// null pointer; Matches returns true, false, or a non-OK Status (a runtime error, a cost limit).
#pragma once

#include <memory>
#include <string_view>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::dra {

// What a selector sees of a device: the driver of its slice and the device itself.
struct DeviceView {
  std::string_view driver;
  const api::Device& device;
};

// One compiled selector expression.
class DeviceSelector {
 public:
  virtual ~DeviceSelector() = default;
  // Whether the device satisfies the expression; an error aborts the whole allocation, as a CEL
  // runtime error does upstream.
  virtual StatusOr<bool> Matches(const DeviceView& device) const = 0;
};

using DeviceSelectorPtr = std::shared_ptr<const DeviceSelector>;

// Turns an expression string into a DeviceSelector. An Allocator compiles each expression once
// and keeps the result, so a compiler need not cache.
class SelectorCompiler {
 public:
  virtual ~SelectorCompiler() = default;
  // The compiled expression, or the compile error (its message becomes part of the allocator's
  // error, after "CEL compile error: ").
  virtual StatusOr<DeviceSelectorPtr> Compile(std::string_view expression) const = 0;
};

}  // namespace stowage::dra
