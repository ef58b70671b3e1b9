// Building profiles from configurations: plugins that gates add to 1.37's default profile but that
// stowage does not implement yet leave the profile with a warning naming them, instead of
// failing start-up; each plugin is built once; NodeResourcesFit's args are checked first.
#include "pkg/scheduler/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/framework/runtime/runtime.h"
#include "pkg/plugins/registry.h"
#include "tests/testing/fake_handle.h"

namespace stowage::scheduler::profile_test {
namespace {

using ::testing::HasSubstr;

StatusOr<BuiltProfiles> BuildDefault(const config::Features& features) {
  config::KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back();
  config::SetDefaults(cfg, features);
  static stowage::testing::FakeHandle handle;
  static const framework::Registry registry = plugins::NewInTreeRegistry();
  return BuildProfiles(cfg, registry, handle, plugins::NotYetImplemented());
}

TEST(BuildProfiles, GatedDefaultPluginsStowageLacksAreDroppedWithAWarning) {
  config::Features f;
  f.generic_workload = true;
  f.topology_aware_workload_scheduling = true;
  f.in_place_pod_vertical_scaling_scheduler_preemption = true;
  auto built = BuildDefault(f);
  ASSERT_TRUE(built.ok()) << built.status();
  ASSERT_EQ(built->warnings.size(), 1u);
  for (const char* name : {"DeferredPodScheduling", "TopologyPlacementGenerator",
                           "PodGroupPodsCount", "GangScheduling"}) {
    EXPECT_THAT(built->warnings[0], HasSubstr(name));
  }
}

TEST(BuildProfiles, DefaultGatesBuildTheDefaultProfile) {
  auto built = BuildDefault({});
  ASSERT_TRUE(built.ok()) << built.status();
  ASSERT_EQ(built->profiles.size(), 1u);
  EXPECT_EQ(built->profiles[0].scheduler_name, "default-scheduler");
  // Every plugin of the default profile is implemented (preemption included): no warning.
  EXPECT_TRUE(built->warnings.empty()) << built->warnings[0];
  std::vector<std::string> post_filter;
  for (const auto& p : built->profiles[0].at(framework::ExtensionPoint::kPostFilter)) {
    post_filter.push_back(p.name);
  }
  EXPECT_THAT(post_filter, ::testing::Contains("DefaultPreemption"));
}

// Each plugin is built once: BuildProfiles builds it to learn its points, and the framework
// takes that instance over instead of calling the factory again.
TEST(BuildProfiles, EachPluginIsBuiltOnce) {
  std::map<std::string, int> calls;
  const framework::Registry in_tree = plugins::NewInTreeRegistry();
  framework::Registry counted;
  for (const auto& [name, factory] : in_tree.factories()) {
    ASSERT_TRUE(counted
                    .Register(name,
                              [&calls, name = name, factory = factory](
                                  const framework::PluginArgs& args, framework::Handle& handle,
                                  const framework::Features& features) {
                                ++calls[name];
                                return factory(args, handle, features);
                              })
                    .ok());
  }
  config::KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back();
  config::SetDefaults(cfg);
  stowage::testing::FakeHandle handle;
  auto built = BuildProfiles(cfg, counted, handle, plugins::NotYetImplemented());
  ASSERT_TRUE(built.ok()) << built.status();
  auto fw = framework::Framework::New(counted, built->profiles.at(0), handle);
  ASSERT_TRUE(fw.ok()) << fw.status();
  EXPECT_GE(calls.size(), 10u);
  for (const auto& [name, n] : calls) EXPECT_EQ(n, 1) << name;
}

// NodeResourcesFit's args are checked where upstream's NewFit checks them (configuration
// validation skips them), with the constructor's message under the profile and plugin.
TEST(BuildProfiles, FitArgsAreValidatedBeforeThePluginIsBuilt) {
  config::KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back();
  config::NodeResourcesFitArgs fit;
  fit.scoring_strategy = config::ScoringStrategy{"LeastAllocated", {{"cpu", 101}}, {}};
  cfg.profiles[0].plugin_config.push_back({"NodeResourcesFit", fit});
  config::SetDefaults(cfg);
  stowage::testing::FakeHandle handle;
  auto built =
      BuildProfiles(cfg, plugins::NewInTreeRegistry(), handle, plugins::NotYetImplemented());
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().message(),
            "profile \"default-scheduler\": initializing plugin \"NodeResourcesFit\": "
            "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not "
            "in valid range (0, 100]");
}

}  // namespace
}  // namespace stowage::scheduler::profile_test
