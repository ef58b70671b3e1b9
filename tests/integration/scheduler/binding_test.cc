// The binding side of the scheduler against a real kube-apiserver + etcd: the scheduling loop
// waits for room in the binding queue, and pods held at Permit wait on threads of their own, so a
// gang larger than the binding workers and the queue together still completes.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/resources.h"
#include "stowage/common/mutex.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "tests/testing/cluster.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::binding_test {
namespace {

using framework::Code;
using framework::Status;

constexpr size_t kGangSize = 6;

// Holds pods labelled gang=yes at Permit until kGangSize of them are waiting, then lets all go,
// as a coscheduling plugin would.
class GangPermit : public framework::PermitPlugin {
 public:
  explicit GangPermit(framework::Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return "Gang"; }
  Status Permit(framework::CycleState&, const api::Pod& pod, std::string_view,
                std::chrono::milliseconds& timeout) override {
    const std::string* gang = pod.metadata.labels.Get("gang");
    if (gang == nullptr || *gang != "yes") return {};
    MutexLock l(mu_);
    if (waiting_.size() + 1 < kGangSize) {
      waiting_.push_back(pod.metadata.uid);
      timeout = std::chrono::seconds(120);
      return Status(Code::kWait);
    }
    for (const auto& uid : waiting_) {
      if (auto w = handle_.GetWaitingPod(uid)) w->Allow(Name());
    }
    waiting_.clear();
    return {};
  }

 private:
  framework::Handle& handle_;
  Mutex mu_;
  std::vector<std::string> waiting_ GUARDED_BY(mu_);
};

size_t CountBound(const std::string& ns) {
  auto list = client::ListPage<api::Pod>(testing::SharedCluster().Admin(), {.namespace_ = ns});
  size_t n = 0;
  if (list.ok()) {
    for (const auto& p : list->items) n += !p->spec.node_name.empty();
  }
  return n;
}

TEST(BindingIntegration, GangHeldAtPermitCompletesBeyondTheBindingQueue) {
  client::RestClient& admin = testing::SharedCluster().Admin();
  const std::string ns = "gang";
  ASSERT_TRUE(testing::EnsureNamespace(admin, ns).ok());
  ASSERT_TRUE(testing::CreateNode(admin, testing::BuildClusterNode().Name("gang-node")).ok());
  testing::RunningSchedulerSetup setup;
  setup.options.binding_workers = 1;
  setup.options.max_queued_bindings = 1;
  setup.add_plugins = [](framework::Registry& r) {
    ASSERT_TRUE(
        r.Register("Gang",
                   [](const framework::PluginArgs&, framework::Handle& h,
                      const framework::Features&) -> StatusOr<std::unique_ptr<framework::Plugin>> {
                     return std::unique_ptr<framework::Plugin>(new GangPermit(h));
                   })
            .ok());
  };
  testing::RunningScheduler sched(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "leaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: gang-scheduler\n"
      "  plugins:\n    permit:\n      enabled:\n      - name: Gang\n",
      "test", std::move(setup));
  // Ordinary pods first, then the gang, then more ordinary pods behind it in the queue.
  std::vector<testing::PodWrapper> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(testing::BuildPod()
                       .Namespace(ns)
                       .Name("solo-" + std::to_string(i))
                       .SchedulerName("gang-scheduler"));
  }
  for (size_t i = 0; i < kGangSize; ++i) {
    pods.push_back(testing::BuildPod()
                       .Namespace(ns)
                       .Name("member-" + std::to_string(i))
                       .SchedulerName("gang-scheduler")
                       .Label("gang", "yes"));
  }
  for (int i = 4; i < 8; ++i) {
    pods.push_back(testing::BuildPod()
                       .Namespace(ns)
                       .Name("solo-" + std::to_string(i))
                       .SchedulerName("gang-scheduler"));
  }
  ASSERT_TRUE(testing::CreatePods(admin, pods, 1).ok());
  const size_t want = pods.size();
  for (int i = 0; i < 300 && CountBound(ns) < want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(CountBound(ns), want) << "the gang (or the pods after it) did not bind";
}

}  // namespace
}  // namespace stowage::binding_test
