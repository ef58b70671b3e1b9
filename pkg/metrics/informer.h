// client-go's informer metrics (component-base/metrics/prometheus/clientgo/fifo), served for the
// informers of a named factory: kube-scheduler names its factory "kube-scheduler" since 1.37,
// and client-go records nothing for unnamed informers. The three families are registered when
// the first named informer is created, as upstream registers them lazily.
//
// stowage's informers run their handlers on the informer's own thread as each list or watch
// event arrives, with no FIFO between the watch and the handlers: informer_queued_items is 0,
// and informer_processing_latency_seconds times the delivery of one list (upstream's batched
// Replace) or one watch event to the store and the handlers.
//
// Thread-safe.
#pragma once

#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <string>
#include <string_view>
#include <vector>

#include "pkg/metrics/registry.h"

namespace stowage::metrics {

// Which informer: the factory's name and the resource it watches, as client-go labels it
// (resource is the lower-case kind plus "s": "storageclasss").
struct InformerId {
  std::string name;
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string resource;
};

// Registers the informer_* families (idempotent).
void RegisterInformerMetrics();
std::vector<FamilyDesc> InformerFamilyDescs();

// The series of one informer, created (at 0) when the informer is.
class InformerMetrics {
 public:
  explicit InformerMetrics(const InformerId& id);
  // One list or watch event delivered to the store and the handlers in `seconds`.
  void ObserveProcessing(double seconds);
  // The store's resource version; client-go keeps its 15 least significant digits so the value
  // stays exact in a double. Versions that are not decimal numbers leave the gauge unchanged.
  void SetStoreResourceVersion(std::string_view rv);

 private:
  prometheus::Histogram* latency_;
  prometheus::Gauge* resource_version_;
};

}  // namespace stowage::metrics
