#include "pkg/metrics/component.h"

#include <cstdio>
#include <memory>

#include "pkg/metrics/child_cache.h"
#include "stowage/common/mutex.h"

namespace stowage::metrics {
namespace {

const std::vector<double> kLatencyBuckets = {0.005, 0.025, 0.1, 0.25, 0.5,  1.0,
                                             2.0,   4.0,   8.0, 15.0, 30.0, 60.0};
const std::vector<double> kSizeBuckets = {64,    256,    512,     1024,    4096,    16384,
                                          65536, 262144, 1048576, 4194304, 16777216};

FamilyDesc MasterStatus() {
  return {"leader_election_master_status",
          "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, "
          "1 indicates master. 'name' is the string used to identify the lease. Please make sure "
          "to group by name.",
          Type::kGauge,
          Stability::kAlpha,
          {"name"},
          {}};
}
FamilyDesc Slowpath() {
  return {"leader_election_slowpath_total",
          "Total number of slow path exercised in renewing leader leases. 'name' is the string "
          "used to identify the lease. Please make sure to group by name.",
          Type::kCounter,
          Stability::kAlpha,
          {"name"},
          {}};
}
FamilyDesc RequestDuration() {
  return {"rest_client_request_duration_seconds",
          "Request latency in seconds. Broken down by verb, and host.",
          Type::kHistogram,
          Stability::kAlpha,
          {"verb", "host"},
          kLatencyBuckets};
}
FamilyDesc RequestSize() {
  return {"rest_client_request_size_bytes",
          "Request size in bytes. Broken down by verb and host.",
          Type::kHistogram,
          Stability::kAlpha,
          {"verb", "host"},
          kSizeBuckets};
}
FamilyDesc ResponseSize() {
  return {"rest_client_response_size_bytes",
          "Response size in bytes. Broken down by verb and host.",
          Type::kHistogram,
          Stability::kAlpha,
          {"verb", "host"},
          kSizeBuckets};
}
FamilyDesc RateLimiterDuration() {
  return {"rest_client_rate_limiter_duration_seconds",
          "Client side rate limiter latency in seconds. Broken down by verb, and host.",
          Type::kHistogram,
          Stability::kAlpha,
          {"verb", "host"},
          kLatencyBuckets};
}
FamilyDesc Requests() {
  return {"rest_client_requests_total",
          "Number of HTTP requests, partitioned by status code, method, and host.",
          Type::kCounter,
          Stability::kAlpha,
          {"code", "method", "host"},
          {}};
}
FamilyDesc Retries() {
  return {"rest_client_request_retries_total",
          "Number of request retries, partitioned by status code, verb, and host.",
          Type::kCounter,
          Stability::kAlpha,
          {"code", "verb", "host"},
          {}};
}
FamilyDesc BuildInfoDesc() {
  return {"kubernetes_build_info",
          "A metric with a constant '1' value labeled by major, minor, git version, git commit, "
          "git tree state, build date, Go version, and compiler from which Kubernetes was built, "
          "and platform on which it is running.",
          Type::kGauge,
          Stability::kBeta,
          {"major", "minor", "git_version", "git_commit", "git_tree_state", "build_date",
           "go_version", "compiler", "platform"},
          {}};
}
FamilyDesc FeatureEnabled() {
  return {"kubernetes_feature_enabled",
          "This metric records the data about the stage and enablement of a k8s feature.",
          Type::kGauge,
          Stability::kBeta,
          {"name", "stage"},
          {}};
}

FamilyDesc VersionInfoDesc() {
  return {"version_info",
          "Provides the compatibility version info of the component. The component label is the "
          "name of the component, usually kube, but is relevant for aggregated-apiservers.",
          Type::kGauge,
          Stability::kAlpha,
          {"component", "binary", "emulation", "min_compat"},
          {}};
}
FamilyDesc UnexpectedCategorizations() {
  return {"cardinality_enforcement_unexpected_categorizations_total",
          "The count of unexpected categorizations during cardinality enforcement.",
          Type::kCounter,
          Stability::kAlpha,
          {},
          {}};
}

template <typename T>
std::unique_ptr<ChildCache<T>> Cache(prometheus::Family<T>& f, const FamilyDesc& d) {
  return std::make_unique<ChildCache<T>>(f, d.labels, d.buckets);
}

struct Component {
  Component() {
    Registry& r = Registry::Global();
    master = Cache(r.AddGauge(MasterStatus()), MasterStatus());
    slowpath = Cache(r.AddCounter(Slowpath()), Slowpath());
    duration = Cache(r.AddHistogram(RequestDuration()), RequestDuration());
    request_size = Cache(r.AddHistogram(RequestSize()), RequestSize());
    response_size = Cache(r.AddHistogram(ResponseSize()), ResponseSize());
    rate_limiter = Cache(r.AddHistogram(RateLimiterDuration()), RateLimiterDuration());
    requests = Cache(r.AddCounter(Requests()), Requests());
    retries = Cache(r.AddCounter(Retries()), Retries());
    build = &r.AddGauge(BuildInfoDesc());
    features = Cache(r.AddGauge(FeatureEnabled()), FeatureEnabled());
    SetBuild(BuildInfo{});  // upstream always serves one build_info series
    version = &r.AddGauge(VersionInfoDesc());
    SetVersion(VersionInfo{});
    r.AddCounter(UnexpectedCategorizations()).Add({});
  }
  void SetVersion(const VersionInfo& i) {
    MutexLock l(build_mu);
    if (version_series != nullptr) version->Remove(version_series);
    version_series = &version->Add({{"component", "kube"},
                                    {"binary", i.binary},
                                    {"emulation", i.emulation},
                                    {"min_compat", i.min_compat}});
    version_series->Set(1);
  }
  void SetBuild(const BuildInfo& i) {
    MutexLock l(build_mu);
    if (build_series != nullptr) build->Remove(build_series);
    build_series = &build->Add({{"major", i.major},
                                {"minor", i.minor},
                                {"git_version", i.git_version},
                                {"git_commit", i.git_commit},
                                {"git_tree_state", i.git_tree_state},
                                {"build_date", i.build_date},
                                {"go_version", i.go_version},
                                {"compiler", i.compiler},
                                {"platform", i.platform}});
    build_series->Set(1);
  }
  std::unique_ptr<ChildCache<prometheus::Gauge>> master;
  std::unique_ptr<ChildCache<prometheus::Counter>> slowpath;
  std::unique_ptr<ChildCache<prometheus::Histogram>> duration, request_size, response_size,
      rate_limiter;
  std::unique_ptr<ChildCache<prometheus::Counter>> requests, retries;
  prometheus::Family<prometheus::Gauge>* build;
  std::unique_ptr<ChildCache<prometheus::Gauge>> features;
  Mutex build_mu;
  prometheus::Gauge* build_series = nullptr;
  prometheus::Family<prometheus::Gauge>* version;
  prometheus::Gauge* version_series = nullptr;
};

Component& C() {
  static Component* const kComponent = new Component();
  return *kComponent;
}

}  // namespace

void RegisterComponentMetrics() { (void)C(); }

std::vector<FamilyDesc> ComponentFamilyDescs() {
  return {MasterStatus(),   Slowpath(),        RequestDuration(),
          RequestSize(),    ResponseSize(),    RateLimiterDuration(),
          Requests(),       Retries(),         BuildInfoDesc(),
          FeatureEnabled(), VersionInfoDesc(), UnexpectedCategorizations()};
}

void SetLeader(std::string_view name, bool leader) { C().master->Get({name}).Set(leader ? 1 : 0); }

void LeaderSlowpathExercised(std::string_view name) { C().slowpath->Get({name}).Increment(); }

void ObserveRestRequest(const RestRequest& r) {
  Component& c = C();
  char code_buf[16];
  std::string_view code = "<error>";
  if (r.code > 0) {
    int n = std::snprintf(code_buf, sizeof(code_buf), "%d", r.code);
    code = std::string_view(code_buf, n);
  }
  c.requests->Get({code, r.verb, r.host}).Increment();
  c.duration->Get({r.verb, r.host}).Observe(r.latency_seconds);
  if (r.rate_limiter_seconds >= 0) {
    c.rate_limiter->Get({r.verb, r.host}).Observe(r.rate_limiter_seconds);
  }
  if (r.request_bytes >= 0) {
    c.request_size->Get({r.verb, r.host}).Observe(static_cast<double>(r.request_bytes));
  }
  if (r.response_bytes >= 0) {
    c.response_size->Get({r.verb, r.host}).Observe(static_cast<double>(r.response_bytes));
  }
  if (r.retry) c.retries->Get({code, r.verb, r.host}).Increment();
}

void SetBuildInfo(const BuildInfo& info) { C().SetBuild(info); }

void SetVersionInfo(const VersionInfo& info) { C().SetVersion(info); }

void SetFeatureEnabled(std::string_view name, std::string_view stage, bool enabled) {
  C().features->Get({name, stage}).Set(enabled ? 1 : 0);
}

}  // namespace stowage::metrics
