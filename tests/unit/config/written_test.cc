// The configuration as --write-config-to writes it: what kube-scheduler's scheduler.New makes of
// the defaulted file (extender timeouts, extender-ignored resources, completed profiles, weights).
#include "pkg/config/written.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "pkg/config/defaults.h"

namespace stowage::config::written_test {
namespace {

using namespace std::chrono_literals;

KubeSchedulerConfiguration WithExtender(std::vector<ExtenderManagedResource> resources) {
  KubeSchedulerConfiguration cfg;
  cfg.profiles.resize(2);
  cfg.profiles[0].scheduler_name = "a";
  cfg.profiles[1].scheduler_name = "b";
  Extender e;
  e.url_prefix = "http://e";
  e.managed_resources = std::move(resources);
  cfg.extenders = {e};
  SetDefaults(cfg);
  return cfg;
}

TEST(WrittenTest, ExtenderTimeoutIsTheOneItRunsWith) {
  KubeSchedulerConfiguration cfg = WithExtender({});
  cfg.extenders.push_back(cfg.extenders[0]);
  cfg.extenders[1].http_timeout = 7s;
  StatusOr<KubeSchedulerConfiguration> got = WrittenConfig(cfg);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->extenders[0].http_timeout, 5s);
  EXPECT_EQ(got->extenders[1].http_timeout, 7s);
}

TEST(WrittenTest, ExtenderIgnoredResourcesReplaceFitArgsInEveryProfile) {
  KubeSchedulerConfiguration cfg =
      WithExtender({{"example.com/a", true}, {"example.com/b", false}});
  for (KubeSchedulerProfile& p : cfg.profiles) {
    for (PluginConfig& pc : p.plugin_config) {
      if (pc.name == "NodeResourcesFit") {
        std::get<NodeResourcesFitArgs>(pc.args).ignored_resources = {"mine"};
      }
    }
  }
  StatusOr<KubeSchedulerConfiguration> got = WrittenConfig(cfg);
  ASSERT_TRUE(got.ok()) << got.status();
  for (const KubeSchedulerProfile& p : got->profiles) {
    int fits = 0;
    for (const PluginConfig& pc : p.plugin_config) {
      if (pc.name != "NodeResourcesFit") continue;
      ++fits;
      EXPECT_EQ(std::get<NodeResourcesFitArgs>(pc.args).ignored_resources,
                std::vector<std::string>{"example.com/a"});
    }
    EXPECT_EQ(fits, 1);
  }
}

TEST(WrittenTest, ExtenderIgnoredResourcesNeedFitArgs) {
  KubeSchedulerConfiguration cfg = WithExtender({{"example.com/a", true}});
  std::erase_if(cfg.profiles[1].plugin_config,
                [](const PluginConfig& pc) { return pc.name == "NodeResourcesFit"; });
  StatusOr<KubeSchedulerConfiguration> got = WrittenConfig(cfg);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "couldn't build extenders: can't find NodeResourcesFitArgs in plugin config");
  // Without ignored resources nothing is needed.
  cfg.extenders[0].managed_resources[0].ignored_by_scheduler = false;
  EXPECT_TRUE(WrittenConfig(cfg).ok());
}

TEST(WrittenTest, EveryPluginWeightIsSet) {
  KubeSchedulerConfiguration cfg;
  cfg.profiles.emplace_back().plugins = Plugins{};
  cfg.profiles[0].plugins->post_bind.disabled = {{"*", std::nullopt}};
  SetDefaults(cfg);
  StatusOr<KubeSchedulerConfiguration> got = WrittenConfig(cfg);
  ASSERT_TRUE(got.ok()) << got.status();
  const Plugins& p = *got->profiles[0].plugins;
  EXPECT_EQ(p.multi_point.enabled.front(), (Plugin{"SchedulingGates", 0}));
  EXPECT_EQ(p.multi_point.enabled[4], (Plugin{"TaintToleration", 3}));
  EXPECT_EQ(p.post_bind.disabled, (std::vector<Plugin>{{"*", 0}}));
}

}  // namespace
}  // namespace stowage::config::written_test
