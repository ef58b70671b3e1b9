// Defaulting, checked against upstream's v1 defaults (defaults_test.go, default_plugins_test.go
// at v1.37.2) and the 1.37 default plugin set.
#include "pkg/config/defaults.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace stowage::config::defaults_test {
namespace {

using namespace std::chrono_literals;

// The 1.37 default MultiPoint list: 18 static entries (NodeName now before NodeUnschedulable),
// DynamicResources inserted before DefaultPreemption, NodeDeclaredFeatures appended.
const std::vector<Plugin> kDefaultMultiPoint = {
    {"SchedulingGates", std::nullopt},
    {"PrioritySort", std::nullopt},
    {"NodeName", std::nullopt},
    {"NodeUnschedulable", std::nullopt},
    {"TaintToleration", 3},
    {"NodeAffinity", 2},
    {"NodePorts", std::nullopt},
    {"NodeResourcesFit", 1},
    {"VolumeRestrictions", std::nullopt},
    {"NodeVolumeLimits", std::nullopt},
    {"VolumeBinding", std::nullopt},
    {"VolumeZone", std::nullopt},
    {"PodTopologySpread", 2},
    {"InterPodAffinity", 2},
    {"DynamicResources", 2},
    {"DefaultPreemption", std::nullopt},
    {"NodeResourcesBalancedAllocation", 1},
    {"ImageLocality", 1},
    {"DefaultBinder", std::nullopt},
    {"NodeDeclaredFeatures", std::nullopt},
};

// Upstream's pluginConfigs: one entry per enabled plugin with an args kind, by name.
std::vector<PluginConfig> DefaultPluginConfig() {
  return {
      {"DefaultPreemption", DefaultPreemptionArgs{10, 100}},
      {"DynamicResources", DynamicResourcesArgs{10s, 10min}},
      {"InterPodAffinity", InterPodAffinityArgs{1, false}},
      {"NodeAffinity", NodeAffinityArgs{}},
      {"NodeResourcesBalancedAllocation",
       NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"memory", 1}}}},
      {"NodeResourcesFit",
       NodeResourcesFitArgs{
           {}, {}, ScoringStrategy{"LeastAllocated", {{"cpu", 1}, {"memory", 1}}, {}}}},
      {"PodTopologySpread", PodTopologySpreadArgs{{}, "System"}},
      // StorageCapacityScoring is beta and on in 1.37, so the shape is defaulted.
      {"VolumeBinding",
       VolumeBindingArgs{600, std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}}}},
  };
}

KubeSchedulerConfiguration DefaultedEmpty() {
  KubeSchedulerConfiguration expected;
  expected.parallelism = 16;
  expected.debugging = {true, true};
  expected.leader_election = {true, 15s, 10s, 2s, "leases", "kube-scheduler", "kube-system"};
  expected.client_connection = {"", "", "application/vnd.kubernetes.protobuf", 50, 100};
  expected.percentage_of_nodes_to_score = 0;
  expected.pod_initial_backoff_seconds = 1;
  expected.pod_max_backoff_seconds = 10;
  KubeSchedulerProfile profile;
  profile.scheduler_name = "default-scheduler";
  profile.plugins = Plugins{};
  profile.plugins->multi_point.enabled = kDefaultMultiPoint;
  profile.plugin_config = DefaultPluginConfig();
  expected.profiles = {profile};
  return expected;
}

TEST(DefaultsTest, EmptyConfigMatchesUpstream) {
  KubeSchedulerConfiguration cfg;
  SetDefaults(cfg);
  const KubeSchedulerConfiguration want = DefaultedEmpty();
  // Key fields first, for readable failures; then the whole thing.
  EXPECT_EQ(cfg.parallelism, 16);
  EXPECT_EQ(cfg.leader_election, want.leader_election);
  EXPECT_EQ(cfg.client_connection, want.client_connection);
  EXPECT_EQ(cfg.percentage_of_nodes_to_score, 0);
  ASSERT_EQ(cfg.profiles.size(), 1u);
  ASSERT_TRUE(cfg.profiles[0].plugins.has_value());
  EXPECT_EQ(cfg.profiles[0].plugins->multi_point.enabled.size(), 20u);
  EXPECT_EQ(cfg.profiles[0].plugins->multi_point.enabled, kDefaultMultiPoint);
  EXPECT_EQ(cfg.profiles[0].plugin_config, DefaultPluginConfig());
  EXPECT_EQ(cfg, want);
}

TEST(DefaultsTest, Idempotent) {
  KubeSchedulerConfiguration cfg;
  SetDefaults(cfg);
  KubeSchedulerConfiguration again = cfg;
  SetDefaults(again);
  EXPECT_EQ(again, cfg);
}

