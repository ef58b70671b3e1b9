// Strict decoding of KubeSchedulerConfiguration files (YAML and JSON), as upstream's
// scheme.Codecs with EnableStrict: unknown and duplicate fields, wrong types, TypeMeta checks,
// typed and raw plugin args, and the bounds on hostile input.
#include "pkg/config/load.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "pkg/config/encode.h"

namespace stowage::config::load_test {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

StatusOr<KubeSchedulerConfiguration> Parse(const std::string& body) {
  return ParseConfig(kHeader + body, "test.yaml");
}

KubeSchedulerConfiguration MustParse(const std::string& body) {
  StatusOr<KubeSchedulerConfiguration> cfg = Parse(body);
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  return cfg.ok() ? *cfg : KubeSchedulerConfiguration{};
}

TEST(LoadTest, MinimalIsEmpty) { EXPECT_EQ(MustParse(""), KubeSchedulerConfiguration{}); }

TEST(LoadTest, EveryTopLevelField) {
  const KubeSchedulerConfiguration cfg = MustParse(R"(
parallelism: 8
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 1.5s
  resourceLock: leases
  resourceName: my-scheduler
  resourceNamespace: sched
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
  acceptContentTypes: application/json
  contentType: application/json
  qps: 12.5
  burst: 30
enableProfiling: true
enableContentionProfiling: false
percentageOfNodesToScore: 40
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
delayCacheUntilActive: true
extenders:
- urlPrefix: https://ext.example.com/scheduler
  filterVerb: filter
  preemptVerb: preempt
  prioritizeVerb: prioritize
  weight: 5
  bindVerb: bind
  enableHTTPS: true
  tlsConfig:
    insecure: false
    serverName: ext.example.com
    certFile: /c.pem
    keyFile: /k.pem
    caFile: /ca.pem
    caData: aGVsbG8=
  httpTimeout: 30s
  nodeCacheCapable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  ignorable: true
)");
  EXPECT_EQ(cfg.parallelism, 8);
  EXPECT_EQ(cfg.leader_election.leader_elect, false);
  EXPECT_EQ(cfg.leader_election.lease_duration, 30s);
  EXPECT_EQ(cfg.leader_election.renew_deadline, 20s);
  EXPECT_EQ(cfg.leader_election.retry_period, 1500ms);
  EXPECT_EQ(cfg.leader_election.resource_name, "my-scheduler");
  EXPECT_EQ(cfg.leader_election.resource_namespace, "sched");
  EXPECT_EQ(cfg.client_connection.kubeconfig, "/etc/kubernetes/scheduler.conf");
  EXPECT_EQ(cfg.client_connection.accept_content_types, "application/json");
  EXPECT_EQ(cfg.client_connection.qps, 12.5f);
  EXPECT_EQ(cfg.client_connection.burst, 30);
  EXPECT_EQ(cfg.debugging.enable_profiling, true);
  EXPECT_EQ(cfg.debugging.enable_contention_profiling, false);
  EXPECT_EQ(cfg.percentage_of_nodes_to_score, 40);
  EXPECT_EQ(cfg.pod_initial_backoff_seconds, 2);
  EXPECT_EQ(cfg.pod_max_backoff_seconds, 20);
  EXPECT_TRUE(cfg.delay_cache_until_active);
  ASSERT_EQ(cfg.extenders.size(), 1u);
  const Extender& e = cfg.extenders[0];
  EXPECT_EQ(e.url_prefix, "https://ext.example.com/scheduler");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.preempt_verb, "preempt");
  EXPECT_EQ(e.prioritize_verb, "prioritize");
  EXPECT_EQ(e.weight, 5);
  EXPECT_EQ(e.bind_verb, "bind");
  EXPECT_TRUE(e.enable_https);
  ASSERT_TRUE(e.tls_config.has_value());
  EXPECT_EQ(e.tls_config->server_name, "ext.example.com");
  EXPECT_EQ(e.tls_config->ca_data, "hello");
  EXPECT_EQ(e.http_timeout, 30s);
  EXPECT_TRUE(e.node_cache_capable);
  ASSERT_EQ(e.managed_resources.size(), 1u);
  EXPECT_EQ(e.managed_resources[0].name, "example.com/gpu");
  EXPECT_TRUE(e.managed_resources[0].ignored_by_scheduler);
  EXPECT_TRUE(e.ignorable);
}

