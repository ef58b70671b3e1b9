#include "pkg/plugins/taint_toleration/taint_toleration.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::plugins::taint_toleration::taint_toleration_test {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::BuildNode;
using testing::BuildPod;

api::NodePtr NodeWithTaints(std::string name, std::vector<api::Taint> taints) {
  return BuildNode().Name(std::move(name)).Taints(std::move(taints)).Obj();
}

api::PodPtr PodWithTolerations(std::vector<api::Toleration> tolerations) {
  return BuildPod().Name("pod1").Tolerations(std::move(tolerations)).Obj();
}

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

struct ScoreCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<int64_t> want;
  bool comparison_operators = false;
};

TEST(TaintToleration, Score) {
  const std::string kPrefer = "PreferNoSchedule";
  std::vector<ScoreCase> cases = {
      {"node with taints tolerated by the pod gets a higher score than intolerable ones",
       PodWithTolerations({Tol("foo", "Equal", "bar", kPrefer)}),
       {NodeWithTaints("nodeA", {{"foo", "bar", kPrefer}}),
        NodeWithTaints("nodeB", {{"foo", "blah", kPrefer}})},
       {100, 0}},
      {"the number of tolerated taints does not matter",
       PodWithTolerations(
           {Tol("cpu-type", "Equal", "arm64", kPrefer), Tol("disk-type", "Equal", "ssd", kPrefer)}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {{"cpu-type", "arm64", kPrefer}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", kPrefer}, {"disk-type", "ssd", kPrefer}})},
       {100, 100, 100}},
      {"the more intolerable taints a node has, the lower its score",
       PodWithTolerations({Tol("foo", "Equal", "bar", kPrefer)}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {{"cpu-type", "arm64", kPrefer}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", kPrefer}, {"disk-type", "ssd", kPrefer}})},
       {100, 50, 0}},
      {"only PreferNoSchedule taints and tolerations are counted",
       PodWithTolerations({Tol("cpu-type", "Equal", "arm64", "NoSchedule"),
                           Tol("disk-type", "Equal", "ssd", "NoSchedule")}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {{"cpu-type", "arm64", "NoSchedule"}}),
        NodeWithTaints("nodeC", {{"cpu-type", "arm64", kPrefer}, {"disk-type", "ssd", kPrefer}})},
       {100, 100, 0}},
      {"no taints and tolerations lands on the node without taints",
       PodWithTolerations({}),
       {NodeWithTaints("nodeA", {}), NodeWithTaints("nodeB", {{"cpu-type", "arm64", kPrefer}})},
       {100, 0}},
      {"a toleration with an empty effect covers PreferNoSchedule",
       PodWithTolerations({Tol("foo", "Exists", "", "")}),
       {NodeWithTaints("nodeA", {{"foo", "x", kPrefer}}),
        NodeWithTaints("nodeB", {{"bar", "x", kPrefer}})},
       {100, 0}},
      {"Gt toleration prefers the matching SLA taint (gate on)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Gt", "950", kPrefer)}),
       {NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "800", kPrefer}}),
        NodeWithTaints("nodeB", {{"node.kubernetes.io/sla", "999", kPrefer}})},
       {0, 100},
       true},
      {"Lt toleration prefers the matching SLA taint (gate on)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Lt", "800", kPrefer)}),
       {NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "950", kPrefer}}),
        NodeWithTaints("nodeB", {{"node.kubernetes.io/sla", "700", kPrefer}})},
       {0, 100},
       true},
      {"Gt toleration matches nothing with the gate off (1.36 default)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Gt", "950", kPrefer)}),
       {NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "800", kPrefer}}),
        NodeWithTaints("nodeB", {{"node.kubernetes.io/sla", "999", kPrefer}})},
       {0, 0}},  // one untolerated taint each: both normalise to the bottom
  };
  for (const auto& c : cases) {
    TaintToleration pl(c.comparison_operators);
    auto infos = testing::MakeNodeInfos(c.nodes);
    auto pod = framework::NewPodInfo(c.pod);
    framework::CycleState state;
    ASSERT_TRUE(pl.PreScore(state, *pod, testing::Pointers(infos)).IsSuccess()) << c.name;
    framework::NodeScoreList scores;
    for (const auto& info : infos) {
      int64_t score = -1;
      ASSERT_TRUE(pl.Score(state, *pod, *info, score).IsSuccess()) << c.name;
      scores.push_back({info->name(), score});
    }
    // The framework reaches NormalizeScore through the Score point's Extensions().
    framework::ScorePlugin& as_score = pl;
    ASSERT_NE(as_score.Extensions(), nullptr);
    ASSERT_TRUE(as_score.Extensions()->NormalizeScore(state, *pod, scores).IsSuccess()) << c.name;
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want) << c.name;
  }
}

TEST(TaintToleration, ScoreWithoutPreScoreIsAnError) {
  TaintToleration pl;
  framework::CycleState state;
  auto info = testing::MakeNodeInfo(BuildNode().Name("n").Obj());
  int64_t score = 0;
  framework::Status s = pl.Score(state, *framework::NewPodInfo(BuildPod().Obj()), *info, score);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
}

