// NodeResourcesFit's EventsToRegister and queueing hints, mirroring upstream fit_test.go
// TestEventsToRegister, Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange,
// TestIsFit and TestHaveAnyRequestedResourcesIncreased.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/plugins/node_resources/fit.h"
#include "tests/unit/plugins/node_resources/test_util.h"

namespace stowage::plugins::node_resources::fit_events_test {
namespace {

using framework::EventObject;
using framework::QueueingHint;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;
using testutil::ResourcePod;
using testutil::Usage;

const std::string kA = "example.com/aaa";
const std::string kB = "example.com/bbb";

EventObject P(api::PodPtr p) { return p; }
EventObject N(api::NodePtr n) { return n; }
const EventObject kNone;

TEST(FitEvents, Registration) {
  Fit fit{FitOptions{}};
  auto events = fit.EventsToRegister();
  // 1.37's registrations: pod events by role, no Pod/Update of any kind.
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].event.Label(), "AssignedPodDelete");
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[1].event.action, framework::kAdd | framework::kUpdateNodeAllocatable);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kDeviceClass);
  EXPECT_EQ(events[2].event.action, framework::kAdd | framework::kUpdate);
  EXPECT_EQ(events[3].event.Label(), "AssignedPodUpdatePodScaleDown");
  EXPECT_EQ(events[4].event.Label(), "TargetPodUpdatePodScaleDown");
  for (const auto& e : events) EXPECT_TRUE(e.hint);
}

api::PodPtr CpuPod(const char* name, const char* uid, const char* cpu) {
  return BuildPod().Name(name).UID(uid).Req({{"cpu", cpu}}).Obj();
}