TEST(LoadTest, ProfilesPluginsAndArgs) {
  const KubeSchedulerConfiguration cfg = MustParse(R"(
profiles:
- schedulerName: a
  percentageOfNodesToScore: 50
  plugins:
    multiPoint:
      enabled:
      - name: MyPlugin
        weight: 4
    score:
      disabled:
      - name: "*"
      enabled:
      - name: NodeResourcesFit
        weight: 7
    placementScore:
      enabled:
      - name: PodGroupPodsCount
    podGroupPostFilter:
      enabled:
      - name: DefaultPreemption
      disabled:
      - name: DynamicResources
  pluginConfig:
  - args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 3
    name: NodeResourcesFit
  - name: MyPlugin
    args:
      b: [1, 2.5, "x", true, null]
      a: {nested: yes}
  - name: NoArgsPlugin
  - name: DefaultPreemption
)");
  ASSERT_EQ(cfg.profiles.size(), 1u);
  const KubeSchedulerProfile& p = cfg.profiles[0];
  EXPECT_EQ(p.scheduler_name, "a");
  EXPECT_EQ(p.percentage_of_nodes_to_score, 50);
  ASSERT_TRUE(p.plugins.has_value());
  EXPECT_EQ(p.plugins->multi_point.enabled, (std::vector<Plugin>{{"MyPlugin", 4}}));
  EXPECT_EQ(p.plugins->score.disabled, (std::vector<Plugin>{{"*", std::nullopt}}));
  EXPECT_EQ(p.plugins->score.enabled, (std::vector<Plugin>{{"NodeResourcesFit", 7}}));
  EXPECT_EQ(p.plugins->placement_score.enabled,
            (std::vector<Plugin>{{"PodGroupPodsCount", std::nullopt}}));
  // New in 1.37 (a 1.36 decoder rejects the field as unknown).
  EXPECT_EQ(p.plugins->pod_group_post_filter.enabled,
            (std::vector<Plugin>{{"DefaultPreemption", std::nullopt}}));
  EXPECT_EQ(p.plugins->pod_group_post_filter.disabled,
            (std::vector<Plugin>{{"DynamicResources", std::nullopt}}));
  ASSERT_EQ(p.plugin_config.size(), 4u);
  EXPECT_EQ(p.plugin_config[0].name, "NodeResourcesFit");
  const auto* fit = std::get_if<NodeResourcesFitArgs>(&p.plugin_config[0].args);
  ASSERT_NE(fit, nullptr);
  ASSERT_TRUE(fit->scoring_strategy.has_value());
  EXPECT_EQ(fit->scoring_strategy->type, "MostAllocated");
  EXPECT_EQ(fit->scoring_strategy->resources, (std::vector<ResourceSpec>{{"cpu", 3}}));
  // Out-of-tree args: JSON with sorted keys and YAML 1.1 scalar typing (yes is true).
  const auto* raw = std::get_if<RawArgs>(&p.plugin_config[1].args);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->json, R"({"a":{"nested":true},"b":[1,2.5,"x",true,null]})");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(p.plugin_config[2].args));
  // In-tree args without an args field are typed and empty (defaulting fills them).
  EXPECT_TRUE(std::holds_alternative<DefaultPreemptionArgs>(p.plugin_config[3].args));
}

