// The RFC 3339 timestamps of the API's Time and MicroTime fields, as upstream's metav1 writes
// and reads them. Thread-safe; never throws.
#pragma once

#include <string>
#include <string_view>

#include "stowage/common/clock.h"
#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries
namespace stowage::api {

// "2026-11-22T19:44:01Z", or with micro = true "2026-11-22T19:44:01.123456Z" (MicroTime).
std::string FormatTime(WallTime t, bool micro = false);
// Parses both forms above and numeric offsets ("+02:00").
StatusOr<WallTime> ParseTime(std::string_view s);

}  // namespace stowage::api

#pragma GCC visibility pop
