// Building profiles from configurations: plugins that gates add to 1.37's default profile but that
// stowage does not implement yet leave the profile with a warning naming them, instead of
// failing start-up.
#include "pkg/scheduler/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/plugins/registry.h"
#include "tests/testing/fake_handle.h"

namespace stowage::scheduler {
namespace {

using ::testing::HasSubstr;

StatusOr<BuiltProfiles> BuildDefault(const config::Features& features) {
  config::KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back();
  config::SetDefaults(cfg, features);
  static testing::FakeHandle handle;
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
  ASSERT_EQ(built->warnings.size(), 1u);
  EXPECT_THAT(built->warnings[0], ::testing::Not(HasSubstr("DeferredPodScheduling")));
}

}  // namespace
}  // namespace stowage::scheduler