TEST(LoadTest, EveryArgsKind) {
  const KubeSchedulerConfiguration cfg = MustParse(R"(
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 50}
  - name: InterPodAffinity
    args: {apiVersion: kubescheduler.config.k8s.io/v1, kind: InterPodAffinityArgs,
           hardPodAffinityWeight: 5, ignorePreferredTermsOfExistingPods: true}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 2
        topologyKey: zone
        whenUnsatisfiable: ScheduleAnyway
        minDomains: 3
        nodeAffinityPolicy: Honor
        nodeTaintsPolicy: Ignore
        matchLabelKeys: [app]
        labelSelector: {matchLabels: {a: b}, matchExpressions: [{key: k, operator: In, values: [v]}]}
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu, weight: 1}, {name: example.com/gpu}]}
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 300, shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
            matchFields: [{key: metadata.name, operator: NotIn, values: [n1]}]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference: {matchExpressions: [{key: disk, operator: Exists}]}
  - name: DynamicResources
    args: {filterTimeout: 5s, bindingTimeout: 2m}
)");
  const auto& pc = cfg.profiles.at(0).plugin_config;
  ASSERT_EQ(pc.size(), 7u);
  EXPECT_EQ(std::get<DefaultPreemptionArgs>(pc[0].args), (DefaultPreemptionArgs{20, 50}));
  EXPECT_EQ(std::get<InterPodAffinityArgs>(pc[1].args), (InterPodAffinityArgs{5, true}));
  const auto& spread = std::get<PodTopologySpreadArgs>(pc[2].args);
  EXPECT_EQ(spread.defaulting_type, "List");
  ASSERT_EQ(spread.default_constraints.size(), 1u);
  const api::TopologySpreadConstraint& c = spread.default_constraints[0];
  EXPECT_EQ(c.max_skew, 2);
  EXPECT_EQ(c.topology_key, "zone");
  EXPECT_EQ(c.when_unsatisfiable, "ScheduleAnyway");
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.node_affinity_policy, "Honor");
  EXPECT_EQ(c.node_taints_policy, "Ignore");
  EXPECT_EQ(c.match_label_keys, std::vector<std::string>{"app"});
  ASSERT_TRUE(c.label_selector.has_value());
  EXPECT_EQ(*c.label_selector->match_labels.Get("a"), "b");
  EXPECT_EQ(c.label_selector->match_expressions.at(0).values, std::vector<std::string>{"v"});
  EXPECT_EQ(std::get<NodeResourcesBalancedAllocationArgs>(pc[3].args).resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"example.com/gpu", 0}}));
  const auto& vb = std::get<VolumeBindingArgs>(pc[4].args);
  EXPECT_EQ(vb.bind_timeout_seconds, 300);
  EXPECT_EQ(vb.shape, (std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}}));
  const auto& na = std::get<NodeAffinityArgs>(pc[5].args);
  ASSERT_TRUE(na.added_affinity && na.added_affinity->required);
  const api::NodeSelectorTerm& term = na.added_affinity->required->terms.at(0);
  EXPECT_EQ(term.match_expressions.at(0).values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(term.match_fields.at(0).op, "NotIn");
  EXPECT_EQ(na.added_affinity->preferred.at(0).weight, 10);
  EXPECT_EQ(na.added_affinity->preferred.at(0).preference.match_expressions.at(0).op, "Exists");
  EXPECT_EQ(std::get<DynamicResourcesArgs>(pc[6].args), (DynamicResourcesArgs{5s, 2min}));
}

TEST(LoadTest, JsonInput) {
  const std::string json = R"({
	"apiVersion": "kubescheduler.config.k8s.io/v1",
	"kind": "KubeSchedulerConfiguration",
	"parallelism": 4,
	"leaderElection": {"leaderElect": false, "resourceName": "123"},
	"profiles": [{"schedulerName": "json", "pluginConfig": [{"name": "X", "args": {"z": 1, "a": "1"}}]}]
})";
  StatusOr<KubeSchedulerConfiguration> cfg = ParseConfig(json, "c.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->parallelism, 4);
  EXPECT_EQ(cfg->leader_election.leader_elect, false);
  EXPECT_EQ(cfg->leader_election.resource_name, "123");  // quoted: a string
  EXPECT_EQ(cfg->profiles.at(0).scheduler_name, "json");
  EXPECT_EQ(std::get<RawArgs>(cfg->profiles[0].plugin_config.at(0).args).json,
            R"({"a":"1","z":1})");
}

