// The informer handlers, fed in order by a scripted API server: an assigned pod's add, update
// and delete reach the cache, an unassigned pod of a profile enters the queue and leaves it when
// it is bound or deleted, other schedulers' pending pods are ignored, and nodes come and go.
// A correct sequence reports no cache error; a broken one (a binding that fails although the
// API server bound the pod, so the assumed pod is no longer there to forget) is counted.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "pkg/metrics/registry.h"
#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::event_handlers_test {
namespace {

using json = nlohmann::json;
using testing::Eventually;
using testing::kPodsPath;
using testing::PodJson;
using testing::SchedulerHarness;

json Assigned(json pod, const std::string& node) {
  pod["spec"]["nodeName"] = node;
  return pod;
}

// Rejects every node.
struct RejectAll : framework::FilterPlugin {
  std::string_view Name() const override { return "RejectAll"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return framework::Status::Unschedulable("rejected");
  }
};

class EventHandlersTest : public ::testing::Test {
 protected:
  void Start() {
    ASSERT_TRUE(stowage::testing::RegisterStub(h_.registry(), "RejectAll", [] {
                  return new RejectAll;
                }).ok());
    framework::ProfileSpec spec = SchedulerHarness::Profile();
    spec.at(framework::ExtensionPoint::kFilter) = {{"RejectAll"}};
    h_.Start({}, spec);
  }
  // Pushes a pod of a profile nobody runs and waits for it: every event pushed before has
  // been handled, since one informer delivers in order.
  void Barrier() {
    std::string name = "barrier-" + std::to_string(++barriers_);
    h_.api().Push(kPodsPath, "ADDED", PodJson(name, name, 1, "other-scheduler"));
    ASSERT_TRUE(Eventually([&] { return h_.InStore(name); }));
  }
  size_t Pending() {
    auto& q = h_.scheduler().queue();
    return q.ActiveSize() + q.BackoffSize() + q.UnschedulableSize();
  }

