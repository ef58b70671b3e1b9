// Go time.Duration text, as metav1.Duration fields carry it in KubeSchedulerConfiguration:
// "15s", "10m0s", "1h2m3.5s", "300ms", "-1.5µs".
#pragma once

#include <string>
#include <string_view>

#include "pkg/config/types.h"
#include "stowage/common/status.h"

namespace stowage::config {

// time.ParseDuration: an optional sign, then one or more decimal numbers (with an optional
// fraction) each followed by a unit (ns, us, µs, μs, ms, s, m, h); "0" alone is allowed.
// Values beyond ±2^63-1 ns are errors. Errors use Go's wording, e.g.
// `time: missing unit in duration "15"`.
StatusOr<Duration> ParseDuration(std::string_view s);

// time.Duration.String(): "0s", "1.5µs", "300ms", "2s", "10m0s", "1h2m3.5s".
std::string FormatDuration(Duration d);

}  // namespace stowage::config
