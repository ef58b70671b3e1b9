// The process_* families of Go's process collector, read from /proc at each scrape: CPU time,
// resident and virtual memory, start time, open and maximum file descriptors, the address-space
// limit and the network byte counters of the process's network namespace. A value that cannot
// be read is left out rather than reported wrong. stowage is not a Go program, so the go_*
// families of Go's runtime collector have no counterpart and are not served.
//
// Thread-safe (reads only).
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "pkg/metrics/registry.h"

namespace stowage::metrics {

std::vector<FamilyDesc> ProcessFamilyDescs();
std::vector<prometheus::MetricFamily> CollectProcess();

// Registers the process collector with registry (Global() does this itself).
void RegisterProcessCollector(Registry& registry);

}  // namespace stowage::metrics