  SchedulerHarness h_;
  int barriers_ = 0;
};

TEST_F(EventHandlersTest, AssignedPodAddUpdateDeleteReachTheCache) {
  Start();
  cache::Cache& cache = h_.scheduler().cache();
  const size_t before = cache.PodCount();
  h_.api().Push(kPodsPath, "ADDED", Assigned(PodJson("a", "ua", 1, "other-scheduler"), "node-a"));
  Barrier();
  EXPECT_EQ(cache.PodCount(), before + 1);
  h_.api().Push(kPodsPath, "MODIFIED",
                Assigned(PodJson("a", "ua", 2, "other-scheduler"), "node-a"));
  h_.api().Push(kPodsPath, "DELETED", Assigned(PodJson("a", "ua", 2, "other-scheduler"), "node-a"));
  Barrier();
  EXPECT_EQ(cache.PodCount(), before);
  EXPECT_EQ(h_.scheduler().cache_errors(), 0u);
}

TEST_F(EventHandlersTest, PendingPodLeavesTheQueueWhenBoundOrDeleted) {
  Start();
  h_.api().Push(kPodsPath, "ADDED", PodJson("bound-later", "u1"));
  h_.api().Push(kPodsPath, "ADDED", PodJson("deleted-later", "u2"));
  h_.api().Push(kPodsPath, "ADDED", PodJson("not-ours", "u3", 1, "other-scheduler"));
  Barrier();
  ASSERT_TRUE(Eventually([&] { return h_.scheduler().queue().UnschedulableSize() == 2; }));
  EXPECT_EQ(Pending(), 2u);
  // Bound by someone else: the pod leaves the queue and is counted in the cache.
  h_.api().Push(kPodsPath, "MODIFIED", Assigned(PodJson("bound-later", "u1", 2), "node-a"));
  Barrier();
  EXPECT_EQ(Pending(), 1u);
  h_.api().Push(kPodsPath, "DELETED", PodJson("deleted-later", "u2"));
  Barrier();
  EXPECT_EQ(Pending(), 0u);
  EXPECT_EQ(h_.scheduler().cache_errors(), 0u);
}

// Issue 26: the event recorder kept every pod's series and spam bucket for 6 to 12 minutes,
// so under churn it grew with the pod rate. A pod's deletion leaves nothing behind.
TEST_F(EventHandlersTest, DeletedPodsLeaveNoEventStateBehind) {
  Start();
  for (int i = 0; i < 3; ++i) {
    h_.api().Push(kPodsPath, "ADDED", PodJson("p" + std::to_string(i), "u" + std::to_string(i)));
  }
  Barrier();
  ASSERT_TRUE(Eventually([&] { return h_.scheduler().queue().UnschedulableSize() == 3; }));
  EventRecorder& events = h_.scheduler().events();
  // Each failure recorded a FailedScheduling event, kept as a (single-event) series.
  ASSERT_TRUE(Eventually([&] {
    events.SyncForTest();
    return events.SizesForTest().series == 3;
  }));
  EXPECT_EQ(events.SizesForTest().spam_buckets, 3u);
  for (int i = 0; i < 3; ++i) {
    h_.api().Push(kPodsPath, "DELETED", PodJson("p" + std::to_string(i), "u" + std::to_string(i)));
  }
  Barrier();
  EXPECT_EQ(Pending(), 0u);
  events.SyncForTest();
  EXPECT_EQ(events.SizesForTest().series, 0u);
  EXPECT_EQ(events.SizesForTest().spam_buckets, 0u);
}

// Issue 26: pods that come, fail (an event, a status patch, a wait in the queue) and go leave
// nothing in the queue, the cache, the event recorder or the pod store, and name no metric series.
TEST_F(EventHandlersTest, ChurnedPodsLeaveNothingBehind) {
  Start();
  auto pod = [](int i) {
    return PodJson("churned-pod-" + std::to_string(i), "churned-uid-" + std::to_string(i));
  };
  constexpr int kPods = 20;
  for (int i = 0; i < kPods; ++i) h_.api().Push(kPodsPath, "ADDED", pod(i));
  Barrier();
  ASSERT_TRUE(Eventually([&] { return h_.scheduler().queue().UnschedulableSize() == kPods; }));
  for (int i = 0; i < kPods; ++i) h_.api().Push(kPodsPath, "DELETED", pod(i));
  Barrier();
  EXPECT_EQ(h_.scheduler().queue().SizesForTest(), queue::SchedulingQueue::Sizes{});
  EXPECT_EQ(h_.scheduler().cache().PodCount(), 0u);
  for (const auto& p : h_.scheduler().ListPods()) {
    EXPECT_NE(p->spec.scheduler_name, "default-scheduler") << p->metadata.name << " still held";
  }
  EventRecorder& events = h_.scheduler().events();
  events.SyncForTest();
  EXPECT_EQ(events.SizesForTest().series, 0u);
  EXPECT_EQ(events.SizesForTest().spam_buckets, 0u);
  const std::string text = metrics::Registry::Global().Render();
  EXPECT_EQ(text.find("churned-"), std::string::npos) << "a metric series names a pod";
}

// Rejects every node; an assigned pod's deletion may help (NodeResourcesFit's hint, shortened).
struct RejectUntilPodDeleted : framework::FilterPlugin, framework::EnqueueExtensions {
  std::string_view Name() const override { return "RejectUntilPodDeleted"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return framework::Status::Unschedulable("rejected");
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::kEventAssignedPodDelete,
             [](const api::Pod&, const framework::EventObject&, const framework::EventObject&) {
               return framework::QueueingHint::kQueue;
             }}};
  }
};

json WithPriority(json pod, int32_t priority, const std::string& nominated = "") {
  pod["spec"]["priority"] = priority;
  if (!nominated.empty()) pod["status"]["nominatedNodeName"] = nominated;
  return pod;
}

