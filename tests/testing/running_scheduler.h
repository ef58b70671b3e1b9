// RunningScheduler: a stowage scheduler running in the test process against the shared test
// cluster, built from a KubeSchedulerConfiguration text with the in-tree registry, its informers
// synced and its loop started; the destructor stops it. For integration tests that look at the
// scheduler's decisions, events or metrics without starting the binary. Not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/scheduler.h"
#include "stowage/framework/registry.h"

namespace stowage::testing {

// The configuration of one profile per name, leader election off.
std::string ProfilesConfig(const std::vector<std::string>& scheduler_names);

// What a test may change beyond the configuration: the scheduler's options and plugins added to
// the in-tree registry (out-of-tree plugins, as a user would register them).
struct RunningSchedulerSetup {
  scheduler::Options options;
  std::function<void(framework::Registry&)> add_plugins;
};

class RunningScheduler {
 public:
  // Fails the current test (and leaves the scheduler stopped) if the configuration is invalid.
  explicit RunningScheduler(const std::string& config_yaml = ProfilesConfig({"default-scheduler"}),
                            std::string instance = "test", RunningSchedulerSetup setup = {});
  ~RunningScheduler();
  RunningScheduler(const RunningScheduler&) = delete;
  RunningScheduler& operator=(const RunningScheduler&) = delete;

  // The warnings of scheduler::New (plugins not implemented yet).
  const std::vector<std::string>& warnings() const { return warnings_; }
  const scheduler::Scheduler& scheduler() const { return *sched_; }

 private:
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<informer::InformerFactory> informers_;
  framework::Registry registry_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::vector<std::string> warnings_;
  std::jthread loop_;
};

}  // namespace stowage::testing
