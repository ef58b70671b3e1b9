#include "pkg/metrics/profile_metrics.h"

#include <random>

#include "pkg/metrics/families.h"

namespace stowage::metrics {
namespace {

constexpr int kPluginMetricsSamplePercent = 10;

// The series in slot, created from family the first time. Concurrent first uses both resolve
// the same series (Family::Add returns the existing one), so the race is benign.
template <typename T, typename MakeFn>
T& Resolve(std::atomic<T*>& slot, MakeFn make) {
  T* p = slot.load(std::memory_order_acquire);
  if (p != nullptr) return *p;
  p = &make();
  slot.store(p, std::memory_order_release);
  return *p;
}

size_t Clamp(uint8_t code) { return code < kNumCodes ? code : 1; }  // unknown -> Error

}  // namespace

ProfileMetrics::ProfileMetrics(std::string profile) : profile_(std::move(profile)) {}

void ProfileMetrics::ObserveAttempt(Result result, double seconds) {
  const auto& f = families::PerProfileFamilies();
  size_t r = static_cast<size_t>(result);
  auto make_labels = [&] {
    return prometheus::Labels{{"result", std::string(ResultName(result))}, {"profile", profile_}};
  };
  Resolve(attempts_[r], [&]() -> prometheus::Counter& {
    return f.schedule_attempts->Add(make_labels());
  }).Increment();
  Resolve(attempt_duration_[r], [&]() -> prometheus::Histogram& {
    return f.attempt_duration->Add(make_labels(), families::SchedulingAttemptDuration().buckets);
  }).Observe(seconds);
}

void ProfileMetrics::ObserveExtensionPoint(ExtensionPoint point, uint8_t code, double seconds) {
  size_t c = Clamp(code);
  Resolve(extension_points_[static_cast<size_t>(point)][c], [&]() -> prometheus::Histogram& {
    return families::PerProfileFamilies().extension_point_duration->Add(
        {{"extension_point", std::string(ExtensionPointName(point))},
         {"status", std::string(CodeName(c))},
         {"profile", profile_}},
        families::FrameworkExtensionPointDuration().buckets);
  }).Observe(seconds);
}

PluginMetrics::PluginMetrics(std::string plugin, std::string profile)
    : plugin_(std::move(plugin)), profile_(std::move(profile)) {}

void PluginMetrics::Evaluated(ExtensionPoint point, uint64_t n) {
  if (n == 0) return;
  Resolve(evaluated_[static_cast<size_t>(point)], [&]() -> prometheus::Counter& {
    return families::PerProfileFamilies().plugin_evaluation->Add(
        {{"plugin", plugin_},
         {"extension_point", std::string(ExtensionPointName(point))},
         {"profile", profile_}});
  }).Increment(static_cast<double>(n));
}

void PluginMetrics::ObserveDuration(ExtensionPoint point, uint8_t code, double seconds) {
  size_t c = Clamp(code);
  Resolve(durations_[static_cast<size_t>(point)][c], [&]() -> prometheus::Histogram& {
    return families::PerProfileFamilies().plugin_execution_duration->Add(
        {{"plugin", plugin_},
         {"extension_point", std::string(ExtensionPointName(point))},
         {"status", std::string(CodeName(c))}},
        families::PluginExecutionDuration().buckets);
  }).Observe(seconds);
}

bool SampleCycleForPluginMetrics() {
  thread_local std::minstd_rand rng{std::random_device{}()};
  return std::uniform_int_distribution<int>(0, 99)(rng) < kPluginMetricsSamplePercent;
}

}  // namespace stowage::metrics
