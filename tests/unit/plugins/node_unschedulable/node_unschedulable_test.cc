#include "pkg/plugins/node_unschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::plugins::node_unschedulable::node_unschedulable_test {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::BuildNode;
using testing::BuildPod;

TEST(NodeUnschedulable, Filter) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    api::NodePtr node;
    Code code;
  } cases[] = {
      {"does not schedule pod to unschedulable node", BuildPod().Obj(),
       BuildNode().Name("n").Unschedulable().Obj(), Code::kUnschedulableAndUnresolvable},
      {"schedules pod to normal node", BuildPod().Obj(), BuildNode().Name("n").Obj(),
       Code::kSuccess},
      {"schedules pod with toleration to unschedulable node",
       BuildPod().Toleration("node.kubernetes.io/unschedulable", "", "", "NoSchedule").Obj(),
       BuildNode().Name("n").Unschedulable().Obj(), Code::kSuccess},
      {"Exists toleration of the key",
       BuildPod().Toleration("node.kubernetes.io/unschedulable").Obj(),
       BuildNode().Name("n").Unschedulable().Obj(), Code::kSuccess},
      {"toleration of another effect does not help",
       BuildPod().Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute").Obj(),
       BuildNode().Name("n").Unschedulable().Obj(), Code::kUnschedulableAndUnresolvable},
      {"tolerate-everything toleration", BuildPod().Toleration("", "Exists", "", "").Obj(),
       BuildNode().Name("n").Unschedulable().Obj(), Code::kSuccess},
  };
  NodeUnschedulable pl;
  framework::CycleState state;
  for (const auto& c : cases) {
    auto info = testing::MakeNodeInfo(c.node);
    framework::Status s = pl.Filter(state, *framework::NewPodInfo(c.pod), *info);
    EXPECT_EQ(s.code(), c.code) << c.name;
    if (c.code != Code::kSuccess) {
      EXPECT_EQ(s.Message(), "node(s) were unschedulable") << c.name;
    }
  }
}

TEST(NodeUnschedulable, IsSchedulableAfterNodeChange) {
  auto not_ready = BuildNode().Taint("node.kubernetes.io/not-ready", "", "NoExecute");
  struct Case {
    std::string name;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"error-wrong-new-object", EventObject{}, BuildPod().Obj(), QueueingHint::kQueue},
      {"error-wrong-old-object", BuildPod().Obj(), BuildNode().Unschedulable().Obj(),
       QueueingHint::kQueue},
      {"skip-queue-on-unschedulable-node-added", EventObject{}, BuildNode().Unschedulable().Obj(),
       QueueingHint::kSkip},
      {"queue-on-schedulable-node-added", EventObject{}, BuildNode().Obj(), QueueingHint::kQueue},
      {"skip-unrelated-change-unschedulable-true", BuildNode().Unschedulable().Obj(),
       testing::NodeWrapper(not_ready).Unschedulable().Obj(), QueueingHint::kSkip},
      {"skip-unrelated-change-unschedulable-false", BuildNode().Obj(), not_ready.Obj(),
       QueueingHint::kSkip},
      {"queue-on-unschedulable-field-change", BuildNode().Unschedulable().Obj(), BuildNode().Obj(),
       QueueingHint::kQueue},
      {"skip-when-node-becomes-unschedulable", BuildNode().Obj(), BuildNode().Unschedulable().Obj(),
       QueueingHint::kSkip},
  };
  auto pod = BuildPod().Obj();
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

TEST(NodeUnschedulable, IsSchedulableAfterPodTolerationChange) {
  struct Case {
    std::string name;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"error-wrong-new-object", EventObject{}, BuildNode().Obj(), QueueingHint::kQueue},
      {"error-wrong-old-object", BuildNode().Obj(), BuildPod().UID("uid").Obj(),
       QueueingHint::kQueue},
      {"skip-different-pod-update", BuildPod().UID("different-uid").Obj(),
       BuildPod().UID("different-uid").Toleration("node.kubernetes.io/unschedulable").Obj(),
       QueueingHint::kSkip},
      {"queue-when-the-unsched-pod-gets-toleration", BuildPod().UID("uid").Obj(),
       BuildPod().UID("uid").Toleration("node.kubernetes.io/unschedulable").Obj(),
       QueueingHint::kQueue},
      {"skip-when-the-unsched-pod-gets-unrelated-toleration", BuildPod().UID("uid").Obj(),
       BuildPod().UID("uid").Toleration("unrelated-key").Obj(), QueueingHint::kSkip},
  };
  auto pod = BuildPod().UID("uid").Obj();
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterPodTolerationChange(*pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

TEST(NodeUnschedulable, EventsToRegister) {
  NodeUnschedulable pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action, framework::kAdd | framework::kUpdateNodeTaint);
  EXPECT_TRUE(events[0].hint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kTargetPod);
  EXPECT_EQ(events[1].event.action, framework::kUpdatePodToleration);
  EXPECT_TRUE(events[1].hint);
}

// 1.37: PreFilter passes ordinary pods; with InPlacePodVerticalScalingSchedulerPreemption a
// pod whose resize was deferred is already on its node, so the plugin skips it (off by default).
TEST(NodeUnschedulable, PreFilterSkipsDeferredResizeOnlyWithTheGate) {
  auto node = testing::MakeNodeInfo(BuildNode().Name("n").Unschedulable().Obj());
  auto plain = framework::NewPodInfo(BuildPod().Node("n").Obj());
  auto deferred = framework::NewPodInfo(
      BuildPod().Node("n").Condition("PodResizePending", "True", "Deferred").Obj());
  auto infeasible = framework::NewPodInfo(
      BuildPod().Node("n").Condition("PodResizePending", "True", "Infeasible").Obj());
  framework::CycleState state;
  framework::PreFilterResult result;

  NodeUnschedulable pl_off;
  EXPECT_TRUE(pl_off.PreFilter(state, *plain, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_off.PreFilter(state, *deferred, {node.get()}, result).IsSuccess());
  EXPECT_FALSE(result.node_names.has_value());
  EXPECT_EQ(pl_off.Filter(state, *deferred, *node).code(), Code::kUnschedulableAndUnresolvable);

  NodeUnschedulable pl_on(/*enable_resize_preemption=*/true);
  EXPECT_TRUE(pl_on.PreFilter(state, *plain, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_on.PreFilter(state, *deferred, {node.get()}, result).IsSkip());
  EXPECT_TRUE(pl_on.PreFilter(state, *infeasible, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_on.Filter(state, *deferred, *node).IsSuccess());
  EXPECT_EQ(pl_on.Filter(state, *infeasible, *node).code(), Code::kUnschedulableAndUnresolvable);
}

TEST(NodeUnschedulable, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kNodeUnschedulable);
  EXPECT_NE(dynamic_cast<framework::PreFilterPlugin*>(p->get()), nullptr);
}

// The reason is upstream's, as generated into tests/fixtures/failure_messages.tsv.
TEST(NodeUnschedulable, MessageMatchesUpstream) {
  EXPECT_EQ(kErrReasonUnschedulable,
            testing::UpstreamFailureReason("NodeUnschedulable.ErrReasonUnschedulable"));
  NodeUnschedulable pl;
  framework::CycleState state;
  auto s = pl.Filter(state, *framework::NewPodInfo(BuildPod().Obj()),
                     *testing::MakeNodeInfo(BuildNode().Name("n").Unschedulable().Obj()));
  EXPECT_EQ(s.Message(), testing::UpstreamFailureReason("NodeUnschedulable.Filter"));
}

}  // namespace
}  // namespace stowage::plugins::node_unschedulable::node_unschedulable_test