TEST(LoadTest, JsonIsReadAsJson) {
  const std::string head =
      R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration")";
  struct Case {
    const char* name;
    std::string rest;
    const char* want;  // nullptr: must load
  };
  const std::string long_key(1100, 'k');
  const Case cases[] = {
      {"duplicate field", R"(, "parallelism": 1, "parallelism": 2})",
       "j: parallelism: duplicate field"},
      {"syntax error", R"(, "parallelism": })", "j: invalid JSON: [json.exception.parse_error"},
      {"deep nesting",
       R"(, "profiles": [{"pluginConfig": [{"name": "X", "args": )" + std::string(100000, '[') +
           std::string(100000, ']') + "}]}]}",
       "j: invalid JSON: nested too deeply"},
      {"type error", R"(, "parallelism": "16"})",
       "j: parallelism: expected an integer, got string \"16\""},
      {"keys longer than YAML allows",
       R"(, "profiles": [{"pluginConfig": [{"name": "X", "args": {")" + long_key + R"(": 1}}]}]})",
       nullptr},
      {"YAML 1.1 words are plain strings in JSON", R"(, "leaderElection": {"resourceName": "y"}})",
       nullptr},
  };
  for (const Case& c : cases) {
    StatusOr<KubeSchedulerConfiguration> cfg = ParseConfig(head + c.rest, "j");
    if (c.want == nullptr) {
      EXPECT_TRUE(cfg.ok()) << c.name << ": " << cfg.status();
      continue;
    }
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_THAT(std::string(cfg.status().message()), HasSubstr(c.want)) << c.name;
  }
}

TEST(LoadTest, TypeMetaErrors) {
  struct Case {
    const char* name;
    std::string text;
    const char* want;
  };
  const Case cases[] = {
      {"v1beta3 is gone",
       "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       "t: apiVersion \"kubescheduler.config.k8s.io/v1beta3\" is no longer served"},
      {"other group", "apiVersion: v1\nkind: KubeSchedulerConfiguration\n",
       "t: apiVersion \"v1\" is not kubescheduler.config.k8s.io/v1"},
      {"wrong kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
       "t: kind \"Pod\" is not KubeSchedulerConfiguration"},
      {"no kind", "apiVersion: kubescheduler.config.k8s.io/v1\n", "t: kind is missing"},
      {"no apiVersion", "kind: KubeSchedulerConfiguration\n", "t: apiVersion is missing"},
      {"empty", "", "t: empty document"},
      {"not a map", "- a\n- b\n", "t: not a KubeSchedulerConfiguration"},
      {"bad yaml", "a: [1, 2\n", "t: invalid YAML: yaml-cpp: error at line"},
  };
  for (const Case& c : cases) {
    StatusOr<KubeSchedulerConfiguration> cfg = ParseConfig(c.text, "t");
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_EQ(cfg.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(cfg.status().message()), HasSubstr(c.want)) << c.name;
  }
}