TEST(FitEvents, PodEvents) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-old-object", BuildPod().Obj(), N(BuildNode().Obj()), kNone,
       QueueingHint::kQueue},
      {"backoff-wrong-new-object", BuildPod().Obj(), kNone, N(BuildNode().Obj()),
       QueueingHint::kQueue},
      {"queue-on-other-pod-deleted", CpuPod("pod1", "", "1"),
       P(BuildPod().Name("pod2").Req({{"cpu", "1"}}).Node("fake").Obj()), kNone,
       QueueingHint::kQueue},
      {"skip-queue-on-unscheduled-pod-deleted", BuildPod().Obj(), P(BuildPod().Obj()), kNone,
       QueueingHint::kSkip},
      {"queue-on-nominated-pod-deleted", CpuPod("pod1", "uid0", "1"),
       P(BuildPod().Name("pod2").UID("uid1").Req({{"cpu", "2"}}).NominatedNodeName("fake").Obj()),
       kNone, QueueingHint::kQueue},
      {"skip-queue-on-other-unscheduled-pod", CpuPod("pod1", "uid0", "1"),
       P(CpuPod("pod2", "uid1", "2")), P(CpuPod("pod2", "uid1", "1")), QueueingHint::kSkip},
      {"skip-queue-on-other-pod-unrelated-resource-scaled-down", CpuPod("pod1", "pod1", "1"),
       P(BuildPod().Name("pod2").UID("pod2").Req({{"memory", "2"}}).Node("fake").Obj()),
       P(BuildPod().Name("pod2").UID("pod2").Req({{"memory", "1"}}).Node("fake").Obj()),
       QueueingHint::kSkip},
      {"skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
       BuildPod().Name("pod1").UID("pod1").PodLevelResourceRequests({{"cpu", "1"}}).Obj(),
       P(BuildPod()
             .Name("pod2")
             .UID("pod2")
             .PodLevelResourceRequests({{"memory", "2"}})
             .Node("fake")
             .Obj()),
       P(BuildPod()
             .Name("pod2")
             .UID("pod2")
             .PodLevelResourceRequests({{"memory", "1"}})
             .Node("fake")
             .Obj()),
       QueueingHint::kSkip},
      {"queue-on-other-pod-some-resource-scale-down", CpuPod("pod1", "pod1", "1"),
       P(BuildPod().Name("pod2").UID("pod2").Req({{"cpu", "2"}}).Node("fake").Obj()),
       P(BuildPod().Name("pod2").UID("pod2").Req({{"cpu", "1"}}).Node("fake").Obj()),
       QueueingHint::kQueue},
      {"queue-on-other-pod-some-pod-level-resource-scale-down",
       BuildPod().Name("pod1").UID("pod1").PodLevelResourceRequests({{"cpu", "1"}}).Obj(),
       P(BuildPod()
             .Name("pod2")
             .UID("pod2")
             .PodLevelResourceRequests({{"cpu", "2"}})
             .Node("fake")
             .Obj()),
       P(BuildPod()
             .Name("pod2")
             .UID("pod2")
             .PodLevelResourceRequests({{"cpu", "1"}})
             .Node("fake")
             .Obj()),
       QueueingHint::kQueue},
      {"queue-on-target-pod-some-resource-scale-down", CpuPod("pod1", "pod1", "1"),
       P(CpuPod("pod1", "pod1", "2")), P(CpuPod("pod1", "pod1", "1")), QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsSchedulableAfterPodEvent(*c.pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

api::NodePtr Cap(const stowage::testing::ResourceMap& capacity) {
  return BuildNode().Name("n").Capacity(capacity).Obj();
}

TEST(FitEvents, NodeEvents) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const api::PodPtr mem2_a1 = ResourcePod({Usage{0, 2, {{kA, 1}}}});
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", BuildPod().Obj(), kNone, P(BuildPod().Obj()),
       QueueingHint::kQueue},
      {"backoff-wrong-old-object", BuildPod().Obj(), P(BuildPod().Obj()), N(BuildNode().Obj()),
       QueueingHint::kQueue},
      {"skip-queue-on-node-add-without-sufficient-resources", ResourcePod({Usage{0, 2}}), kNone,
       N(Cap({{"memory", "1"}})), QueueingHint::kSkip},
      {"skip-queue-on-node-add-without-required-resource-type",
       ResourcePod({Usage{0, 0, {{kA, 1}}}}), kNone, N(Cap({{kB, "1"}})), QueueingHint::kSkip},
      {"queue-on-node-add-with-sufficient-resources", mem2_a1, kNone,
       N(Cap({{"memory", "4"}, {kA, "2"}})), QueueingHint::kQueue},
      {"skip-queue-on-node-unrelated-changes", mem2_a1, N(Cap({{"memory", "2"}, {kA, "2"}})),
       N(Cap({{"memory", "2"}, {kA, "1"}, {kB, "2"}})), QueueingHint::kSkip},
      {"queue-on-pod-requested-resources-increase", mem2_a1, N(Cap({{"memory", "2"}, {kA, "1"}})),
       N(Cap({{"memory", "2"}, {kA, "2"}})), QueueingHint::kQueue},
      {"skip-queue-on-node-changes-from-suitable-to-unsuitable", mem2_a1,
       N(Cap({{"memory", "4"}, {kA, "2"}})), N(Cap({{"memory", "1"}, {kA, "2"}})),
       QueueingHint::kSkip},
      {"queue-on-node-changes-from-unsuitable-to-suitable", mem2_a1,
       N(Cap({{"memory", "1"}, {kA, "2"}})), N(Cap({{"memory", "4"}, {kA, "2"}})),
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsSchedulableAfterNodeChange(*c.pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

// TestIsFit, through the node hint (a node that does not fit the pod on its own is skipped).
TEST(FitEvents, IsFit) {
  auto hint = [](api::PodPtr pod, api::NodePtr node) {
    return IsSchedulableAfterNodeChange(*pod, kNone, N(std::move(node)));
  };
  EXPECT_EQ(hint(BuildPod().Req({{"cpu", "2"}}).Obj(), Cap({{"cpu", "1"}})), QueueingHint::kSkip);
  EXPECT_EQ(hint(BuildPod().Req({{"cpu", "1"}}).Obj(), Cap({{"cpu", "2"}})), QueueingHint::kQueue);
  EXPECT_EQ(hint(BuildPod().PodLevelResourceRequests({{"cpu", "2"}}).Obj(), Cap({{"cpu", "1"}})),
            QueueingHint::kSkip);
  EXPECT_EQ(hint(BuildPod().PodLevelResourceRequests({{"cpu", "2"}}).Obj(), Cap({{"cpu", "2"}})),
            QueueingHint::kQueue);
  EXPECT_EQ(hint(BuildPod().PodLevelResourceRequests({{"hugepages-2Mi", "2Mi"}}).Obj(),
                 Cap({{"hugepages-2Mi", "2Mi"}})),
            QueueingHint::kQueue);
  EXPECT_EQ(hint(BuildPod().PodLevelResourceRequests({{"hugepages-2Mi", "4Mi"}}).Obj(),
                 Cap({{"hugepages-2Mi", "2Mi"}})),
            QueueingHint::kSkip);
  // A node that allows no pods at all never fits.
  auto no_pods = BuildNode().Name("n").Capacity({{"cpu", "2"}}).Allocatable({{"cpu", "2"}}).Obj();
  EXPECT_EQ(hint(BuildPod().Obj(), no_pods), QueueingHint::kSkip);
}

TEST(FitEvents, HaveAnyRequestedResourcesIncreased) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    api::NodePtr original, modified;
    bool want;
  };
  const api::PodPtr full = ResourcePod({Usage{2, 2, {{kA, 2}}, 2}});
  const std::vector<Case> cases = {
      {"no-requested-resources", ResourcePod({Usage{}}),
       Cap({{"pods", "1"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kA, "1"}}),
       Cap({{"pods", "1"}, {"cpu", "2"}, {"memory", "2"}, {"ephemeral-storage", "2"}, {kA, "2"}}),
       false},
      {"no-requested-resources-pods-increased", ResourcePod({Usage{}}),
       Cap({{"pods", "1"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kA, "1"}}),
       Cap({{"pods", "2"}, {"cpu", "1"}, {"memory", "1"}, {"ephemeral-storage", "1"}, {kA, "1"}}),
       true},
      {"scalar-resources-not-in-node", full,
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}}),
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}}), false},
      {"requested-resources-decreased", full,
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kA, "4"}}),
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kA, "1"}}), false},
      {"requested-resources-increased", full,
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kA, "4"}}),
       Cap({{"cpu", "3"}, {"memory", "4"}, {"ephemeral-storage", "3"}, {kA, "4"}}), true},
      {"non-requested-resources-decreased", ResourcePod({Usage{2, 2}}),
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kA, "4"}}),
       Cap({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kA, "1"}}), false},
      {"extended-resource-increased", ResourcePod({Usage{0, 0, {{kA, 1}}}}), Cap({{kA, "1"}}),
       Cap({{kA, "2"}}), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(HaveAnyRequestedResourcesIncreased(*c.pod, *c.original, *c.modified), c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace stowage::plugins::node_resources::fit_events_test