TEST(DefaultsTest, ExplicitValuesAreKept) {
  KubeSchedulerConfiguration cfg;
  cfg.parallelism = 4;
  cfg.leader_election.leader_elect = false;
  cfg.leader_election.lease_duration = 60s;
  cfg.leader_election.resource_lock = "endpointsleases";
  cfg.client_connection.qps = 5;
  cfg.client_connection.burst = 7;
  cfg.client_connection.content_type = "application/json";
  cfg.percentage_of_nodes_to_score = 30;
  cfg.pod_initial_backoff_seconds = 3;
  cfg.debugging.enable_profiling = false;
  SetDefaults(cfg);
  EXPECT_EQ(cfg.parallelism, 4);
  EXPECT_EQ(cfg.leader_election.leader_elect, false);
  EXPECT_EQ(cfg.leader_election.lease_duration, 60s);
  EXPECT_EQ(cfg.leader_election.renew_deadline, 10s);
  EXPECT_EQ(cfg.leader_election.resource_lock, "endpointsleases");
  EXPECT_EQ(cfg.client_connection.qps, 5);
  EXPECT_EQ(cfg.client_connection.burst, 7);
  EXPECT_EQ(cfg.client_connection.content_type, "application/json");
  EXPECT_EQ(cfg.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(cfg.pod_initial_backoff_seconds, 3);
  EXPECT_EQ(cfg.pod_max_backoff_seconds, 10);
  // Contention profiling is only defaulted when profiling is on.
  EXPECT_EQ(cfg.debugging.enable_profiling, false);
  EXPECT_FALSE(cfg.debugging.enable_contention_profiling.has_value());
}

TEST(DefaultsTest, SchedulerNameOnlyForALoneProfile) {
  KubeSchedulerConfiguration cfg;
  cfg.profiles.resize(2);
  cfg.profiles[1].scheduler_name = "b";
  SetDefaults(cfg);
  EXPECT_FALSE(cfg.profiles[0].scheduler_name.has_value());
  EXPECT_EQ(cfg.profiles[1].scheduler_name, "b");
  for (const KubeSchedulerProfile& p : cfg.profiles) {
    ASSERT_TRUE(p.plugins.has_value());
    EXPECT_EQ(p.plugins->multi_point.enabled, kDefaultMultiPoint);
    EXPECT_EQ(p.plugin_config.size(), 8u);
  }
}

TEST(DefaultsTest, FeatureGatesShapeTheDefaultPlugins) {
  auto names = [](const Plugins& p) {
    std::vector<std::string> out;
    for (const Plugin& x : p.multi_point.enabled) out.push_back(x.name);
    return out;
  };
  Features no_dra;
  no_dra.dynamic_resource_allocation = false;
  std::vector<std::string> got = names(DefaultPlugins(no_dra));
  EXPECT_EQ(got.size(), 19u);
  EXPECT_EQ(std::count(got.begin(), got.end(), "DynamicResources"), 0);

  Features no_ndf;
  no_ndf.node_declared_features = false;
  got = names(DefaultPlugins(no_ndf));
  EXPECT_EQ(got.size(), 19u);
  EXPECT_EQ(got.back(), "DefaultBinder");

  Features all;
  all.generic_workload = true;
  all.topology_aware_workload_scheduling = true;
  all.in_place_pod_vertical_scaling_scheduler_preemption = true;
  const Plugins p = DefaultPlugins(all);
  ASSERT_EQ(p.multi_point.enabled.size(), 24u);
  // DeferredPodScheduling goes right before NodeResourcesFit (after NodePorts).
  EXPECT_EQ(p.multi_point.enabled[6], (Plugin{"NodePorts", std::nullopt}));
  EXPECT_EQ(p.multi_point.enabled[7], (Plugin{"DeferredPodScheduling", std::nullopt}));
  EXPECT_EQ(p.multi_point.enabled[8], (Plugin{"NodeResourcesFit", 1}));
  EXPECT_EQ(p.multi_point.enabled[20], (Plugin{"NodeDeclaredFeatures", std::nullopt}));
  EXPECT_EQ(p.multi_point.enabled[21], (Plugin{"GangScheduling", std::nullopt}));
  EXPECT_EQ(p.multi_point.enabled[22], (Plugin{"TopologyPlacementGenerator", std::nullopt}));
  EXPECT_EQ(p.multi_point.enabled[23], (Plugin{"PodGroupPodsCount", 1}));
}

TEST(DefaultsTest, GangSchedulingFollowsGenericWorkload) {
  // 1.37 removed the GangScheduling gate; the plugin is a default with GenericWorkload alone.
  Features f;
  EXPECT_FALSE(f.generic_workload);
  f.generic_workload = true;
  const std::vector<Plugin>& list = DefaultPlugins(f).multi_point.enabled;
  EXPECT_EQ(list.back(), (Plugin{"GangScheduling", std::nullopt}));
}

TEST(DefaultsTest, PodGroupPostFilterOnlyPluginsGetNoDefaultArgs) {
  // Upstream's defaulting lists enabled plugins without looking at podGroupPostFilter, so a
  // plugin enabled only there gets no args (kube-scheduler then fails to build it).
  KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back();
  Plugins custom;
  custom.multi_point.disabled = {{"*", std::nullopt}};
  custom.multi_point.enabled = {{"PrioritySort", std::nullopt}, {"DefaultBinder", std::nullopt}};
  custom.pod_group_post_filter.enabled = {{"DynamicResources", std::nullopt}};
  cfg.profiles[0].plugins = custom;
  SetDefaults(cfg);
  EXPECT_EQ(cfg.profiles[0].plugins->pod_group_post_filter.enabled,
            custom.pod_group_post_filter.enabled);
  EXPECT_TRUE(cfg.profiles[0].plugin_config.empty());
}

TEST(DefaultsTest, PodGroupPostFilterIsMerged) {
  Plugins custom;
  custom.pod_group_post_filter.enabled = {{"Custom", std::nullopt}};
  custom.pod_group_post_filter.disabled = {{"DefaultPreemption", std::nullopt}};
  const Plugins merged = MergePlugins(DefaultPlugins(), custom);
  EXPECT_EQ(merged.pod_group_post_filter, custom.pod_group_post_filter);
}

TEST(DefaultsTest, FeatureGatesShapeTheDefaultArgs) {
  Features f;
  EXPECT_TRUE(f.storage_capacity_scoring);  // beta, on in 1.37
  f.dra_scheduler_filter_timeout = false;
  f.dra_device_binding_conditions = false;
  PluginArgs vb = VolumeBindingArgs{};
  SetArgsDefaults(vb, f);
  EXPECT_EQ(std::get<VolumeBindingArgs>(vb),
            (VolumeBindingArgs{600, std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}}}));
  PluginArgs dra = DynamicResourcesArgs{};
  SetArgsDefaults(dra, f);
  EXPECT_EQ(std::get<DynamicResourcesArgs>(dra), (DynamicResourcesArgs{}));
}

