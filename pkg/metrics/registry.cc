#include "pkg/metrics/registry.h"

#include <algorithm>
#include <map>

#include "pkg/metrics/process.h"
#include "pkg/metrics/text_format.h"

namespace stowage::metrics {
namespace {

// component-base's meta-metrics about the registry itself.
FamilyDesc RegisteredMetricsDesc() {
  return {"registered_metrics_total",
          "The count of registered metrics broken by stability level and deprecation version.",
          Type::kCounter, Stability::kBeta, {"stability_level", "deprecated_version"}, {}};
}
FamilyDesc DisabledMetricsDesc() {
  return {"disabled_metrics_total", "The count of disabled metrics.", Type::kCounter,
          Stability::kBeta, {}, {}};
}
FamilyDesc HiddenMetricsDesc() {
  return {"hidden_metrics_total", "The count of hidden metrics.", Type::kCounter,
          Stability::kBeta, {}, {}};
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
  if (stability == Stability::kNone) return help;
  return "[" + std::string(StabilityName(stability)) + "] " + help;
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
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& d : descs_) {
    if (d.name == desc.name) return;
  }
  descs_.push_back(desc);
}

template <typename T>
void Registry::AddToucher(prometheus::Family<T>& family, const FamilyDesc& desc) {
  std::lock_guard<std::mutex> l(mu_);
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
    std::lock_guard<std::mutex> l(mu_);
    touchers = touchers_;
  }
  for (const auto& t : touchers) t();
}

void Registry::AddCollector(std::vector<FamilyDesc> descs, CollectFn fn) {
  for (const auto& d : descs) Remember(d);
  std::lock_guard<std::mutex> l(mu_);
  collectors_.push_back(std::move(fn));
}

void Registry::SetDisabled(const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> l(mu_);
  disabled_.clear();
  disabled_.insert(names.begin(), names.end());
}

std::vector<FamilyDesc> Registry::Describe() const {
  std::lock_guard<std::mutex> l(mu_);
  return descs_;
}

std::vector<prometheus::MetricFamily> Registry::CollectOwn() const {
  std::lock_guard<std::mutex> l(mu_);
  std::map<Stability, double> by_level;
  double disabled = 0;
  for (const auto& d : descs_) {
    if (d.stability != Stability::kNone) by_level[d.stability]++;
    if (disabled_.count(d.name)) disabled++;
  }
  auto registered = Empty(RegisteredMetricsDesc(), prometheus::MetricType::Counter);
  for (const auto& [level, n] : by_level) {
    registered.metric.push_back(CounterSample(
        n, {{"deprecated_version", ""}, {"stability_level", std::string(StabilityName(level))}}));
  }
  auto disabled_total = Empty(DisabledMetricsDesc(), prometheus::MetricType::Counter);
  disabled_total.metric.push_back(CounterSample(disabled, {}));
  auto hidden_total = Empty(HiddenMetricsDesc(), prometheus::MetricType::Counter);
  hidden_total.metric.push_back(CounterSample(0, {}));  // stowage hides no metric
  return {std::move(registered), std::move(disabled_total), std::move(hidden_total)};
}

std::string Registry::Render() const {
  std::vector<prometheus::MetricFamily> all = registry_->Collect();
  std::vector<CollectFn> collectors;
  {
    std::lock_guard<std::mutex> l(mu_);
    collectors = collectors_;
  }
  for (const auto& fn : collectors) {
    for (auto& f : fn()) all.push_back(std::move(f));
  }
  for (auto& f : CollectOwn()) all.push_back(std::move(f));
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!disabled_.empty()) {
      all.erase(std::remove_if(all.begin(), all.end(),
                               [&](const auto& f) { return disabled_.count(f.name) > 0; }),
                all.end());
    }
  }
  return WriteTextFormat(std::move(all));
}

}  // namespace stowage::metrics
