// ActiveQueue alone: its order, its key index and the in-flight log.
#include "pkg/queue/active_queue.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include <string>
#include <vector>

#include "pkg/metrics/metrics.h"
#include "tests/testing/stub_plugins.h"
#include "tests/unit/queue/parts_testing.h"

namespace stowage::queue::active_queue_test {
namespace {

using namespace std::chrono_literals;

const MonoTime kT0 = MonoTime(1h);

std::vector<std::string> PopAll(ActiveQueue& q) {
  std::vector<std::string> names;
  while (!q.empty()) names.push_back(q.Pop()->pod().metadata.name);
  return names;
}

TEST(ActiveQueueTest, PopsInQueueOrder) {
  struct Pod {
    std::string name;
    int32_t priority;
    Duration after_t0;
  };
  struct Case {
    std::string name;
    std::vector<Pod> pods;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"higher priority first", {{"low", 1, 0s}, {"high", 10, 1s}}, {"high", "low"}},
      {"then the earlier arrival", {{"later", 1, 2s}, {"earlier", 1, 1s}}, {"earlier", "later"}},
      {"equal pods by key", {{"b", 1, 0s}, {"c", 1, 0s}, {"a", 1, 0s}}, {"a", "b", "c"}},
  };
  testing::StubPrioritySort sort;
  for (const Case& c : cases) {
    ActiveQueue q(sort);
    for (const Pod& p : c.pods) q.Add(NewQueuedPod(p.name, p.priority, kT0 + p.after_t0), "Test");
    EXPECT_EQ(q.size(), c.pods.size()) << c.name;
    EXPECT_EQ(PopAll(q), c.want) << c.name;
    EXPECT_FALSE(q.Has("default/" + c.want.front())) << c.name << ": popped pods leave the index";
  }
}

TEST(ActiveQueueTest, FindsDeletesAndUpdatesByKey) {
  testing::StubPrioritySort sort;
  ActiveQueue q(sort);
  q.Add(NewQueuedPod("a", 5), "Test");
  q.Add(NewQueuedPod("b", 1), "Test");
  ASSERT_NE(q.Get("default/b"), nullptr);
  EXPECT_EQ(q.Get("default/missing"), nullptr);
  // A higher priority moves b to the head: Update takes it out and puts it back.
  EXPECT_TRUE(q.Update("default/b", NewQueuedPod("b", 9)->pod_info));
  EXPECT_FALSE(q.Update("default/missing", NewQueuedPod("missing")->pod_info));
  EXPECT_EQ(q.Pop()->pod().metadata.name, "b");
  EXPECT_NE(q.Delete("default/a"), nullptr);
  EXPECT_EQ(q.Delete("default/a"), nullptr);
  EXPECT_TRUE(q.empty());
}

TEST(ActiveQueueTest, CountsEachArrivalWithItsEvent) {
  prometheus::Counter& added = metrics::QueueIncomingPods(metrics::Queue::kActive, "PartTest");
  const double before = added.Value();
  testing::StubPrioritySort sort;
  ActiveQueue q(sort);
  q.Add(NewQueuedPod("a"), "PartTest");
  q.Add(NewQueuedPod("b"), "PartTest");
  q.Update("default/a", NewQueuedPod("a", 3)->pod_info);
  EXPECT_EQ(added.Value() - before, 2) << "an update is no arrival";
}

// Each pod replays the events recorded after it was popped, skipping those meant only for
// another pod; the replay stops at the first event the predicate accepts.
TEST(ActiveQueueTest, APodReplaysTheEventsAfterItsEntry) {
  testing::StubPrioritySort sort;
  ActiveQueue q(sort);
  const framework::ClusterEvent node_add = framework::kEventNodeAdd;
  const framework::ClusterEvent pod_update{framework::EventResource::kPod, framework::kUpdate};
  const std::string b_uid = "b";
  q.AddEventIfAnyInFlight(node_add, {}, {});  // nobody in flight: not kept
  q.AddInFlight("a");
  q.AddEventIfAnyInFlight(node_add, {}, {});
  q.AddInFlight("b");
  q.AddEventIfAnyInFlight(pod_update, {}, {}, &b_uid);  // b's own update
  q.AddEventIfAnyInFlight(node_add, {}, {});
  struct Case {
    std::string uid;
    std::vector<std::string> want;  // the labels replayed, in order
  };
  for (const Case& c : std::vector<Case>{
           {"a", {"NodeAdd", "NodeAdd"}}, {"b", {"PodUpdate", "NodeAdd"}}, {"not-in-flight", {}}}) {
    std::vector<std::string> seen;
    EXPECT_FALSE(q.AnyEventSince(c.uid, [&](const ActiveQueue::InFlightEvent& e) {
      seen.push_back(e.event.Label());
      return false;
    }));
    EXPECT_EQ(seen, c.want) << c.uid;
  }
  int calls = 0;
  EXPECT_TRUE(q.AnyEventSince("a", [&](const ActiveQueue::InFlightEvent&) { return ++calls; }));
  EXPECT_EQ(calls, 1);
}

TEST(ActiveQueueTest, EventsNoInFlightPodNeedsAreDropped) {
  prometheus::Gauge& kept = metrics::InflightEvents("NodeAdd");
  prometheus::Gauge& popped = metrics::InflightEvents("PodPopped");
  const double kept_before = kept.Value(), popped_before = popped.Value();
  testing::StubPrioritySort sort;
  ActiveQueue q(sort);
  q.AddInFlight("a");
  q.AddInFlight("a");  // once only
  q.AddEventIfAnyInFlight(framework::kEventNodeAdd, {}, {});
  q.AddInFlight("b");
  q.AddEventIfAnyInFlight(framework::kEventNodeAdd, {}, {});
  EXPECT_EQ(popped.Value() - popped_before, 2);
  EXPECT_EQ(kept.Value() - kept_before, 2);
  q.DoneInFlight("b");
  EXPECT_EQ(kept.Value() - kept_before, 2) << "a still needs both";
  q.DoneInFlight("a");
  EXPECT_EQ(kept.Value() - kept_before, 0);
  EXPECT_EQ(popped.Value() - popped_before, 0);
  EXPECT_FALSE(q.AnyInFlight());
}

}  // namespace
}  // namespace stowage::queue::active_queue_test
