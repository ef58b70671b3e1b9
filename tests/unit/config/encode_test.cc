// Encoding in the v1 schema (--write-config-to, /configz), and the round trip through
// ParseConfig.
#include "pkg/config/encode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"

namespace stowage::config::encode_test {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

KubeSchedulerConfiguration Defaulted() {
  KubeSchedulerConfiguration cfg;
  SetDefaults(cfg);
  return cfg;
}

void ExpectRoundTrip(const KubeSchedulerConfiguration& cfg) {
  const std::string yaml = EncodeYaml(cfg);
  StatusOr<KubeSchedulerConfiguration> back = ParseConfig(yaml, "encoded");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
  EXPECT_TRUE(*back == cfg) << yaml << "\n---- re-encoded:\n" << EncodeYaml(*back);
  // JSON is YAML too.
  StatusOr<KubeSchedulerConfiguration> from_json = ParseConfig(EncodeJson(cfg), "json");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_TRUE(*from_json == cfg);
}

// The whole default output is compared with upstream's in upstream_fixtures_test.cc; this is the
// layout rule that changed when that comparison was introduced.
TEST(EncodeTest, KeysAreSortedWithApiVersionAndKindAmongThem) {
  const std::string yaml = EncodeYaml(Defaulted());
  EXPECT_THAT(yaml, StartsWith("apiVersion: kubescheduler.config.k8s.io/v1\n"
                               "clientConnection:\n"));
  EXPECT_THAT(yaml, HasSubstr("enableProfiling: true\n"
                              "kind: KubeSchedulerConfiguration\n"
                              "leaderElection:\n"));
  EXPECT_THAT(yaml, HasSubstr("      apiVersion: kubescheduler.config.k8s.io/v1\n"
                              "      bindingTimeout: 10m0s\n"
                              "      filterTimeout: 10s\n"
                              "      kind: DynamicResourcesArgs\n"));
}

TEST(EncodeTest, UnsetWeightsAreLeftOut) {
  const std::string yaml = EncodeYaml(Defaulted());
  EXPECT_THAT(yaml, HasSubstr("      - name: SchedulingGates\n      - name: PrioritySort\n"));
  EXPECT_THAT(yaml, HasSubstr("      - name: TaintToleration\n        weight: 3\n"));
  EXPECT_THAT(yaml, HasSubstr("    podGroupPostFilter: {}\n"));
}

TEST(EncodeTest, DefaultConfigRoundTrips) {
  const KubeSchedulerConfiguration cfg = Defaulted();
  ExpectRoundTrip(cfg);
  // What is written is a valid configuration.
  StatusOr<KubeSchedulerConfiguration> back = ParseConfig(EncodeYaml(cfg), "encoded");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(Validate(*back).ok());
}

TEST(EncodeTest, EmptyConfigRoundTrips) {
  ExpectRoundTrip(KubeSchedulerConfiguration{});
  EXPECT_EQ(EncodeYaml(KubeSchedulerConfiguration{}),
            "apiVersion: kubescheduler.config.k8s.io/v1\n"
            "clientConnection:\n"
            "  acceptContentTypes: \"\"\n"
            "  burst: 0\n"
            "  contentType: \"\"\n"
            "  kubeconfig: \"\"\n"
            "  qps: 0\n"
            "kind: KubeSchedulerConfiguration\n"
            "leaderElection:\n"
            "  leaderElect: null\n"
            "  leaseDuration: 0s\n"
            "  renewDeadline: 0s\n"
            "  resourceLock: \"\"\n"
            "  resourceName: \"\"\n"
            "  resourceNamespace: \"\"\n"
            "  retryPeriod: 0s\n");
}

TEST(EncodeTest, EverythingRoundTrips) {
  KubeSchedulerConfiguration cfg;
  cfg.parallelism = 3;
  cfg.client_connection = {"/k", "application/json", "application/json", 0.1f, 7};
  cfg.leader_election = {false, 1h + 2min + 3500ms, 1500ms, 1ns, "leases", "yes", "123"};
  cfg.debugging = {false, std::nullopt};
  cfg.percentage_of_nodes_to_score = 35;
  cfg.pod_initial_backoff_seconds = 2;
  cfg.pod_max_backoff_seconds = 4;
  cfg.delay_cache_until_active = true;

  Extender e;
  e.url_prefix = "http://ext:8080/x";
  e.filter_verb = "filter";
  e.prioritize_verb = "prioritize";
  e.weight = 2;
  e.bind_verb = "bind";
  e.preempt_verb = "preempt";
  e.enable_https = true;
  e.tls_config =
      ExtenderTLSConfig{true, "ext", "/c", "/k", "/ca", "cert\n", std::string("\0\x01", 2), "ca"};
  e.http_timeout = 30s;
  e.node_cache_capable = true;
  e.managed_resources = {{"example.com/gpu", true}, {"example.com/fpga", false}};
  e.ignorable = true;
  cfg.extenders = {e, Extender{}};

  KubeSchedulerProfile& p = cfg.profiles.emplace_back();
  p.scheduler_name = "";
  p.percentage_of_nodes_to_score = 0;
  p.plugins = Plugins{};
  p.plugins->multi_point.enabled = {{"A", std::nullopt}, {"B", 0}, {"C", -3}};
  p.plugins->score.disabled = {{"*", std::nullopt}};
  p.plugins->placement_generate.enabled = {{"true", std::nullopt}};
  api::TopologySpreadConstraint c;
  c.max_skew = 1;
  c.topology_key = "zone";
  c.when_unsatisfiable = "DoNotSchedule";
  c.label_selector = api::LabelSelector{};
  c.label_selector->match_labels = api::StringMap({{"app", "web"}, {"n", "1"}});
  c.label_selector->match_expressions = {{"tier", "In", {"a", "null"}}};
  c.min_domains = 2;
  c.node_affinity_policy = "Honor";
  c.match_label_keys = {"pod-template-hash"};
  api::NodeAffinity affinity;
  affinity.required = api::NodeSelector{};
  affinity.required->terms = {{{{"zone", "In", {"a"}}}, {{"metadata.name", "NotIn", {"n1"}}}}, {}};
  affinity.preferred = {{5, {{{"disk", "Exists", {}}}, {}}}};
  p.plugin_config = {
      {"DefaultPreemption", DefaultPreemptionArgs{5, std::nullopt}},
      {"InterPodAffinity", InterPodAffinityArgs{std::nullopt, true}},
      {"NodeResourcesFit",
       NodeResourcesFitArgs{{"example.com/a"},
                            {"example.com"},
                            ScoringStrategy{"RequestedToCapacityRatio",
                                            {{"cpu", 0}, {"gpu", 3}},
                                            RequestedToCapacityRatioParam{{{0, 0}, {100, 10}}}}}},
      {"NodeResourcesFit2", std::monostate{}},
      {"PodTopologySpread", PodTopologySpreadArgs{{c}, "List"}},
      {"NodeResourcesBalancedAllocation", NodeResourcesBalancedAllocationArgs{{{"cpu", 1}}}},
      {"VolumeBinding", VolumeBindingArgs{0, std::vector<UtilizationShapePoint>{}}},
      {"NodeAffinity", NodeAffinityArgs{affinity}},
      {"DynamicResources", DynamicResourcesArgs{std::nullopt, 0s}},
      {"Custom", RawArgs{R"({"a":[1,2.5,"x",null,{"b":false}],"s":"0x10","t":"a: b"})"}},
  };
  KubeSchedulerProfile& q = cfg.profiles.emplace_back();
  q.scheduler_name = "second";
  ExpectRoundTrip(cfg);
}

TEST(EncodeTest, StringsThatNeedQuotes) {
  for (const char* s :
       {"",        "yes",  "No",    "on",    "~",          "null",      "123",
        "0x1F",    "1e3",  "1.5",   ".5",    "-1",         "- a",       "a: b",
        "a #b",    "#x",   "[x]",   "{x}",   "*x",         "&x",        "!x",
        "|",       ">",    "'x'",   "\"x\"", "%x",         "@x",        "`x",
        " x",      "x ",   "x:",    "a\nb",  "tab\t",      "ctl\x01",   "back\\slash",
        "ünïcødé", ".inf", "--- x", "? x",   "nb\u00a0sp", "n\u0085el", "\u00a0"}) {
    KubeSchedulerConfiguration cfg;
    cfg.leader_election.resource_name = s;
    cfg.client_connection.kubeconfig = std::string("/") + s;
    ExpectRoundTrip(cfg);
  }
}

// yaml-cpp decodes these two escapes to bytes that are not UTF-8; go-yaml gives the code points,
// and so must the loader, or the configuration it writes back out does not load (found by the
// config fuzzer).
TEST(EncodeTest, NelAndNbspEscapesLoadAsUtf8) {
  StatusOr<KubeSchedulerConfiguration> cfg = ParseConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "leaderElection: {resourceName: \"a\\_b\\Nc\\xA0\"}\n",
      "escapes");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->leader_election.resource_name, "a\u00a0b\u0085c\u00a0");
  ExpectRoundTrip(*cfg);
}

