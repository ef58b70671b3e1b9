// scheduler::New, the construction the binary and the integration tests share: every profile of
// the configuration gets a framework (pods of each scheduler name are bound), plugins stowage
// lacks are dropped with a warning, and a plugin the registry does not know fails the
// construction with the profile named.
#include "pkg/scheduler/setup.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/plugins/registry.h"
#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::setup_test {
namespace {

using testing::BindingPath;
using testing::Eventually;
using testing::PodJson;
using testing::SchedulerHarness;

config::KubeSchedulerConfiguration Config(const std::string& yaml) {
  auto cfg = config::ParseConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + yaml,
      "test");
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  config::SetDefaults(*cfg);
  return *cfg;
}

TEST(SetupTest, EveryProfileSchedulesItsPods) {
  SchedulerHarness h;
  auto cfg = Config("profiles:\n- schedulerName: default-scheduler\n- schedulerName: second\n");
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto built = New({.client = h.client(),
                    .informers = h.informers(),
                    .cfg = cfg,
                    .registry = registry,
                    .not_yet_implemented = plugins::NotYetImplemented(),
                    .options = {}});
  ASSERT_TRUE(built.ok()) << built.status();
  h.Run({PodJson("first", "u1"), PodJson("other", "u2", 1, "second"),
         PodJson("nobody", "u3", 1, "unknown")},
        std::move(built->scheduler));
  EXPECT_TRUE(Eventually([&] { return !h.api().Requests("POST", BindingPath("first")).empty(); }));
  EXPECT_TRUE(Eventually([&] { return !h.api().Requests("POST", BindingPath("other")).empty(); }));
  EXPECT_TRUE(h.api().Requests("POST", BindingPath("nobody")).empty());
}

TEST(SetupTest, PluginsNotImplementedAreDroppedWithAWarning) {
  SchedulerHarness h;
  auto cfg = Config("profiles:\n- schedulerName: default-scheduler\n");
  framework::Registry registry = plugins::NewInTreeRegistry();
  // As if stowage lacked ImageLocality too.
  std::vector<std::string_view> missing = plugins::NotYetImplemented();
  missing.push_back("ImageLocality");
  auto built = New({.client = h.client(),
                    .informers = h.informers(),
                    .cfg = cfg,
                    .registry = registry,
                    .not_yet_implemented = missing,
                    .options = {}});
  ASSERT_TRUE(built.ok()) << built.status();
  ASSERT_EQ(built->warnings.size(), 1u);
  EXPECT_NE(built->warnings[0].find("ImageLocality"), std::string::npos) << built->warnings[0];
}

TEST(SetupTest, UnknownPluginFailsNamingTheProfile) {
  SchedulerHarness h;
  auto cfg = Config(
      "profiles:\n- schedulerName: custom\n  plugins:\n    filter:\n      enabled:\n"
      "      - name: NoSuchPlugin\n");
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto built = New({.client = h.client(),
                    .informers = h.informers(),
                    .cfg = cfg,
                    .registry = registry,
                    .not_yet_implemented = plugins::NotYetImplemented(),
                    .options = {}});
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.status().message().find("custom"), std::string::npos) << built.status();
}

}  // namespace
}  // namespace stowage::scheduler::setup_test