TEST(LoadTest, StrictDecodingErrorsNameTheirPath) {
  struct Case {
    const char* name;
    std::string body;
    const char* want;
  };
  const Case cases[] = {
      {"unknown top-level field", "paralelism: 3\n", "test.yaml: paralelism: unknown field"},
      {"unknown field deep in plugins",
       "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: A\n      - name: B\n"
       "        wieght: 2\n",
       "profiles[0].plugins.score.enabled[1].wieght: unknown field"},
      {"field names are case-sensitive", "leaderElection:\n  LeaderElect: true\n",
       "leaderElection.LeaderElect: unknown field"},
      {"unknown extension point", "profiles:\n- plugins:\n    filters: {}\n",
       "profiles[0].plugins.filters: unknown field"},
      {"unknown field in typed args",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
       "      scoringStrategy:\n        resources:\n        - Name: cpu\n",
       "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].Name: unknown field"},
      {"unknown field in core/v1 types",
       "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n"
       "      defaultConstraints:\n      - maxSkew: 1\n        topologykey: zone\n",
       "profiles[0].pluginConfig[0].args.defaultConstraints[0].topologykey: unknown field"},
      {"duplicate top-level field", "parallelism: 3\nparallelism: 4\n",
       "parallelism: duplicate field"},
      {"duplicate nested field", "clientConnection:\n  qps: 1\n  burst: 2\n  qps: 3\n",
       "clientConnection.qps: duplicate field"},
      {"duplicate in raw args",
       "profiles:\n- pluginConfig:\n  - name: X\n    args:\n      a: 1\n      a: 2\n",
       "profiles[0].pluginConfig[0].args.a: duplicate field"},
      {"removed field", "healthzBindAddress: 0.0.0.0:10251\n",
       "healthzBindAddress: unknown field (removed from kubescheduler.config.k8s.io/v1"},
      {"string for int", "parallelism: abc\n",
       "parallelism: expected an integer, got string \"abc\""},
      {"quoted number is a string", "parallelism: \"16\"\n",
       "parallelism: expected an integer, got string \"16\""},
      {"float for int", "parallelism: 1.5\n", "parallelism: expected an integer, got number 1.5"},
      {"int32 overflow", "parallelism: 3000000000\n",
       "parallelism: value 3000000000 overflows int32"},
      {"number for string", "profiles:\n- schedulerName: 123\n",
       "profiles[0].schedulerName: expected a string, got number 123"},
      {"yaml 1.1 bool for string", "leaderElection:\n  resourceLock: on\n",
       "leaderElection.resourceLock: expected a string, got bool true"},
      {"string for bool", "delayCacheUntilActive: maybe\n",
       "delayCacheUntilActive: expected a bool, got string \"maybe\""},
      {"map for list", "profiles: {a: b}\n", "profiles: expected a list, got a map"},
      {"list for map", "leaderElection: [1]\n", "leaderElection: expected a map, got a list"},
      {"number for duration", "leaderElection:\n  leaseDuration: 15\n",
       "leaderElection.leaseDuration: expected a duration string, got number 15"},
      {"bad duration", "leaderElection:\n  leaseDuration: 15x\n",
       "leaderElection.leaseDuration: time: unknown unit \"x\" in duration \"15x\""},
      {"bad base64", "extenders:\n- urlPrefix: x\n  tlsConfig:\n    caData: '!!!'\n",
       "extenders[0].tlsConfig.caData: invalid base64"},
      {"args kind mismatch",
       "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n"
       "      kind: InterPodAffinityArgs\n",
       "profiles[0].pluginConfig[0].args.kind: args for plugin DefaultPreemption were not of "
       "type DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
       "InterPodAffinityArgs.kubescheduler.config.k8s.io"},
      {"args apiVersion mismatch",
       "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n"
       "      apiVersion: kubescheduler.config.k8s.io/v1beta3\n",
       "profiles[0].pluginConfig[0].args.apiVersion: args for plugin VolumeBinding must be "
       "kubescheduler.config.k8s.io/v1"},
      {"typed args not a map",
       "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args: [1]\n",
       "profiles[0].pluginConfig[0].args: args for plugin VolumeBinding must be a map"},
      {"non-finite raw float", "profiles:\n- pluginConfig:\n  - name: X\n    args: {a: .inf}\n",
       "profiles[0].pluginConfig[0].args.a: value .inf cannot be represented in JSON"},
  };
  for (const Case& c : cases) {
    StatusOr<KubeSchedulerConfiguration> cfg = Parse(c.body);
    ASSERT_FALSE(cfg.ok()) << c.name;
    EXPECT_EQ(cfg.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(cfg.status().message()), HasSubstr(c.want)) << c.name;
  }
}

TEST(LoadTest, ReportsEveryError) {
  StatusOr<KubeSchedulerConfiguration> cfg = Parse("foo: 1\nparallelism: x\nprofiles:\n- bar: 2\n");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(),
            "test.yaml: foo: unknown field; parallelism: expected an integer, got string \"x\"; "
            "profiles[0].bar: unknown field");
}

TEST(LoadTest, NullLeavesFieldsUnset) {
  const KubeSchedulerConfiguration cfg = MustParse(
      "parallelism: null\nprofiles:\n- schedulerName: ~\n  plugins:\n"
      "extenders:\nleaderElection:\n  leaderElect:\n");
  EXPECT_FALSE(cfg.parallelism.has_value());
  ASSERT_EQ(cfg.profiles.size(), 1u);
  EXPECT_FALSE(cfg.profiles[0].scheduler_name.has_value());
  EXPECT_FALSE(cfg.profiles[0].plugins.has_value());
  EXPECT_FALSE(cfg.leader_election.leader_elect.has_value());
}

