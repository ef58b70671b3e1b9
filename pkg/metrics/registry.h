// Registry: the set of metric families a process serves on /metrics, the counterpart of
// component-base's legacyregistry. Global() is the process-wide instance every instrumented
// package writes to (created on first use, never destroyed, so late observations from exiting
// threads stay safe); tests may build private ones.
//
// Every family is registered with a FamilyDesc: upstream's name, HELP as written in upstream's
// source, type, component-base stability level (which becomes the "[ALPHA] "-style prefix of the
// served HELP), variable label names, histogram buckets and the version that deprecated it.
// As component-base does, a deprecated family whose deprecation period has ended at
// kMetricsVersion (an ALPHA one at once, BETA after one minor version, STABLE after three) is
// hidden: left out of Render and registered_metrics_total and counted by hidden_metrics_total,
// until SetShowHidden(true) (--show-hidden-metrics-for-version). Families computed at scrape time
// (process_*) come from collectors. Render() writes the text exposition that `curl /metrics`
// returns, in the format of text_format.h, without the families named in SetDisabled() and
// with component-base's own registered_metrics_total, disabled_metrics_total and
// hidden_metrics_total.
//
// Thread-safe: registration, observation (through the prometheus-cpp objects the Add* calls
// return) and Render may run concurrently.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::metrics {

enum class Type : uint8_t { kCounter, kGauge, kHistogram };

// component-base's stability levels. kNone marks families outside that framework (process_*),
// whose HELP has no prefix and which registered_metrics_total does not count.
enum class Stability : uint8_t { kNone, kInternal, kAlpha, kBeta, kStable };

// "INTERNAL", "ALPHA", "BETA", "STABLE" ("" for kNone).
std::string_view StabilityName(Stability s);

struct FamilyDesc {
  std::string name;
  std::string help;  // as in upstream's source, without the stability prefix
  Type type = Type::kCounter;
  Stability stability = Stability::kAlpha;
  std::vector<std::string> labels;  // variable label names, in upstream's order
  std::vector<double> buckets;      // histogram upper bounds, without +Inf
  std::string deprecated_version;   // "1.37.0"; empty when not deprecated

  // The HELP line's text: "[ALPHA] " + help (just help for kNone), with "(Deprecated since
  // <version>) " after the prefix when deprecated.
  std::string ExposedHelp() const;
  // component-base's shouldHide at kMetricsVersion.
  bool Hidden() const;
};

// The Kubernetes minor version whose metrics stowage serves (component-base's current version).
inline constexpr int kMetricsMinor = 37;

// component-base's ExponentialBuckets(start, factor, count): start, start*factor, ...
std::vector<double> ExponentialBuckets(double start, double factor, int count);

class Registry {
 public:
  using CollectFn = std::function<std::vector<prometheus::MetricFamily>()>;

  Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The process-wide registry.
  static Registry& Global();

  // Registers a family (desc.type must match) and returns it; registering the same name twice
  // returns the first family.
  prometheus::Family<prometheus::Counter>& AddCounter(const FamilyDesc& desc);
  prometheus::Family<prometheus::Gauge>& AddGauge(const FamilyDesc& desc);
  prometheus::Family<prometheus::Histogram>& AddHistogram(const FamilyDesc& desc);

  // Families computed at each Render by fn, described by descs.
  void AddCollector(std::vector<FamilyDesc> descs, CollectFn fn);

  // --disabled-metrics: families with these full names are left out of Render. Names that are
  // not registered are ignored, as upstream ignores them (disabled_metrics_total counts only
  // the registered ones).
  void SetDisabled(const std::vector<std::string>& names);

  // --show-hidden-metrics-for-version: serve the hidden deprecated families too.
  void SetShowHidden(bool show);

  // Every registered family (including collectors' and the registry's own), in registration
  // order.
  std::vector<FamilyDesc> Describe() const;

  // The text exposition of every family that has series, minus the disabled ones.
  std::string Render() const;

  // Gives every family registered through Add* a series (each label set to "test"), so a test
  // can see all of them rendered. Never call it in a serving process.
  void TouchAllForTest();

 private:
  void Remember(const FamilyDesc& desc);
  template <typename T>
  void AddToucher(prometheus::Family<T>& family, const FamilyDesc& desc);
  std::vector<prometheus::MetricFamily> CollectOwn() const;

  std::shared_ptr<prometheus::Registry> registry_;
  mutable Mutex mu_;
  std::vector<FamilyDesc> descs_ GUARDED_BY(mu_);
  std::vector<CollectFn> collectors_ GUARDED_BY(mu_);
  std::vector<std::function<void()>> touchers_ GUARDED_BY(mu_);
  std::set<std::string, std::less<>> disabled_ GUARDED_BY(mu_);
  bool show_hidden_ GUARDED_BY(mu_) = false;
};

}  // namespace stowage::metrics
