#include "tests/testing/running_scheduler.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/setup.h"
#include "tests/testing/cluster.h"

namespace stowage::testing {

std::string ProfilesConfig(const std::vector<std::string>& scheduler_names) {
  std::string y =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\nprofiles:\n";
  for (const auto& n : scheduler_names) y += "- schedulerName: " + n + "\n";
  return y;
}

RunningScheduler::RunningScheduler(const std::string& config_yaml, std::string instance,
                                   RunningSchedulerSetup setup) {
  auto cfg = config::ParseConfig(config_yaml, "test config");
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  if (!cfg.ok()) return;
  config::SetDefaults(*cfg);
  Status valid = config::Validate(*cfg);
  EXPECT_TRUE(valid.ok()) << valid;
  client::RestConfig rc = SharedCluster().AdminConfig();
  rc.qps = 5000;
  rc.burst = 5000;
  client_ = std::move(*client::RestClient::New(rc));
  informers_ = std::make_unique<informer::InformerFactory>(*client_, "kube-scheduler");
  scheduler::Options opts = std::move(setup.options);
  opts.instance = std::move(instance);
  registry_ = plugins::NewInTreeRegistry();
  if (setup.add_plugins) setup.add_plugins(registry_);
  auto built = scheduler::New({.client = *client_,
                               .informers = *informers_,
                               .cfg = *cfg,
                               .registry = registry_,
                               .not_yet_implemented = plugins::NotYetImplemented(),
                               .options = std::move(opts)});
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return;
  sched_ = std::move(built->scheduler);
  warnings_ = std::move(built->warnings);
  informers_->Start();
  EXPECT_TRUE(informers_->WaitForCacheSync(std::chrono::seconds(60)));
  loop_ = std::jthread([this](std::stop_token stop) { sched_->Run(stop); });
}

RunningScheduler::~RunningScheduler() {
  if (loop_.joinable()) {
    loop_.request_stop();
    loop_.join();
  }
  if (informers_) informers_->Stop();
}

}  // namespace stowage::testing