TEST(LoadTest, YamlScalarRules) {
  const KubeSchedulerConfiguration cfg = MustParse(
      "parallelism: 0x10\npodMaxBackoffSeconds: 1_000\npodInitialBackoffSeconds: 1e1\n"
      "clientConnection:\n  qps: 7\n  contentType: !!str 123\n");
  EXPECT_EQ(cfg.parallelism, 16);
  EXPECT_EQ(cfg.pod_max_backoff_seconds, 1000);
  EXPECT_EQ(cfg.pod_initial_backoff_seconds, 10);  // an integral float decodes as an integer
  EXPECT_EQ(cfg.client_connection.qps, 7.0f);
  EXPECT_EQ(cfg.client_connection.content_type, "123");
}

TEST(LoadTest, DeepNestingIsAnErrorNotACrash) {
  // Past yaml-cpp's own depth limit.
  const std::string flow = std::string(100000, '[') + std::string(100000, ']');
  StatusOr<KubeSchedulerConfiguration> cfg =
      Parse("profiles:\n- pluginConfig:\n  - name: X\n    args: " + flow + "\n");
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()), HasSubstr("test.yaml: nested too deeply"));

  std::string block = "profiles:\n";
  for (int i = 0; i < 1500; ++i) block += std::string(i + 1, ' ') + "a:\n";
  cfg = Parse(block);
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()), HasSubstr("nested too deeply"));

  // Within yaml-cpp's limit but deeper than raw args may go.
  const std::string args = std::string(150, '[') + std::string(150, ']');
  cfg = Parse("profiles:\n- pluginConfig:\n  - name: X\n    args: " + args + "\n");
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()), HasSubstr("nested deeper than 100 levels"));
}

TEST(LoadTest, OversizedInputIsRejected) {
  const std::string big = std::string(kHeader) + "# " + std::string(kMaxConfigBytes, 'x') + "\n";
  StatusOr<KubeSchedulerConfiguration> cfg = ParseConfig(big, "big.yaml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()), HasSubstr("big.yaml: larger than 4194304"));
}

// Found by the config fuzzer: yaml-cpp kept the bytes, and /configz's JSON then changed them.
TEST(LoadTest, InvalidUtf8IsRefusedAsUpstreamDoes) {
  StatusOr<KubeSchedulerConfiguration> cfg =
      Parse("clientConnection:\n  kubeconfig: /etc/k\xcd\\conf\n");
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()),
              HasSubstr("test.yaml: invalid YAML: line 4: invalid UTF-8"));
  EXPECT_TRUE(Parse("profiles:\n- schedulerName: \"ordonnanceur-\u00e9t\u00e9\"\n").ok());
}

TEST(LoadTest, AliasBombIsBounded) {
  // Each level multiplies the tree by ten: 10^9 values if expanded.
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 8; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 0; j < 9; ++j) yaml += ", " + prev;
    yaml += "]\n";
  }
  StatusOr<KubeSchedulerConfiguration> cfg =
      Parse("profiles:\n- pluginConfig:\n  - name: X\n    args:\n" + [&] {
        std::string indented;
        size_t start = 0;
        while (start < yaml.size()) {
          const size_t end = yaml.find('\n', start);
          indented += "      " + yaml.substr(start, end - start + 1);
          start = end + 1;
        }
        return indented;
      }());
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(std::string(cfg.status().message()), HasSubstr("document too large"));
}

TEST(LoadTest, LoadConfigFile) {
  StatusOr<KubeSchedulerConfiguration> missing = LoadConfigFile("/nonexistent/stowage.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);

  const std::string path = ::testing::TempDir() + "/stowage_config_load_test.yaml";
  {
    FILE* f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string text = std::string(kHeader) + "parallelism: 3\nbogus: 1\n";
    fwrite(text.data(), 1, text.size(), f);
    fclose(f);
  }
  StatusOr<KubeSchedulerConfiguration> cfg = LoadConfigFile(path);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), path + ": bogus: unknown field");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stowage::config::load_test