struct FilterCase {
  std::string name;
  api::PodPtr pod;
  api::NodePtr node;
  bool untolerated;
  bool comparison_operators = false;
};

TEST(TaintToleration, Filter) {
  std::vector<FilterCase> cases = {
      {"a pod without tolerations can't be scheduled onto a node with taints",
       PodWithTolerations({}), NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}),
       true},
      {"a pod tolerating the dedicated node's taint",
       PodWithTolerations({Tol("dedicated", "", "user1", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), false},
      {"a pod tolerating another value",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), true},
      {"operator Exists tolerates any value",
       PodWithTolerations({Tol("foo", "Exists", "", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), false},
      {"every taint tolerated",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule"),
                           Tol("foo", "Exists", "", "NoSchedule")}),
       NodeWithTaints("nodeA",
                      {{"dedicated", "user2", "NoSchedule"}, {"foo", "bar", "NoSchedule"}}),
       false},
      {"key and value match but a non-empty effect does not",
       PodWithTolerations({Tol("foo", "Equal", "bar", "PreferNoSchedule")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), true},
      {"an empty toleration effect matches NoSchedule",
       PodWithTolerations({Tol("foo", "Equal", "bar", "")}),
       NodeWithTaints("nodeA", {{"foo", "bar", "NoSchedule"}}), false},
      {"untolerated PreferNoSchedule taints do not filter",
       PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "PreferNoSchedule"}}), false},
      {"no tolerations and only a PreferNoSchedule taint", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "PreferNoSchedule"}}), false},
      {"untolerated NoExecute taints filter", PodWithTolerations({}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/not-ready", "", "NoExecute"}}), true},
      {"Gt below the threshold (gate on)",
       PodWithTolerations({Tol("node.example.com/priority-level", "Gt", "950", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.example.com/priority-level", "800", "NoSchedule"}}), true,
       true},
      {"Gt above the threshold (gate on)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "950", "NoSchedule"}}), false, true},
      {"Lt above the threshold (gate on)",
       PodWithTolerations({Tol("node.example.com/priority-level", "Lt", "800", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.example.com/priority-level", "950", "NoSchedule"}}), true,
       true},
      {"Lt below the threshold (gate on)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "800", "NoSchedule"}}), false, true},
      {"Gt with a non-numeric taint value (gate on)",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Gt", "950", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "high", "NoSchedule"}}), true, true},
      {"Gt with the gate off",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "950", "NoSchedule"}}), true},
      {"Lt with the gate off",
       PodWithTolerations({Tol("node.kubernetes.io/sla", "Lt", "950", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"node.kubernetes.io/sla", "800", "NoSchedule"}}), true},
      {"mixed Equal and Gt with the gate off: Equal is honoured",
       PodWithTolerations({Tol("dedicated", "Equal", "user1", "NoSchedule"),
                           Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), false},
      {"mixed Equal and Gt with the gate off: Gt is needed",
       PodWithTolerations({Tol("dedicated", "Equal", "user1", "NoSchedule"),
                           Tol("node.kubernetes.io/sla", "Gt", "750", "NoSchedule")}),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"},
                                {"node.kubernetes.io/sla", "950", "NoSchedule"}}),
       true},
  };
  framework::CycleState state;
  for (const auto& c : cases) {
    TaintToleration pl(c.comparison_operators);
    auto info = testing::MakeNodeInfo(c.node);
    framework::Status s = pl.Filter(state, *framework::NewPodInfo(c.pod), *info);
    if (c.untolerated) {
      EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable) << c.name;
      EXPECT_EQ(s.Message(), "node(s) had untolerated taint(s)") << c.name;
    } else {
      EXPECT_TRUE(s.IsSuccess()) << c.name << ": " << s.Message();
    }
  }
}

TEST(TaintToleration, IsSchedulableAfterNodeChange) {
  auto pod = PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")});
  struct Case {
    std::string name;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"backoff-wrong-new-object", EventObject{}, BuildPod().Obj(), QueueingHint::kQueue},
      {"backoff-wrong-old-object", BuildPod().Obj(),
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), QueueingHint::kQueue},
      {"skip-queue-on-untoleratedtaint-node-added", EventObject{},
       NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}), QueueingHint::kSkip},
      {"queue-on-toleratedtaint-node-added", EventObject{},
       NodeWithTaints("nodeA", {{"dedicated", "user2", "NoSchedule"}}), QueueingHint::kQueue},
      {"skip-unrelated-change", NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}),
       NodeWithTaints("nodeA",
                      {{"dedicated", "user1", "NoSchedule"}, {"dedicated", "user3", "NoSchedule"}}),
       QueueingHint::kSkip},
      {"queue-on-taint-change", NodeWithTaints("nodeA", {{"dedicated", "user1", "NoSchedule"}}),
       NodeWithTaints("nodeA", {{"dedicated", "user2", "NoSchedule"}}), QueueingHint::kQueue},
      {"skip-when-already-tolerated", NodeWithTaints("nodeA", {}),
       NodeWithTaints("nodeA", {{"dedicated", "user2", "NoSchedule"}}), QueueingHint::kSkip},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

