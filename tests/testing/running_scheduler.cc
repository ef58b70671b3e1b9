#include "tests/testing/running_scheduler.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/profile.h"
#include "tests/testing/cluster.h"

namespace stowage::testing {

std::string ProfilesConfig(const std::vector<std::string>& scheduler_names) {
  std::string y = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
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
  sched_ = std::make_unique<scheduler::Scheduler>(*client_, *informers_, opts);
  registry_ = plugins::NewInTreeRegistry();
  if (setup.add_plugins) setup.add_plugins(registry_);
  auto built = scheduler::BuildProfiles(*cfg, registry_, sched_->handle(), plugins::NotYetImplemented());
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return;
  warnings_ = built->warnings;
  Status init = sched_->Init(registry_, built->profiles);
  EXPECT_TRUE(init.ok()) << init;
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
