// Per-profile and per-plugin metric handles for the scheduling hot path: the framework holds one
// ProfileMetrics per profile and one PluginMetrics per plugin instance, and every observation
// finds its series in a fixed array of atomic pointers (indexed by result, extension point and
// status code), resolving the series in the registry only the first time a combination occurs.
// No lock, map lookup or allocation after that. As upstream, a series appears on /metrics when
// first observed.
//
// Thread-safe: any number of threads may observe through the same handle.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/metrics/metrics.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::metrics {

class ProfileMetrics {
 public:
  explicit ProfileMetrics(std::string profile);

  const std::string& profile() const { return profile_; }

  // One scheduling attempt ended with result after `seconds` (scheduling cycle, plus the binding
  // cycle for scheduled pods): schedule_attempts_total and scheduling_attempt_duration_seconds.
  void ObserveAttempt(Result result, double seconds);

  // framework_extension_point_duration_seconds{extension_point,status,profile}; code is the
  // numeric framework::Code.
  void ObserveExtensionPoint(ExtensionPoint point, uint8_t code, double seconds);

 private:
  const std::string profile_;
  std::array<std::atomic<prometheus::Counter*>, 3> attempts_{};
  std::array<std::atomic<prometheus::Histogram*>, 3> attempt_duration_{};
  std::array<std::array<std::atomic<prometheus::Histogram*>, kNumCodes>, kNumExtensionPoints>
      extension_points_{};
};

class PluginMetrics {
 public:
  PluginMetrics(std::string plugin, std::string profile);

  const std::string& plugin() const { return plugin_; }

  // plugin_evaluation_total{plugin,extension_point,profile} += n: the plugin ran n times for a
  // pod (per node at Filter and Score). Upstream counts PreFilter, Filter, PreScore and Score.
  void Evaluated(ExtensionPoint point, uint64_t n = 1);

  // plugin_execution_duration_seconds{plugin,extension_point,status}, for sampled cycles.
  void ObserveDuration(ExtensionPoint point, uint8_t code, double seconds);

 private:
  const std::string plugin_;
  const std::string profile_;
  std::array<std::atomic<prometheus::Counter*>, kNumExtensionPoints> evaluated_{};
  std::array<std::array<std::atomic<prometheus::Histogram*>, kNumCodes>, kNumExtensionPoints>
      durations_{};
};

// Whether a scheduling cycle records plugin_execution_duration_seconds: upstream samples 10% of
// cycles (pluginMetricsSamplePercent). Thread-safe; cheap.
bool SampleCycleForPluginMetrics();

}  // namespace stowage::metrics