TEST(TaintToleration, IsSchedulableAfterPodTolerationChange) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"backoff-wrong-new-object", BuildPod().Obj(), EventObject{}, BuildNode().Obj(),
       QueueingHint::kQueue},
      {"backoff-wrong-old-object", BuildPod().Obj(), BuildNode().Obj(), BuildPod().Obj(),
       QueueingHint::kQueue},
      {"skip-updates-other-pod", BuildPod().Name("pod-1").Namespace("ns-1").UID("uid0").Obj(),
       BuildPod().Name("pod-2").Namespace("ns-1").UID("uid1").Obj(),
       BuildPod()
           .Name("pod-2")
           .Namespace("ns-1")
           .UID("uid1")
           .Toleration("foo", "", "", "NoSchedule")
           .Obj(),
       QueueingHint::kSkip},
      {"queue-on-toleration-added", BuildPod().Name("pod-1").Namespace("ns-1").Obj(),
       BuildPod().Name("pod-1").Namespace("ns-1").Obj(),
       BuildPod().Name("pod-1").Namespace("ns-1").Toleration("foo", "", "", "NoSchedule").Obj(),
       QueueingHint::kQueue},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterPodTolerationChange(*c.pod, c.old_obj, c.new_obj), c.want)
        << c.name;
  }
}

TEST(TaintToleration, EventsToRegister) {
  TaintToleration pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action, framework::kAdd | framework::kUpdateNodeTaint);
  ASSERT_TRUE(events[0].hint);
  auto pod = PodWithTolerations({Tol("dedicated", "Equal", "user2", "NoSchedule")});
  EXPECT_EQ(events[0].hint(*pod, EventObject{},
                           NodeWithTaints("n", {{"dedicated", "user2", "NoSchedule"}})),
            QueueingHint::kQueue);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kTargetPod);
  EXPECT_EQ(events[1].event.action, framework::kUpdatePodToleration);
  EXPECT_TRUE(events[1].hint);
}

// 1.37: PreFilter passes ordinary pods; with InPlacePodVerticalScalingSchedulerPreemption a
// pod whose resize was deferred is already on its node, so the plugin skips it (off by default).
TEST(TaintToleration, PreFilterSkipsDeferredResizeOnlyWithTheGate) {
  auto node =
      testing::MakeNodeInfo(BuildNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj());
  auto plain = framework::NewPodInfo(BuildPod().Node("n").Obj());
  auto deferred = framework::NewPodInfo(
      BuildPod().Node("n").Condition("PodResizePending", "True", "Deferred").Obj());
  auto infeasible = framework::NewPodInfo(
      BuildPod().Node("n").Condition("PodResizePending", "True", "Infeasible").Obj());
  framework::CycleState state;
  framework::PreFilterResult result;

  TaintToleration pl_off;
  EXPECT_TRUE(pl_off.PreFilter(state, *plain, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_off.PreFilter(state, *deferred, {node.get()}, result).IsSuccess());
  EXPECT_FALSE(result.node_names.has_value());
  EXPECT_EQ(pl_off.Filter(state, *deferred, *node).code(), Code::kUnschedulableAndUnresolvable);

  TaintToleration pl_on(helper::kDefaultEnableComparisonOperators,
                        /*enable_resize_preemption=*/true);
  EXPECT_TRUE(pl_on.PreFilter(state, *plain, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_on.PreFilter(state, *deferred, {node.get()}, result).IsSkip());
  EXPECT_TRUE(pl_on.PreFilter(state, *infeasible, {node.get()}, result).IsSuccess());
  EXPECT_TRUE(pl_on.Filter(state, *deferred, *node).IsSuccess());
  EXPECT_EQ(pl_on.Filter(state, *infeasible, *node).code(), Code::kUnschedulableAndUnresolvable);
}

TEST(TaintToleration, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kTaintToleration);
  EXPECT_NE(dynamic_cast<framework::PreFilterPlugin*>(p->get()), nullptr);
  auto* score = dynamic_cast<framework::ScorePlugin*>(p->get());
  ASSERT_NE(score, nullptr);
  EXPECT_NE(score->Extensions(), nullptr);
}

// The reason is upstream's inline Filter text (not its unused ErrReasonNotMatch), as generated
// into tests/fixtures/failure_messages.tsv.
TEST(TaintToleration, MessageMatchesUpstream) {
  TaintToleration pl;
  framework::CycleState state;
  auto s = pl.Filter(
      state, *framework::NewPodInfo(BuildPod().Obj()),
      *testing::MakeNodeInfo(BuildNode().Name("n").Taint("dedicated", "x", "NoSchedule").Obj()));
  EXPECT_EQ(s.Message(), testing::UpstreamFailureReason("TaintToleration.Filter"));
}

}  // namespace
}  // namespace stowage::plugins::taint_toleration::taint_toleration_test
