#include "pkg/metrics/registry.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "pkg/metrics/process.h"
#include "pkg/metrics/text_format.h"
#include "stowage/common/mutex.h"

namespace stowage::metrics {
namespace {

// component-base's meta-metrics about the registry itself.
FamilyDesc RegisteredMetricsDesc() {
  return {"registered_metrics_total",
          "The count of registered metrics broken by stability level and deprecation version.",
          Type::kCounter,
          Stability::kBeta,
          {"stability_level", "deprecated_version"},
          {}};
}
FamilyDesc DisabledMetricsDesc() {
  return {"disabled_metrics_total",
          "The count of disabled metrics.",
          Type::kCounter,
          Stability::kBeta,
          {},
          {}};
}
FamilyDesc HiddenMetricsDesc() {
  return {"hidden_metrics_total",
          "The count of hidden metrics.",
          Type::kCounter,
          Stability::kBeta,
          {},
          {}};
}

prometheus::MetricFamily Empty(const FamilyDesc& d, prometheus::MetricType t) {
  return prometheus::MetricFamily{d.name, d.ExposedHelp(), t, {}};
}

prometheus::ClientMetric CounterSample(double v, std::vector<prometheus::ClientMetric::Label> l) {
  prometheus::ClientMetric m;
  m.label = std::move(l);
  m.counter.value = v;
  return m;
}

}  // namespace

std::string_view StabilityName(Stability s) {
  switch (s) {
    case Stability::kInternal: return "INTERNAL";
    case Stability::kAlpha: return "ALPHA";
    case Stability::kBeta: return "BETA";
    case Stability::kStable: return "STABLE";
    case Stability::kNone: break;
  }
  return "";
}

std::string FamilyDesc::ExposedHelp() const {
  std::string deprecated =
      deprecated_version.empty() ? "" : "(Deprecated since " + deprecated_version + ") ";
  if (stability == Stability::kNone) return deprecated + help;
  return "[" + std::string(StabilityName(stability)) + "] " + deprecated + help;
}

bool FamilyDesc::Hidden() const {
  if (deprecated_version.empty()) return false;
  int major = 0, minor = 0;
  if (std::sscanf(deprecated_version.c_str(), "%d.%d", &major, &minor) != 2) return false;
  if (major != 1) return major < 1;
  int period = stability == Stability::kStable ? 3 : stability == Stability::kBeta ? 1 : 0;
  return minor + period <= kMetricsMinor;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  out.reserve(count);
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) out.push_back(v);
  return out;
}

Registry::Registry() : registry_(std::make_shared<prometheus::Registry>()) {
  Remember(RegisteredMetricsDesc());
  Remember(DisabledMetricsDesc());
  Remember(HiddenMetricsDesc());
}

Registry& Registry::Global() {
  static Registry* const kGlobal = [] {
    auto* r = new Registry();
    RegisterProcessCollector(*r);
    return r;
  }();
  return *kGlobal;
}

void Registry::Remember(const FamilyDesc& desc) {
  MutexLock l(mu_);
  for (const auto& d : descs_) {
    if (d.name == desc.name) return;
  }
  descs_.push_back(desc);
}

template <typename T>
void Registry::AddToucher(prometheus::Family<T>& family, const FamilyDesc& desc) {
  MutexLock l(mu_);
  touchers_.push_back([&family, desc] {
    prometheus::Labels labels;
    for (const auto& name : desc.labels) labels.emplace(name, "test");
    if constexpr (std::is_same_v<T, prometheus::Histogram>) {
      family.Add(labels, desc.buckets);
    } else {
      family.Add(labels);
    }
  });
}

prometheus::Family<prometheus::Counter>& Registry::AddCounter(const FamilyDesc& desc) {
  Remember(desc);
  auto& f =
      prometheus::BuildCounter().Name(desc.name).Help(desc.ExposedHelp()).Register(*registry_);
  AddToucher(f, desc);
  return f;
}

prometheus::Family<prometheus::Gauge>& Registry::AddGauge(const FamilyDesc& desc) {
  Remember(desc);
  auto& f = prometheus::BuildGauge().Name(desc.name).Help(desc.ExposedHelp()).Register(*registry_);
  AddToucher(f, desc);
  return f;
}

prometheus::Family<prometheus::Histogram>& Registry::AddHistogram(const FamilyDesc& desc) {
  Remember(desc);
  auto& f =
      prometheus::BuildHistogram().Name(desc.name).Help(desc.ExposedHelp()).Register(*registry_);
  AddToucher(f, desc);
  return f;
}

void Registry::TouchAllForTest() {
  std::vector<std::function<void()>> touchers;
  {
    MutexLock l(mu_);
    touchers = touchers_;
  }
  for (const auto& t : touchers) t();
}

void Registry::AddCollector(std::vector<FamilyDesc> descs, CollectFn fn) {
  for (const auto& d : descs) Remember(d);
  MutexLock l(mu_);
  collectors_.push_back(std::move(fn));
}

void Registry::SetShowHidden(bool show) {
  MutexLock l(mu_);
  show_hidden_ = show;
}

void Registry::SetDisabled(const std::vector<std::string>& names) {
  MutexLock l(mu_);
  disabled_.clear();
  disabled_.insert(names.begin(), names.end());
}

std::vector<FamilyDesc> Registry::Describe() const {
  MutexLock l(mu_);
  return descs_;
}

std::vector<prometheus::MetricFamily> Registry::CollectOwn() const {
  MutexLock l(mu_);
  std::map<std::pair<std::string, Stability>, double> by_level;
  double disabled = 0, hidden = 0;
  for (const auto& d : descs_) {
    if (d.Hidden() && !show_hidden_) {
      hidden++;  // a hidden family is never created, so not counted as registered
      continue;
    }
    if (d.stability != Stability::kNone) by_level[{d.deprecated_version, d.stability}]++;
    if (disabled_.count(d.name)) disabled++;
  }
  auto registered = Empty(RegisteredMetricsDesc(), prometheus::MetricType::Counter);
  for (const auto& [key, n] : by_level) {
    registered.metric.push_back(
        CounterSample(n, {{"deprecated_version", key.first},
                          {"stability_level", std::string(StabilityName(key.second))}}));
  }
  auto disabled_total = Empty(DisabledMetricsDesc(), prometheus::MetricType::Counter);
  disabled_total.metric.push_back(CounterSample(disabled, {}));
  auto hidden_total = Empty(HiddenMetricsDesc(), prometheus::MetricType::Counter);
  hidden_total.metric.push_back(CounterSample(hidden, {}));
  return {std::move(registered), std::move(disabled_total), std::move(hidden_total)};
}

std::string Registry::Render() const {
  std::vector<prometheus::MetricFamily> all = registry_->Collect();
  std::vector<CollectFn> collectors;
  {
    MutexLock l(mu_);
    collectors = collectors_;
  }
  for (const auto& fn : collectors) {
    for (auto& f : fn()) all.push_back(std::move(f));
  }
  for (auto& f : CollectOwn()) all.push_back(std::move(f));
  {
    MutexLock l(mu_);
    std::set<std::string, std::less<>> left_out = disabled_;
    for (const auto& d : descs_) {
      if (d.Hidden() && !show_hidden_) left_out.insert(d.name);
    }
    if (!left_out.empty()) {
      all.erase(std::remove_if(all.begin(), all.end(),
                               [&](const auto& f) { return left_out.count(f.name) > 0; }),
                all.end());
    }
  }
  return WriteTextFormat(std::move(all));
}

}  // namespace stowage::metrics