TEST(EncodeTest, QuotingStyleFollowsGoYaml) {
  KubeSchedulerConfiguration cfg;
  KubeSchedulerProfile& p = cfg.profiles.emplace_back();
  p.plugins = Plugins{};
  p.plugins->score.disabled = {{"*", std::nullopt}};
  p.plugins->score.enabled = {
      {"'q", std::nullopt}, {"it's", std::nullopt}, {"123", std::nullopt}, {"a\tb", 1}};
  const std::string yaml = EncodeYaml(cfg);
  EXPECT_THAT(yaml, HasSubstr("      - name: '*'\n"));
  EXPECT_THAT(yaml, HasSubstr("      - name: '''q'\n"));
  EXPECT_THAT(yaml, HasSubstr("      - name: it's\n"));
  EXPECT_THAT(yaml, HasSubstr("      - name: \"123\"\n"));
  EXPECT_THAT(yaml, HasSubstr("      - name: \"a\\tb\"\n"));
  ExpectRoundTrip(cfg);
}

TEST(EncodeTest, LongKeysUseExplicitKeySyntax) {
  // YAML limits implicit keys to 1024 characters.
  const std::string key(1100, 'k');
  KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back().plugin_config = {
      {"X", RawArgs{R"({"b":")" + key + R"(",")" + key + R"(":{"a":[1]}})"}}};
  EXPECT_THAT(EncodeYaml(cfg), HasSubstr("      ? " + key + "\n      :\n        a:\n"));
  ExpectRoundTrip(cfg);
}

TEST(EncodeTest, ArgsJson) {
  EXPECT_EQ(EncodeArgsJson(std::monostate{}), "null");
  EXPECT_EQ(EncodeArgsJson(RawArgs{R"({"z":1,"a":2})"}), R"({"a":2,"z":1})");
  EXPECT_EQ(EncodeArgsJson(InterPodAffinityArgs{1, false}),
            R"({"apiVersion":"kubescheduler.config.k8s.io/v1","hardPodAffinityWeight":1,)"
            R"("ignorePreferredTermsOfExistingPods":false,"kind":"InterPodAffinityArgs"})");
  EXPECT_EQ(EncodeArgsJson(DynamicResourcesArgs{}),
            R"({"apiVersion":"kubescheduler.config.k8s.io/v1","filterTimeout":null,)"
            R"("kind":"DynamicResourcesArgs"})");
}

}  // namespace
}  // namespace stowage::config::encode_test