TEST(DefaultsTest, ArgsDefaults) {
  struct Case {
    const char* name;
    PluginArgs in;
    PluginArgs want;
  };
  const Case cases[] = {
      {"preemption keeps set values", DefaultPreemptionArgs{50, std::nullopt},
       DefaultPreemptionArgs{50, 100}},
      {"fit: resources without weight get 1",
       NodeResourcesFitArgs{{}, {}, ScoringStrategy{"MostAllocated", {{"cpu", 0}, {"gpu", 3}}, {}}},
       NodeResourcesFitArgs{
           {}, {}, ScoringStrategy{"MostAllocated", {{"cpu", 1}, {"gpu", 3}}, {}}}},
      {"fit: empty strategy gets default resources but keeps its type",
       NodeResourcesFitArgs{{"a"}, {}, ScoringStrategy{"RequestedToCapacityRatio", {}, {}}},
       NodeResourcesFitArgs{
           {"a"},
           {},
           ScoringStrategy{"RequestedToCapacityRatio", {{"cpu", 1}, {"memory", 1}}, {}}}},
      {"balanced: weights 0 become 1", NodeResourcesBalancedAllocationArgs{{{"gpu", 0}}},
       NodeResourcesBalancedAllocationArgs{{{"gpu", 1}}}},
      {"spread: List stays", PodTopologySpreadArgs{{}, "List"}, PodTopologySpreadArgs{{}, "List"}},
      {"raw args untouched", RawArgs{"{\"a\":1}"}, RawArgs{"{\"a\":1}"}},
      {"no args untouched", std::monostate{}, std::monostate{}},
  };
  for (const Case& c : cases) {
    PluginArgs got = c.in;
    SetArgsDefaults(got);
    EXPECT_TRUE(got == c.want) << c.name;
  }
}

