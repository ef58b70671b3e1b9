// The Prometheus text exposition format (version 0.0.4) written the way Go's client_golang
// writes it, so stowage's /metrics is byte-compatible with kube-scheduler's where it matters to
// scrapers and to queries: floats in Go's shortest 'g' form (le="0.0001", le="2.592e+06"), label
// pairs sorted by name with le last, families sorted by name, series sorted by label values,
// histogram buckets then _sum then _count, HELP and label values escaped as Go escapes them.
//
// Pure functions; thread-safe.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

namespace stowage::metrics {

// A float as Go's client_golang writes sample values and bucket bounds: "+Inf", "-Inf", "NaN",
// otherwise strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that round-trip, in
// exponent form when the decimal exponent is below -4 or at least 6 ("1e-05", "2.592e+06"),
// plain otherwise ("0.0001", "16384").
std::string FormatFloat(double v);

// Writes families (HELP, TYPE, samples) in the text format. Families are written in name order
// and their series in label order; the input is not modified.
std::string WriteTextFormat(std::vector<prometheus::MetricFamily> families);

}  // namespace stowage::metrics
