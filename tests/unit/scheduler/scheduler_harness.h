// SchedulerHarness: a Scheduler over a FakeApiServer that lists one node ("node-a"), with the
// registry's stub "Sort" and "Bind" plugins and the real "DefaultBinder"; Start lists the given
// pods, syncs the informers and runs the loop until the harness is destroyed. For unit tests of
// what the scheduler sends to the API server and keeps in its cache and queue.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/framework/runtime/runtime.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/plugins/default_binder/default_binder.h"
#include "pkg/scheduler/scheduler.h"
#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"
#include "tests/testing/gate.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler::testing {

using json = nlohmann::json;
using stowage::testing::Eventually;
using stowage::testing::FakeApiServer;
using stowage::testing::Gate;

inline constexpr char kPodsPath[] = "/api/v1/pods";

// A pending pod of namespace "ns" as the API server serves it.
inline json PodJson(const std::string& name, const std::string& uid, int64_t generation = 1,
                    const std::string& scheduler = "default-scheduler") {
  return {{"metadata",
           {{"namespace", "ns"},
            {"name", name},
            {"uid", uid},
            {"generation", generation},
            {"resourceVersion", std::to_string(100 + generation)}}},
          {"spec", {{"schedulerName", scheduler}, {"containers", {{{"name", "c"}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

inline std::string StatusPath(const std::string& name) {
  return "/api/v1/namespaces/ns/pods/" + name + "/status";
}
inline std::string BindingPath(const std::string& name) {
  return "/api/v1/namespaces/ns/pods/" + name + "/binding";
}

class SchedulerHarness {
 public:
  SchedulerHarness() : api_(new FakeApiServer) {
    api_->SetList("/api/v1/nodes",
                  {json{{"metadata", {{"name", "node-a"}, {"uid", "n1"}}},
                        {"status", {{"allocatable", {{"cpu", "4"}, {"pods", "110"}}}}}}});
    client::RestConfig cfg;
    cfg.qps = 0;
    client_ = std::make_unique<client::RestClient>(cfg, std::unique_ptr<client::Transport>(api_),
                                                   client::RetryPolicy{.max_retries = 0});
    informers_ = std::make_unique<informer::InformerFactory>(*client_);
    EXPECT_TRUE(stowage::testing::RegisterSortAndBind(registry_).ok());
    EXPECT_TRUE(registry_.Register("DefaultBinder", plugins::default_binder::New).ok());
  }
  ~SchedulerHarness() { Stop(); }

  // The profile "default-scheduler" with the stub sort and, unless replaced, the stub binder.
  static framework::ProfileSpec Profile() {
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    return spec;
  }

  void Start(std::vector<json> pods, const framework::ProfileSpec& spec = Profile()) {
    auto sched = std::make_unique<Scheduler>(*client_, *informers_, options_);
    ASSERT_TRUE(sched->Init(registry_, {spec}).ok());
    Run(std::move(pods), std::move(sched));
  }
  // Runs a scheduler built over client() and informers().
  void Run(std::vector<json> pods, std::unique_ptr<Scheduler> sched) {
    api_->SetList(kPodsPath, std::move(pods));
    sched_ = std::move(sched);
    informers_->Start();
    ASSERT_TRUE(informers_->WaitForCacheSync(std::chrono::seconds(10)));
    loop_ = std::jthread([this](std::stop_token stop) { sched_->Run(stop); });
  }

  // Stops the loop and the informers and destroys the scheduler. Idempotent.
  void Stop() {
    if (loop_.joinable()) {
      loop_.request_stop();
      loop_.join();
    }
    informers_->Stop();
    sched_.reset();
  }

  FakeApiServer& api() { return *api_; }
  client::RestClient& client() { return *client_; }
  informer::InformerFactory& informers() { return *informers_; }
  framework::Registry& registry() { return registry_; }
  Options& options() { return options_; }  // before Start
  Scheduler& scheduler() { return *sched_; }
  bool InStore(const std::string& name, int64_t generation = 0) {
    for (const auto& p : sched_->ListPods()) {
      if (p->metadata.name == name && (generation == 0 || p->metadata.generation == generation)) {
        return true;
      }
    }
    return false;
  }

 private:
  FakeApiServer* api_;  // owned by client_
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<informer::InformerFactory> informers_;
  framework::Registry registry_;
  Options options_;
  std::unique_ptr<Scheduler> sched_;
  std::jthread loop_;
};

}  // namespace stowage::scheduler::testing