// Upstream's updatePodInSchedulingQueue and deletePodFromSchedulingQueue: a pending pod whose
// nomination is cleared (a higher-priority preemptor clearing it, say) or which is deleted while
// nominated frees the room it held, as an assigned pod's deletion would, for the pods of lower or
// equal priority only (getLEPriorityPreCheck). Before, nothing moved: a pod nominated behind a
// terminating victim whose nomination another preemptor cleared waited for the next deletion
// and then preempted against another state of the cluster than upstream's
// (tests/cluster/cmd/difftest/repro/preemption-terminating-race.yaml).
TEST_F(EventHandlersTest, ClearedOrDeletedNominationRequeuesLowerOrEqualPriorityPods) {
  ASSERT_TRUE(stowage::testing::RegisterStub(h_.registry(), "RejectUntilPodDeleted", [] {
                return new RejectUntilPodDeleted;
              }).ok());
  framework::ProfileSpec spec = SchedulerHarness::Profile();
  spec.at(framework::ExtensionPoint::kFilter) = {{"RejectUntilPodDeleted"}};
  h_.Start({}, spec);
  auto& q = h_.scheduler().queue();
  auto attempts = [&](const std::string& name) {
    api::Pod pod;
    pod.metadata.namespace_ = "ns";
    pod.metadata.name = name;
    auto s = q.StateOf(pod);
    return s ? s->attempts : -1;
  };
  auto settled = [&](const std::map<std::string, int>& want) {
    return Eventually([&] {
      if (q.ActiveSize() + q.BackoffSize() != 0) return false;
      for (const auto& [name, n] : want) {
        if (attempts(name) != n) return false;
      }
      return true;
    });
  };
  h_.api().Push(kPodsPath, "ADDED", WithPriority(PodJson("low", "u-low"), 10));
  h_.api().Push(kPodsPath, "ADDED", WithPriority(PodJson("equal", "u-equal"), 100));
  h_.api().Push(kPodsPath, "ADDED", WithPriority(PodJson("high", "u-high"), 1000));
  h_.api().Push(kPodsPath, "ADDED", WithPriority(PodJson("nominated", "u-nom"), 100, "node-a"));
  Barrier();
  ASSERT_TRUE(settled({{"low", 1}, {"equal", 1}, {"high", 1}, {"nominated", 1}}));

  // Its nomination cleared: the pods of priority <= 100 try again, "high" does not.
  h_.api().Push(kPodsPath, "MODIFIED", WithPriority(PodJson("nominated", "u-nom", 2), 100));
  Barrier();
  EXPECT_TRUE(settled({{"low", 2}, {"equal", 2}, {"high", 1}, {"nominated", 2}}));

  // An update that leaves no nomination to clear moves nothing.
  h_.api().Push(kPodsPath, "MODIFIED", WithPriority(PodJson("nominated", "u-nom", 3), 100));
  Barrier();
  EXPECT_TRUE(settled({{"low", 2}, {"equal", 2}, {"high", 1}, {"nominated", 2}}));

  // Deleted while nominated (to node-a again): the same.
  h_.api().Push(kPodsPath, "MODIFIED",
                WithPriority(PodJson("nominated", "u-nom", 4), 100, "node-a"));
  h_.api().Push(kPodsPath, "DELETED",
                WithPriority(PodJson("nominated", "u-nom", 4), 100, "node-a"));
  Barrier();
  EXPECT_TRUE(settled({{"low", 3}, {"equal", 3}, {"high", 1}}));
  EXPECT_EQ(attempts("nominated"), -1);
}

TEST_F(EventHandlersTest, NodesComeAndGo) {
  Start();
  cache::Cache& cache = h_.scheduler().cache();
  ASSERT_EQ(cache.NodeCount(), 1u);
  json node = {{"metadata", {{"name", "node-b"}, {"uid", "n2"}, {"resourceVersion", "5"}}}};
  h_.api().Push("/api/v1/nodes", "ADDED", node);
  ASSERT_TRUE(Eventually([&] { return cache.NodeCount() == 2; }));
  h_.api().Push("/api/v1/nodes", "DELETED", node);
  EXPECT_TRUE(Eventually([&] { return cache.NodeCount() == 1; }));
}

// Binds "the binding's answer was lost" style: the API server binds the pod (the informer sees
// it) but the plugin reports an error, so the binding cycle forgets a pod that is no longer
// assumed.
struct BindThenFail : framework::BindPlugin {
  static inline testing::FakeApiServer* api = nullptr;
  static inline Scheduler* sched = nullptr;
  std::string_view Name() const override { return "BindThenFail"; }
  framework::Status Bind(framework::CycleState&, const api::Pod& pod,
                         std::string_view node) override {
    api->Push(kPodsPath, "MODIFIED",
              Assigned(PodJson(pod.metadata.name, pod.metadata.uid, 2), std::string(node)));
    EXPECT_TRUE(Eventually([&] { return !sched->cache().IsAssumedPod(pod); }));
    return framework::Status::Error("the answer was lost");
  }
};

TEST(CacheErrorsTest, ForgettingAPodNoLongerAssumedIsCounted) {
  SchedulerHarness h;
  ASSERT_TRUE(stowage::testing::RegisterStub(h.registry(), "BindThenFail", [] {
                return new BindThenFail;
              }).ok());
  framework::ProfileSpec spec = SchedulerHarness::Profile();
  spec.at(framework::ExtensionPoint::kBind) = {{"BindThenFail"}};
  BindThenFail::api = &h.api();
  h.Start({}, spec);
  BindThenFail::sched = &h.scheduler();
  EXPECT_EQ(h.scheduler().cache_errors(), 0u);
  h.api().Push(kPodsPath, "ADDED", PodJson("p", "u1"));
  EXPECT_TRUE(Eventually([&] { return h.scheduler().cache_errors() == 1; }));
}

}  // namespace
}  // namespace stowage::scheduler::event_handlers_test
