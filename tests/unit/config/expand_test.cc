// Expansion of a profile's plugins into per-extension-point lists, as upstream's framework
// (updatePluginList, expandMultiPointPlugins, getValidScoreWeights) builds them.
#include "pkg/config/expand.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/config/defaults.h"
#include "tests/unit/config/in_tree_plugins.h"

namespace stowage::config::expand_test {
namespace {

using E = ExtensionPoint;
using Names = std::vector<std::string>;

// In-tree plugins plus a few custom ones.
bool Implements(std::string_view plugin, ExtensionPoint point) {
  static const std::map<std::string, std::set<E>, std::less<>> kCustom = {
      {"MyPlugin", {E::kFilter, E::kScore}},
      {"MyScore", {E::kScore}},
      {"MyQueueSort", {E::kQueueSort}},
      {"MyBinder", {E::kBind}},
  };
  if (auto it = kCustom.find(plugin); it != kCustom.end()) return it->second.count(point) != 0;
  return testing::InTreeImplements(plugin, point);
}

bool Exists(std::string_view plugin) {
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (Implements(plugin, p)) return true;
  }
  return false;
}

// A defaulted single profile with the given customisation.
KubeSchedulerProfile Profile(const std::function<void(Plugins&)>& customise = nullptr) {
  KubeSchedulerConfiguration cfg;
  KubeSchedulerProfile& p = cfg.profiles.emplace_back();
  if (customise) {
    p.plugins = Plugins{};
    customise(*p.plugins);
  }
  SetDefaults(cfg);
  return cfg.profiles[0];
}

ExpandedPlugins MustExpand(const KubeSchedulerProfile& profile) {
  StatusOr<ExpandedPlugins> got = ExpandPlugins(profile, Implements, Exists);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? *got : ExpandedPlugins{};
}

std::vector<ExpandedPlugin> Weighted(std::initializer_list<std::pair<const char*, int32_t>> l) {
  std::vector<ExpandedPlugin> out;
  for (const auto& [name, w] : l) out.push_back({name, w});
  return out;
}

const std::vector<ExpandedPlugin> kDefaultScore = Weighted({{"TaintToleration", 3},
                                                            {"NodeAffinity", 2},
                                                            {"NodeResourcesFit", 1},
                                                            {"VolumeBinding", 1},
                                                            {"PodTopologySpread", 2},
                                                            {"InterPodAffinity", 2},
                                                            {"DynamicResources", 2},
                                                            {"NodeResourcesBalancedAllocation", 1},
                                                            {"ImageLocality", 1}});

TEST(ExpandTest, DefaultProfile) {
  const ExpandedPlugins got = MustExpand(Profile());
  EXPECT_EQ(got.Names(E::kPreEnqueue),
            (Names{"SchedulingGates", "DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(got.Names(E::kQueueSort), (Names{"PrioritySort"}));
  EXPECT_EQ(got.Names(E::kPreFilter),
            (Names{"NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
                   "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                   "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                   "NodeDeclaredFeatures"}));
  EXPECT_EQ(got.Names(E::kFilter),
            (Names{"NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
                   "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                   "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
                   "NodeDeclaredFeatures"}));
  EXPECT_EQ(got.Names(E::kPostFilter), (Names{"DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(got.Names(E::kPreScore),
            (Names{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                   "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(got.at(E::kScore), kDefaultScore);
  EXPECT_EQ(got.Names(E::kReserve), (Names{"VolumeBinding", "DynamicResources"}));
  EXPECT_EQ(got.Names(E::kPermit), Names{});
  EXPECT_EQ(got.Names(E::kPreBind), (Names{"VolumeBinding", "DynamicResources"}));
  EXPECT_EQ(got.Names(E::kBind), (Names{"DefaultBinder"}));
  EXPECT_EQ(got.Names(E::kPostBind), Names{});
  EXPECT_EQ(got.Names(E::kPlacementGenerate), Names{});
  // NodeResourcesFit implements PlacementScore and is a MultiPoint default.
  EXPECT_EQ(got.at(E::kPlacementScore), Weighted({{"NodeResourcesFit", 1}}));
  // New in 1.37: the PodGroup's PostFilter, in MultiPoint order.
  EXPECT_EQ(got.Names(E::kPodGroupPostFilter), (Names{"DynamicResources", "DefaultPreemption"}));
}

TEST(ExpandTest, Cases) {
  struct Case {
    const char* name;
    std::function<void(Plugins&)> customise;
    ExtensionPoint point;
    std::vector<ExpandedPlugin> want;
  };
  const Case cases[] = {
      {"disable all at a point, re-enable one",
       [](Plugins& p) {
         p.filter.disabled = {{"*", std::nullopt}};
         p.filter.enabled = {{"NodeName", std::nullopt}};
       },
       E::kFilter, Weighted({{"NodeName", 0}})},
      {"disable all at a point, enable in a new order",
       [](Plugins& p) {
         p.score.disabled = {{"*", std::nullopt}};
         p.score.enabled = {{"ImageLocality", 5}, {"TaintToleration", std::nullopt}};
       },
       E::kScore, Weighted({{"ImageLocality", 5}, {"TaintToleration", 1}})},
      {"disable one MultiPoint plugin at one point",
       [](Plugins& p) {
         p.score.disabled = {{"ImageLocality", std::nullopt}};
       },
       E::kScore, std::vector<ExpandedPlugin>(kDefaultScore.begin(), kDefaultScore.end() - 1)},
      {"a point's weight overrides MultiPoint's and moves the plugin first",
       [](Plugins& p) {
         p.score.enabled = {{"NodeResourcesBalancedAllocation", 5}};
       },
       E::kScore,
       Weighted({{"NodeResourcesBalancedAllocation", 5},
                 {"TaintToleration", 3},
                 {"NodeAffinity", 2},
                 {"NodeResourcesFit", 1},
                 {"VolumeBinding", 1},
                 {"PodTopologySpread", 2},
                 {"InterPodAffinity", 2},
                 {"DynamicResources", 2},
                 {"ImageLocality", 1}})},
      {"a MultiPoint weight override keeps the position",
       [](Plugins& p) {
         p.multi_point.enabled = {{"NodeAffinity", 7}};
       },
       E::kScore,
       Weighted({{"TaintToleration", 3},
                 {"NodeAffinity", 7},
                 {"NodeResourcesFit", 1},
                 {"VolumeBinding", 1},
                 {"PodTopologySpread", 2},
                 {"InterPodAffinity", 2},
                 {"DynamicResources", 2},
                 {"NodeResourcesBalancedAllocation", 1},
                 {"ImageLocality", 1}})},
      {"a weight of 0 means 1",
       [](Plugins& p) {
         p.multi_point.enabled = {{"TaintToleration", 0}};
       },
       E::kScore,
       [] {
         std::vector<ExpandedPlugin> w = kDefaultScore;
         w[0].weight = 1;
         return w;
       }()},
      {"custom MultiPoint plugin is appended where it applies",
       [](Plugins& p) {
         p.multi_point.enabled = {{"MyPlugin", 4}};
       },
       E::kScore,
       [] {
         std::vector<ExpandedPlugin> w = kDefaultScore;
         w.push_back({"MyPlugin", 4});
         return w;
       }()},
      {"custom plugin at one point comes after MultiPoint plugins",
       [](Plugins& p) {
         p.score.enabled = {{"MyScore", std::nullopt}};
       },
       E::kScore,
       [] {
         std::vector<ExpandedPlugin> w = kDefaultScore;
         w.push_back({"MyScore", 1});
         return w;
       }()},
      {"disabling a plugin in MultiPoint removes it everywhere",
       [](Plugins& p) {
         p.multi_point.disabled = {{"NodeAffinity", std::nullopt}};
       },
       E::kPreFilter,
       Weighted({{"NodeName", 0},
                 {"NodeUnschedulable", 0},
                 {"TaintToleration", 0},
                 {"NodePorts", 0},
                 {"NodeResourcesFit", 0},
                 {"VolumeRestrictions", 0},
                 {"NodeVolumeLimits", 0},
                 {"VolumeBinding", 0},
                 {"VolumeZone", 0},
                 {"PodTopologySpread", 0},
                 {"InterPodAffinity", 0},
                 {"DynamicResources", 0},
                 {"NodeDeclaredFeatures", 0}})},
      {"replace the queue sort",
       [](Plugins& p) {
         p.queue_sort.disabled = {{"*", std::nullopt}};
         p.queue_sort.enabled = {{"MyQueueSort", std::nullopt}};
       },
       E::kQueueSort, Weighted({{"MyQueueSort", 0}})},
      {"podGroupPostFilter: an explicit entry moves the plugin first",
       [](Plugins& p) {
         p.pod_group_post_filter.enabled = {{"DefaultPreemption", std::nullopt}};
       },
       E::kPodGroupPostFilter, Weighted({{"DefaultPreemption", 0}, {"DynamicResources", 0}})},
      {"podGroupPostFilter: a disabled plugin is left out there only",
       [](Plugins& p) {
         p.pod_group_post_filter.disabled = {{"DynamicResources", std::nullopt}};
       },
       E::kPodGroupPostFilter, Weighted({{"DefaultPreemption", 0}})},
      {"bind plugin appended to the default binder",
       [](Plugins& p) {
         p.bind.enabled = {{"MyBinder", std::nullopt}};
       },
       E::kBind, Weighted({{"DefaultBinder", 0}, {"MyBinder", 0}})},
  };
  for (const Case& c : cases) {
    StatusOr<ExpandedPlugins> got = ExpandPlugins(Profile(c.customise), Implements, Exists);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
    EXPECT_EQ(got->at(c.point), c.want) << c.name;
  }
}

TEST(ExpandTest, Errors) {
  struct Case {
    const char* name;
    std::function<void(Plugins&)> customise;
    const char* want;
  };
  const Case cases[] = {
      {"unknown plugin at a point",
       [](Plugins& p) {
         p.filter.enabled = {{"Nope", std::nullopt}};
       },
       "FilterPlugin \"Nope\" does not exist"},
      {"unknown MultiPoint plugin",
       [](Plugins& p) {
         p.multi_point.enabled = {{"Nope", std::nullopt}};
       },
       "PreFilterPlugin \"Nope\" does not exist"},
      {"plugin at a point it does not implement",
       [](Plugins& p) {
         p.filter.enabled = {{"ImageLocality", std::nullopt}};
       },
       "plugin \"ImageLocality\" does not extend FilterPlugin plugin"},
      {"plugin at podGroupPostFilter it does not implement",
       [](Plugins& p) {
         p.pod_group_post_filter.enabled = {{"NodeName", std::nullopt}};
       },
       "plugin \"NodeName\" does not extend PodGroupPostFilterPlugin plugin"},
      {"twice at one point",
       [](Plugins& p) {
         p.score.enabled = {{"MyScore", std::nullopt}, {"MyScore", 2}};
       },
       "plugin \"MyScore\" already registered as \"ScorePlugin\""},
      {"twice in MultiPoint",
       [](Plugins& p) {
         p.multi_point.enabled = {{"MyPlugin", std::nullopt}, {"MyPlugin", 2}};
       },
       "plugin \"MyPlugin\" already registered as \"FilterPlugin\""},
      {"no queue sort",
       [](Plugins& p) {
         p.multi_point.disabled = {{"PrioritySort", std::nullopt}};
       },
       "only one queue sort plugin required for profile with scheduler name "
       "\"default-scheduler\", but got 0"},
      {"two queue sorts",
       [](Plugins& p) {
         p.queue_sort.enabled = {{"MyQueueSort", std::nullopt}};
       },
       "only one queue sort plugin required for profile with scheduler name "
       "\"default-scheduler\", but got 2"},
      {"no binder",
       [](Plugins& p) {
         p.bind.disabled = {{"*", std::nullopt}};
       },
       "at least one bind plugin is needed for profile with scheduler name \"default-scheduler\""},
      {"negative weight trips upstream's wrapping overflow check",
       [](Plugins& p) {
         p.score.disabled = {{"*", std::nullopt}};
         p.score.enabled = {{"ImageLocality", -1}, {"TaintToleration", 1}};
       },
       "score plugins: total score of Score plugins could overflow"},
  };
  for (const Case& c : cases) {
    StatusOr<ExpandedPlugins> got = ExpandPlugins(Profile(c.customise), Implements, Exists);
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_EQ(got.status().message(), c.want) << c.name;
  }
}

TEST(ExpandTest, WithoutExistsCheckUnknownNamesAreSkippedAtPointsTheyDoNotImplement) {
  KubeSchedulerProfile p = Profile([](Plugins& x) { x.multi_point.enabled = {{"Ghost", 1}}; });
  StatusOr<ExpandedPlugins> got = ExpandPlugins(p, Implements);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->at(E::kScore), kDefaultScore);
}

TEST(ExpandTest, RepeatedPluginConfig) {
  KubeSchedulerProfile p = Profile();
  p.plugin_config.push_back(p.plugin_config[0]);
  StatusOr<ExpandedPlugins> got = ExpandPlugins(p, Implements, Exists);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "repeated config for plugin DefaultPreemption");
}

TEST(ExpandTest, CompletedProfileKeepsArgsOfBuiltPluginsSortedByName) {
  KubeSchedulerProfile p = Profile([](Plugins& x) {
    x.multi_point.disabled = {{"VolumeBinding", std::nullopt}};
    x.filter.enabled = {{"MyPlugin", std::nullopt}};
  });
  p.plugin_config.insert(p.plugin_config.begin(), PluginConfig{"MyPlugin", RawArgs{"{}"}});
  p.plugin_config.push_back({"Unregistered", RawArgs{"{}"}});
  p.plugin_config.push_back({"NotEnabledAnywhere", RawArgs{"{}"}});
  p.plugin_config.push_back({"MyScore", std::monostate{}});
  auto registered = [](std::string_view name) { return name != "Unregistered" && Exists(name); };
  const KubeSchedulerProfile done = CompletedProfile(p, registered);
  std::vector<std::string> names;
  for (const PluginConfig& pc : done.plugin_config) names.push_back(pc.name);
  EXPECT_EQ(names, (Names{"DefaultPreemption", "DynamicResources", "InterPodAffinity", "MyPlugin",
                          "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit",
                          "PodTopologySpread"}));
  EXPECT_EQ(done.plugins, p.plugins);
  EXPECT_EQ(done.scheduler_name, p.scheduler_name);
}

TEST(ExpandTest, ProfileWithoutPluginsExpandsToNothing) {
  KubeSchedulerProfile p;
  StatusOr<ExpandedPlugins> got = ExpandPlugins(p, Implements, Exists);
  ASSERT_TRUE(got.ok());
  for (ExtensionPoint point : kAllExtensionPoints) EXPECT_TRUE(got->at(point).empty());
}

}  // namespace
}  // namespace stowage::config::expand_test