TEST(DefaultsTest, PluginConfigDefaultedAndAppended) {
  KubeSchedulerConfiguration cfg;
  KubeSchedulerProfile& p = cfg.profiles.emplace_back();
  p.plugins = Plugins{};
  p.plugins->multi_point.disabled = {{"NodeResourcesBalancedAllocation", std::nullopt}};
  p.plugins->filter.enabled = {{"MyFilter", std::nullopt}};
  p.plugin_config = {
      {"VolumeBinding", VolumeBindingArgs{}},
      {"MyFilter", RawArgs{"{\"x\":true}"}},
  };
  SetDefaults(cfg);
  const std::vector<PluginConfig>& pc = cfg.profiles[0].plugin_config;
  std::vector<std::string> names;
  for (const PluginConfig& c : pc) names.push_back(c.name);
  // Explicit entries keep their place and are defaulted; missing ones follow alphabetically;
  // the disabled plugin gets none.
  EXPECT_EQ(names, (std::vector<std::string>{"VolumeBinding", "MyFilter", "DefaultPreemption",
                                             "DynamicResources", "InterPodAffinity", "NodeAffinity",
                                             "NodeResourcesFit", "PodTopologySpread"}));
  EXPECT_EQ(std::get<VolumeBindingArgs>(pc[0].args).bind_timeout_seconds, 600);
  EXPECT_EQ(std::get<RawArgs>(pc[1].args).json, "{\"x\":true}");
}

TEST(DefaultsTest, MergePluginSet) {
  struct Case {
    const char* name;
    PluginSet defaults;
    PluginSet custom;
    PluginSet want;
  };
  auto P = [](const char* name, std::optional<int32_t> w = std::nullopt) {
    return Plugin{name, w};
  };
  const Case cases[] = {
      {"append custom", {{P("D1"), P("D2")}, {}}, {{P("C")}, {}}, {{P("D1"), P("D2"), P("C")}, {}}},
      {"insert after default by disabling and re-enabling",
       {{P("D1"), P("D2")}, {}},
       {{P("C"), P("D2")}, {P("D2")}},
       {{P("D1"), P("C"), P("D2")}, {P("D2")}}},
      {"insert before all",
       {{P("D1"), P("D2")}, {}},
       {{P("C"), P("D1"), P("D2")}, {P("*")}},
       {{P("C"), P("D1"), P("D2")}, {P("*")}}},
      {"reorder",
       {{P("D1"), P("D2")}, {}},
       {{P("D2"), P("D1")}, {P("*")}},
       {{P("D2"), P("D1")}, {P("*")}}},
      {"override keeps position and takes weight",
       {{P("P1"), P("P2"), P("P3")}, {}},
       {{P("P1", 2), P("P3", 3)}, {}},
       {{P("P1", 2), P("P2"), P("P3", 3)}, {}}},
      {"order of defaults wins over custom order",
       {{P("P1"), P("P2"), P("P3")}, {}},
       {{P("P2", 2), P("P1", 1)}, {}},
       {{P("P1", 1), P("P2", 2), P("P3")}, {}}},
      {"repeated custom plugin: last replaces, earlier appended",
       {{P("P1"), P("P2"), P("P3")}, {}},
       {{P("P1"), P("P2", 2), P("P3"), P("P2", 4)}, {}},
       {{P("P1"), P("P2", 4), P("P3"), P("P2", 2)}, {}}},
      {"disabled weights are dropped, custom before default disabled",
       {{P("D")}, {P("X")}},
       {{}, {P("D", 5)}},
       {{}, {P("D"), P("X")}}},
      {"only disabled", {{P("D")}, {}}, {{}, {P("D")}}, {{}, {P("D")}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MergePluginSet(c.defaults, c.custom), c.want) << c.name;
  }
}

TEST(DefaultsTest, MergePluginsPerPoint) {
  Plugins defaults;
  defaults.multi_point.enabled = {{"D1", std::nullopt}, {"D2", std::nullopt}};
  Plugins custom;
  custom.multi_point.enabled = {{"C1", std::nullopt}, {"C2", std::nullopt}};
  custom.multi_point.disabled = {{"D2", std::nullopt}};
  custom.score.disabled = {{"C2", std::nullopt}};
  const Plugins got = MergePlugins(defaults, custom);
  EXPECT_EQ(
      got.multi_point.enabled,
      (std::vector<Plugin>{{"D1", std::nullopt}, {"C1", std::nullopt}, {"C2", std::nullopt}}));
  EXPECT_EQ(got.multi_point.disabled, (std::vector<Plugin>{{"D2", std::nullopt}}));
  EXPECT_EQ(got.score.disabled, (std::vector<Plugin>{{"C2", std::nullopt}}));
  EXPECT_EQ(MergePlugins(defaults, std::nullopt), defaults);
}

}  // namespace
}  // namespace stowage::config::defaults_test
