#include "pkg/metrics/informer.h"

#include <charconv>

namespace stowage::metrics {
namespace {

const std::vector<std::string> kLabels = {"name", "group", "version", "resource"};

FamilyDesc QueuedItems() {
  return {"informer_queued_items",
          "Number of items currently queued in the FIFO.",
          Type::kGauge,
          Stability::kAlpha,
          kLabels,
          {}};
}
FamilyDesc ProcessingLatency() {
  return {"informer_processing_latency_seconds",
          "Time taken to process events after popping from the queue.",
          Type::kHistogram,
          Stability::kAlpha,
          kLabels,
          {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
}
FamilyDesc StoreResourceVersion() {
  return {"informer_store_resource_version",
          "The 15 least significant digits of the resource version of the store.",
          Type::kGauge,
          Stability::kAlpha,
          kLabels,
          {}};
}

struct Families {
  Families()
      : queued(Registry::Global().AddGauge(QueuedItems())),
        latency(Registry::Global().AddHistogram(ProcessingLatency())),
        resource_version(Registry::Global().AddGauge(StoreResourceVersion())) {}
  prometheus::Family<prometheus::Gauge>& queued;
  prometheus::Family<prometheus::Histogram>& latency;
  prometheus::Family<prometheus::Gauge>& resource_version;
};

Families& F() {
  static Families* const kFamilies = new Families();
  return *kFamilies;
}

}  // namespace

void RegisterInformerMetrics() { (void)F(); }

std::vector<FamilyDesc> InformerFamilyDescs() {
  return {QueuedItems(), ProcessingLatency(), StoreResourceVersion()};
}

InformerMetrics::InformerMetrics(const InformerId& id) {
  prometheus::Labels labels = {
      {"name", id.name}, {"group", id.group}, {"version", id.version}, {"resource", id.resource}};
  Families& f = F();
  f.queued.Add(labels);  // stays 0: nothing waits between the watch and the handlers
  latency_ = &f.latency.Add(labels, ProcessingLatency().buckets);
  resource_version_ = &f.resource_version.Add(labels);
}

void InformerMetrics::ObserveProcessing(double seconds) { latency_->Observe(seconds); }

void InformerMetrics::SetStoreResourceVersion(std::string_view rv) {
  if (rv.empty()) return resource_version_->Set(0);
  if (rv.size() > 15) rv.remove_prefix(rv.size() - 15);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) return;
  resource_version_->Set(static_cast<double>(v));
}

}  // namespace stowage::metrics
