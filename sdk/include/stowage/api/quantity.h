// Quantity: Kubernetes' resource.Quantity ("100m", "1.5Gi", "1e3"), parsed with upstream's exact
// rules and held exactly.
//
// Parsing follows k8s.io/apimachinery/pkg/api/resource: an optional sign, digits with an optional
// fraction, then a binary suffix (Ki Mi Gi Ti Pi Ei), a decimal SI suffix (n u m "" k M G T P E)
// or a decimal exponent (e3, E-2). Values are rounded up (away from zero) to a whole nano-unit;
// binary-suffixed values are capped at 2^63-1 units in magnitude, as upstream does. Upstream
// leaves decimal values unbounded; here their magnitude saturates just under 10^29 units, far past
// anything real. The value is stored exactly as a signed count of nano-units; there is no
// floating point.
// Quantity is an immutable value type, safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::api {

class Quantity {
 public:
  // How a quantity is written back out; set by the suffix it was parsed with.
  enum class Format : uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;

  // Parses s. Errors name the input and say what was wrong with it.
  static StatusOr<Quantity> Parse(std::string_view s);
  // Exact constructors, as resource.NewQuantity / NewMilliQuantity.
  static Quantity FromValue(int64_t value, Format format = Format::kDecimalSI);
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // The value in whole units, rounded away from zero (upstream Value()). Saturates at the int64
  // limits where upstream's result would overflow (it returns 0 or a wrapped value there).
  int64_t Value() const;
  // The value in thousandths, rounded away from zero (upstream MilliValue()); saturates likewise.
  int64_t MilliValue() const;
  // The exact value in nano-units.
  __int128 Nanos() const { return nanos_; }
  Format format() const { return format_; }
  bool IsZero() const { return nanos_ == 0; }
  int Sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }

  // The canonical string upstream's Quantity.String() gives ("1536Mi" for "1.5Gi"). Upstream
  // echoes the parsed text instead when it judges it canonical, which also lets through
  // "+1", "01Ki", "1.500" or "1E3"; this always gives the canonical form. From 10^21 up it
  // differs on purpose: upstream drops the suffix ("1000E" prints as "1"), this keeps E.
  std::string String() const;

  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend auto operator<=>(const Quantity& a, const Quantity& b) { return a.nanos_ <=> b.nanos_; }

 private:
  Quantity(__int128 nanos, Format format) : nanos_(nanos), format_(format) {}
  __int128 nanos_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace stowage::api

#pragma GCC visibility pop
