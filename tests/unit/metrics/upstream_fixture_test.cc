// stowage's /metrics against upstream's: tests/fixtures/metrics/kube-scheduler-v1.37.2.txt holds
// the HELP, TYPE, label names and buckets of every family the real kube-scheduler v1.37.2 serves
// (captured by tests/fixtures/metrics/capture.sh), and the deprecated ones it hides. Every
// family in scope must exist in stowage with the same TYPE, HELP (stability prefix included),
// label names and buckets, both in the descriptors and in what Render() writes, and be hidden
// exactly when upstream hides it; families stowage deliberately lacks are listed below with the
// reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/metrics/component.h"
#include "pkg/metrics/families.h"
#include "pkg/metrics/informer.h"
#include "pkg/metrics/metrics.h"
#include "pkg/metrics/registry.h"
#include "tests/testing/fixtures.h"

namespace stowage::metrics::upstream_fixture_test {
namespace {

struct Upstream {
  std::string help, type, labels, buckets;
  bool scraped = false;  // from the live scrape (Go's number format) rather than describe/main.go
  bool hidden = false;   // registered, deprecated, served only with --show-hidden-metrics
};

constexpr char kFixture[] = "metrics/kube-scheduler-v1.37.2.txt";

// The fixture, by family name.
std::map<std::string, Upstream> ReadUpstream() {
  std::istringstream in(testing::ReadFixture(kFixture));
  std::map<std::string, Upstream> out;
  bool scraped = true;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# registered without series", 0) == 0) scraped = false;
    if (line.rfind("# HIDDEN ", 0) == 0) out[line.substr(9)].hidden = true;
    for (const char* kind : {"HELP", "TYPE", "LABELS", "BUCKETS"}) {
      std::string prefix = std::string("# ") + kind + " ";
      if (line.rfind(prefix, 0) != 0) continue;
      std::string rest = line.substr(prefix.size());
      size_t sp = rest.find(' ');
      std::string name = rest.substr(0, sp);
      std::string value = sp == std::string::npos ? "" : rest.substr(sp + 1);
      Upstream& u = out[name];
      u.scraped = scraped;
      if (kind == std::string("HELP")) u.help = value;
      if (kind == std::string("TYPE")) u.type = value;
      if (kind == std::string("LABELS")) u.labels = value;
      if (kind == std::string("BUCKETS")) u.buckets = value;
    }
  }
  return out;
}

// Out of scope: go_* (stowage is not a Go program), the apiserver library's own families
// (apiserver_*, aggregator_*, authentication_*, authorization_*, authenticated_user_requests,
// which kube-scheduler's delegated auth filters record) and workqueue_* (the workqueues of
// upstream's dynamic certificate controllers, which stowage does not have).
bool InScope(const std::string& name) {
  for (const char* p : {"scheduler_", "leader_election_", "kube_pod_resource_", "rest_client_",
                        "process_", "informer_", "dynamic_resource_allocation_"}) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return name == "kubernetes_build_info" || name == "kubernetes_feature_enabled" ||
         name == "registered_metrics_total" || name == "disabled_metrics_total" ||
         name == "hidden_metrics_total" || name == "version_info" ||
         name == "cardinality_enforcement_unexpected_categorizations_total";
}

// Upstream families in scope that stowage does not serve, and why.
const std::map<std::string, std::string>& DeliberatelyAbsent() {
  static const auto* kAbsent = new std::map<std::string, std::string>{
      {"rest_client_exec_plugin_certificate_rotation_age",
       "client-go exec credential plugins; stowage's kubeconfig loader does not run them"},
      {"rest_client_exec_plugin_ttl_seconds", "client-go exec credential plugins, as above"},
      {"rest_client_transport_cache_entries",
       "client-go's shared transport cache; stowage builds one transport per client"},
      {"rest_client_transport_create_calls_total", "client-go's transport cache, as above"},
      {"rest_client_transport_cert_rotation_gc_calls_total",
       "client-go's transport cache garbage collection, as above"},
  };
  return *kAbsent;
}

// stowage families that the capture did not see, and why.
const std::map<std::string, std::string>& NotInFixture() {
  static const auto* kExtra = new std::map<std::string, std::string>{
      {"rest_client_request_retries_total",
       "registered upstream too, but the capture run made no retried request"},
  };
  return *kExtra;
}

std::string TypeName(Type t) {
  switch (t) {
    case Type::kCounter: return "counter";
    case Type::kGauge: return "gauge";
    case Type::kHistogram: return "histogram";
  }
  return "";
}

std::string SortedLabels(std::vector<std::string> labels) {
  std::sort(labels.begin(), labels.end());
  std::string out;
  for (const auto& l : labels) out += (out.empty() ? "" : ",") + l;
  return out;
}

std::vector<double> ParseBuckets(const std::string& s) {
  std::vector<double> out;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

std::map<std::string, FamilyDesc> StowageDescs() {
  Register();
  RegisterComponentMetrics();
  RegisterInformerMetrics();
  std::map<std::string, FamilyDesc> out;
  for (auto& d : Registry::Global().Describe()) out[d.name] = d;
  for (auto d : {families::PodResourceRequest(), families::PodResourceLimit()}) out[d.name] = d;
  return out;
}

TEST(UpstreamFixture, EveryFamilyInScopeExistsWithSameTypeHelpLabelsBuckets) {
  auto upstream = ReadUpstream();
  auto ours = StowageDescs();
  int compared = 0;
  for (const auto& [name, u] : upstream) {
    if (!InScope(name) || DeliberatelyAbsent().count(name)) continue;
    SCOPED_TRACE(name);
    auto it = ours.find(name);
    ASSERT_NE(it, ours.end()) << "upstream serves " << name << " but stowage does not";
    const FamilyDesc& d = it->second;
    EXPECT_EQ(d.Hidden(), u.hidden);
    if (u.hidden) continue;
    EXPECT_EQ(TypeName(d.type), u.type);
    EXPECT_EQ(d.ExposedHelp(), u.help);
    EXPECT_EQ(SortedLabels(d.labels), u.labels);
    if (d.type == Type::kHistogram) {
      std::vector<double> want = ParseBuckets(u.buckets);
      ASSERT_FALSE(want.empty());
      want.pop_back();  // +Inf
      EXPECT_EQ(d.buckets, want);
    }
    ++compared;
  }
  // The scheduler's 21 + 4 (queueing hints, async preemption) + 1 (after flush) + 1 (resource
  // claims) + 2 (DRA binding conditions) + 2 (volume binding), and the inherited ones.
  EXPECT_GE(compared, 31 + 2 + 2 + 5 + 9 + 5);
  for (const auto& [name, reason] : DeliberatelyAbsent()) {
    EXPECT_TRUE(upstream.count(name)) << name << " is listed as absent but upstream lacks it too";
    EXPECT_FALSE(ours.count(name)) << name << " is listed as absent but stowage has it";
  }
}

TEST(UpstreamFixture, StowageServesNothingUpstreamDoesNot) {
  auto upstream = ReadUpstream();
  for (const auto& [name, d] : StowageDescs()) {
    if (NotInFixture().count(name)) continue;
    EXPECT_TRUE(upstream.count(name)) << "stowage serves " << name << ", upstream does not";
  }
}

// What `curl /metrics` returns: with a series in every family, each family's HELP and TYPE
// lines are upstream's, and so is every bucket bound as written (le="...").
TEST(UpstreamFixture, RenderedHelpTypeAndBucketsMatch) {
  auto upstream = ReadUpstream();
  StowageDescs();
  Registry::Global().TouchAllForTest();
  std::istringstream in(Registry::Global().Render());
  std::map<std::string, std::string> help, type, buckets;
  std::map<std::string, std::string> first_series;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      size_t sp = line.find(' ', 7);
      help[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (line.rfind("# TYPE ", 0) == 0) {
      size_t sp = line.find(' ', 7);
      type[line.substr(7, sp - 7)] = line.substr(sp + 1);
    } else if (size_t b = line.find("_bucket{"); b != std::string::npos) {
      std::string family = line.substr(0, b);
      size_t le = line.rfind(",le=\"");
      if (le == std::string::npos) le = line.find("{le=\"");
      std::string series = line.substr(0, le);
      if (!first_series.count(family)) first_series[family] = series;
      if (first_series[family] != series) continue;
      size_t start = le + 5;
      std::string bound = line.substr(start, line.find('"', start) - start);
      buckets[family] += (buckets[family].empty() ? "" : ",") + bound;
    }
  }
  for (const auto& [name, u] : upstream) {
    if (!InScope(name) || DeliberatelyAbsent().count(name) || name.rfind("kube_pod_", 0) == 0) {
      continue;
    }
    SCOPED_TRACE(name);
    if (u.hidden) {
      EXPECT_FALSE(help.count(name)) << "hidden upstream but rendered";
      continue;
    }
    ASSERT_TRUE(help.count(name)) << "not rendered";
    EXPECT_EQ(help[name], u.help);
    EXPECT_EQ(type[name], u.type);
    if (u.type == "histogram") {
      if (u.scraped) {
        EXPECT_EQ(buckets[name], u.buckets);  // byte for byte, as dashboards select le
      } else {
        EXPECT_EQ(ParseBuckets(buckets[name]), ParseBuckets(u.buckets));
      }
    }
  }
}

}  // namespace
}  // namespace stowage::metrics::upstream_fixture_test
