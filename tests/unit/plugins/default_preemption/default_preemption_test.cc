// DefaultPreemption's PostFilter end to end on real Filter plugins, after the cases of upstream's
// default_preemption_test.go (TestPostFilter, TestSelectBestCandidate,
// TestPodEligibleToPreemptOthers, TestPreempt): which node is nominated, which pods are preempted
// and how, and the messages.
#include "pkg/plugins/default_preemption/default_preemption.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/framework/preemption_dry_run.h"
#include "tests/unit/plugins/default_preemption/test_util.h"

namespace stowage::plugins::default_preemption::default_preemption_test {
namespace {

using framework::Code;
using framework::NominatingInfo;
using testutil::Node;
using testutil::Pod;

api::PodDisruptionBudget Pdb(const std::string& app, int32_t allowed) {
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "pdb-" + app;
  pdb.metadata.namespace_ = "default";
  api::LabelSelector sel;
  sel.match_labels = stowage::testing::MakeStringMap({{"app", app}});
  pdb.selector = sel;
  pdb.disruptions_allowed = allowed;
  return pdb;
}

struct Case {
  std::string name;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> pods;
  api::PodPtr preemptor;
  std::vector<api::PodDisruptionBudget> pdbs;
  Code want_code;
  std::string want_message;
  NominatingInfo want_nomination;
  std::vector<std::string> want_victims;  // deleted, in order
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

class PostFilterTest : public ::testing::TestWithParam<Case> {};

TEST_P(PostFilterTest, NominatesAndPreempts) {
  const Case& tc = GetParam();
  testutil::Cluster cluster(tc.nodes, tc.pods);
  cluster.handle.SetPdbs(tc.pdbs);
  DefaultPreemption pl({10, 100}, cluster.handle, /*async=*/true);
  pl.SetOffsetForTest([](size_t) { return 0; });
  auto pod = framework::NewPodInfo(tc.preemptor);
  std::unique_ptr<framework::CycleState> state;
  framework::NodeToStatus filtered = cluster.FilterPhase(*pod, state);
  ASSERT_EQ(filtered.size(), tc.nodes.size()) << "the preemptor must fit nowhere";
  NominatingInfo result;
  framework::Status s = pl.PostFilter(*state, *pod, filtered, cluster.runner, result);
  EXPECT_EQ(s.code(), tc.want_code);
  EXPECT_EQ(s.Message(), tc.want_message);
  EXPECT_EQ(result.mode, tc.want_nomination.mode);
  EXPECT_EQ(result.node_name, tc.want_nomination.node_name);
  std::vector<std::string> deleted;
  for (const auto& w : cluster.handle.write_calls()) {
    if (w.verb == "delete") deleted.push_back(w.name);
  }
  EXPECT_EQ(deleted, tc.want_victims);
}

// `stowage explain`'s dry run (framework::PreemptionDryRun in the CycleState): every candidate
// with its victims and PDB violations, and the node a real run would pick, with no pod evicted
// or patched and no node nominated.
TEST(DryRunTest, CandidatesAndTheChoiceWithNothingEvicted) {
  testutil::Cluster cluster({Node("n1", "3"), Node("n2", "3"), Node("n3", "1")},
                            {Pod("a", 1, "3", "n1").Label("app", "x").Obj(),
                             Pod("b", 5, "3", "n2").Obj(), Pod("c", 20, "1", "n3").Obj()});
  cluster.handle.SetPdbs({Pdb("x", 0)});
  DefaultPreemption pl({10, 100}, cluster.handle, /*async=*/true);
  pl.SetOffsetForTest([](size_t) { return 0; });
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").Obj());
  std::unique_ptr<framework::CycleState> state;
  framework::NodeToStatus filtered = cluster.FilterPhase(*pod, state);
  state->Write(framework::kPreemptionDryRunKey, std::make_unique<framework::PreemptionDryRun>());
  NominatingInfo result;
  framework::Status s = pl.PostFilter(*state, *pod, filtered, cluster.runner, result);
  EXPECT_EQ(s.code(), Code::kSuccess);
  EXPECT_EQ(s.Message(),
            "preemption: found a potential placement for pod on node n2, preempting 1 victims");
  EXPECT_EQ(result.mode, NominatingInfo::Mode::kNoop);
  EXPECT_TRUE(cluster.handle.write_calls().empty()) << cluster.handle.write_calls().size();
  const auto* dry = state->Read<framework::PreemptionDryRun>(framework::kPreemptionDryRunKey);
  ASSERT_NE(dry, nullptr);
  EXPECT_EQ(dry->chosen, "n2");
  // n3's only pod outranks the preemptor: no candidate there.
  std::map<std::string, framework::PreemptionDryRun::Candidate> by_node;
  for (const auto& c : dry->candidates) by_node[c.node] = c;
  ASSERT_EQ(by_node.size(), 2u);
  EXPECT_EQ(by_node["n1"].victims, std::vector<std::string>{"default/a"});
  EXPECT_EQ(by_node["n1"].pdb_violations, 1);
  EXPECT_EQ(by_node["n2"].victims, std::vector<std::string>{"default/b"});
  EXPECT_EQ(by_node["n2"].pdb_violations, 0);
}

const NominatingInfo kNoop{};
const NominatingInfo kClear{NominatingInfo::Mode::kOverride, ""};
NominatingInfo On(const std::string& node) { return {NominatingInfo::Mode::kOverride, node}; }

INSTANTIATE_TEST_SUITE_P(
    Cases, PostFilterTest,
    ::testing::Values(
        Case{"a lower-priority pod makes room",
             {Node("n1", "4")},
             {Pod("low", 1, "3", "n1").Obj()},
             Pod("p", 10, "2").Obj(),
             {},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n1, preempting 1 victims",
             On("n1"),
             {"low"}},
        Case{"no pod of lower priority",
             {Node("n1", "4")},
             {Pod("high", 20, "3", "n1").Obj()},
             Pod("p", 10, "2").Obj(),
             {},
             Code::kUnschedulable,
             "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming "
             "pod.",
             kClear,
             {}},
        Case{"preemptionPolicy Never",
             {Node("n1", "4")},
             {Pod("low", 1, "3", "n1").Obj()},
             Pod("p", 10, "2").PreemptionPolicy("Never").Obj(),
             {},
             Code::kUnschedulable,
             "preemption: not eligible due to preemptionPolicy=Never.",
             kNoop,
             {}},
        Case{"too big even without the lower-priority pods",
             {Node("n1", "4")},
             {Pod("low", 1, "1", "n1").Obj(), Pod("high", 20, "2", "n1").Obj()},
             Pod("p", 10, "3").Obj(),
             {},
             Code::kUnschedulable,
             "preemption: 0/1 nodes are available: 1 Insufficient cpu.",
             kClear,
             {}},
        Case{"the more important pods are kept",
             {Node("n1", "3")},
             {Pod("p1", 1, "1", "n1").StartTime("2026-01-01T00:00:00Z").Obj(),
              Pod("p2", 2, "1", "n1").Obj(), Pod("p3", 3, "1", "n1").Obj()},
             Pod("p", 10, "1").Obj(),
             {},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n1, preempting 1 victims",
             On("n1"),
             {"p1"}},
        Case{"the node whose victims have the lowest priority",
             {Node("n1", "3"), Node("n2", "3")},
             {Pod("a", 5, "3", "n1").Obj(), Pod("b", 3, "3", "n2").Obj()},
             Pod("p", 10, "2").Obj(),
             {},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n2, preempting 1 victims",
             On("n2"),
             {"b"}},
        Case{"a node without PDB violation first",
             {Node("n1", "3"), Node("n2", "3")},
             {Pod("a", 1, "3", "n1").Label("app", "x").Obj(), Pod("b", 5, "3", "n2").Obj()},
             Pod("p", 10, "2").Obj(),
             {Pdb("x", 0)},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n2, preempting 1 victims",
             On("n2"),
             {"b"}},
        Case{"an unprotected victim rather than a PDB-protected one",
             {Node("n1", "4")},
             {Pod("a", 1, "2", "n1").Label("app", "x").Obj(), Pod("b", 5, "2", "n1").Obj()},
             Pod("p", 10, "2").Obj(),
             {Pdb("x", 0)},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n1, preempting 1 victims",
             On("n1"),
             {"b"}},
        Case{"a required anti-affinity victim is removed through the PreFilter extensions",
             {Node("n1", "8"), Node("n2", "1")},
             {Pod("web", 1, "1", "n1").Label("app", "web").Obj(), Pod("other", 1, "1", "n1").Obj(),
              Pod("full", 20, "1", "n2").Obj()},
             Pod("p", 10, "1")
                 .PodAntiAffinityExists("app", "kubernetes.io/hostname",
                                        stowage::testing::PodAffinityKind::kRequired)
                 .Obj(),
             {},
             Code::kSuccess,
             "preemption: found a potential placement for pod on node n1, preempting 1 victims",
             On("n1"),
             {"web"}}),
    [](const auto& info) {
      std::string n;
      for (char c : info.param.name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return n;
    });

TEST(PostFilter, NodesTheFiltersRuledOutAreNotTried) {
  testutil::Cluster cluster({Node("n1", "4"), Node("n2", "4")},
                            {Pod("low", 1, "3", "n1").Obj(), Pod("low2", 1, "3", "n2").Obj()});
  DefaultPreemption pl({10, 100}, cluster.handle, true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").Obj());
  auto state = cluster.runner.PreFilter(*pod, cluster.handle.SnapshotSharedLister().List());
  framework::NodeToStatus filtered = {
      {"n1", framework::Status::Unresolvable("node(s) didn't match Pod's node affinity/selector")},
      {"n2", framework::Status::Unresolvable("node(s) didn't match Pod's node affinity/selector")}};
  NominatingInfo result;
  framework::Status s = pl.PostFilter(*state, *pod, filtered, cluster.runner, result);
  EXPECT_EQ(s.Message(),
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_TRUE(cluster.handle.write_calls().empty());
}

TEST(PostFilter, NotAgainWhileAVictimOnTheNominatedNodeTerminates) {
  testutil::Cluster cluster({Node("n1", "4")},
                            {Pod("going", 1, "3", "n1")
                                 .Terminating()
                                 .Condition("DisruptionTarget", "True", "PreemptionByScheduler")
                                 .Obj()});
  DefaultPreemption pl({10, 100}, cluster.handle, true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").NominatedNodeName("n1").Obj());
  std::unique_ptr<framework::CycleState> state;
  auto filtered = cluster.FilterPhase(*pod, state);
  NominatingInfo result;
  framework::Status s = pl.PostFilter(*state, *pod, filtered, cluster.runner, result);
  EXPECT_EQ(s.Message(),
            "preemption: not eligible due to a terminating pod on the nominated node.");
  EXPECT_EQ(result.mode, NominatingInfo::Mode::kNoop);  // the nomination stands
}

TEST(PostFilter, VictimsGetTheConditionThenAreDeletedWithAnEvent) {
  testutil::Cluster cluster({Node("n1", "4")}, {Pod("low", 1, "3", "n1").Obj()});
  auto lower = Pod("waiting", 5, "1").NominatedNodeName("n1").Obj();
  auto higher = Pod("first", 50, "1").NominatedNodeName("n1").Obj();
  cluster.handle.SetNominatedPods({framework::NewPodInfo(lower), framework::NewPodInfo(higher)});
  DefaultPreemption pl({10, 100}, cluster.handle, true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").SchedulerName("default-scheduler").Obj());
  std::unique_ptr<framework::CycleState> state;
  auto filtered = cluster.FilterPhase(*pod, state);
  NominatingInfo result;
  ASSERT_TRUE(pl.PostFilter(*state, *pod, filtered, cluster.runner, result).IsSuccess());
  auto writes = cluster.handle.write_calls();
  // The lower-priority nomination on n1 is cleared first, then the victim is preempted.
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0].verb, "patch");
  EXPECT_EQ(writes[0].name, "waiting");
  EXPECT_EQ(writes[0].status.nominated_node_name, "");
  EXPECT_EQ(writes[1].verb, "patch");
  EXPECT_EQ(writes[1].name, "low");
  ASSERT_EQ(writes[1].status.conditions.size(), 1u);
  const api::Condition& c = writes[1].status.conditions[0];
  EXPECT_EQ(c.type, "DisruptionTarget");
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "PreemptionByScheduler");
  EXPECT_EQ(c.message, "default-scheduler: preempting to accommodate a higher priority pod");
  EXPECT_EQ(writes[2].verb, "delete");
  EXPECT_EQ(writes[2].name, "low");
  auto events = cluster.handle.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].regarding, "default/low");
  EXPECT_EQ(events[0].reason, "Preempted");
  EXPECT_EQ(events[0].action, "Preempting");
  EXPECT_EQ(events[0].note, "Preempted by pod uid-p on node n1");
  EXPECT_EQ(events[0].related, "default/p") << "the preemptor, as upstream's Eventf";
}

// A handle whose asynchronous tasks wait until the test runs them.
class DeferringHandle : public stowage::testing::FakeHandle {
 public:
  void RunAsync(std::function<void()> task) override { tasks.push_back(std::move(task)); }
  std::vector<std::function<void()>> tasks;
};

TEST(PreEnqueue, HoldsThePreemptorUntilItsAsyncPreemptionIsDone) {
  DeferringHandle handle;
  handle.SetNodes({Node("n1", "4")}, {Pod("low", 1, "3", "n1").Obj()});
  testutil::TestRunner runner(handle);
  DefaultPreemption pl({10, 100}, handle, /*async=*/true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").Obj());
  auto state = runner.PreFilter(*pod, handle.SnapshotSharedLister().List());
  framework::NodeToStatus filtered = {{"n1", framework::Status::Unschedulable("Insufficient cpu")}};
  NominatingInfo result;
  ASSERT_TRUE(pl.PostFilter(*state, *pod, filtered, runner, result).IsSuccess());
  EXPECT_EQ(result.node_name, "n1");
  EXPECT_TRUE(handle.write_calls().empty()) << "no API call on the scheduling thread";
  framework::Status held = pl.PreEnqueue(*pod->pod);
  EXPECT_EQ(held.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(held.Message(), "waiting for the preemption for this pod to be finished");
  ASSERT_EQ(handle.tasks.size(), 1u);
  handle.tasks[0]();
  EXPECT_TRUE(pl.PreEnqueue(*pod->pod).IsSuccess());
  EXPECT_EQ(handle.write_calls().size(), 2u);
  EXPECT_TRUE(handle.activated().empty()) << "a success waits for the victims' deletion events";
}

TEST(PreEnqueue, AFailedPreemptionReactivatesThePreemptor) {
  DeferringHandle handle;
  handle.SetNodes({Node("n1", "4")}, {Pod("low", 1, "3", "n1").Obj()});
  handle.SetWriteError(UnavailableError("apiserver down"));
  testutil::TestRunner runner(handle);
  DefaultPreemption pl({10, 100}, handle, true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").Obj());
  auto state = runner.PreFilter(*pod, handle.SnapshotSharedLister().List());
  framework::NodeToStatus filtered = {{"n1", framework::Status::Unschedulable("Insufficient cpu")}};
  NominatingInfo result;
  ASSERT_TRUE(pl.PostFilter(*state, *pod, filtered, runner, result).IsSuccess());
  ASSERT_EQ(handle.tasks.size(), 1u);
  handle.tasks[0]();
  EXPECT_EQ(handle.activated(), std::vector<std::string>{"default/p"});
  EXPECT_TRUE(pl.PreEnqueue(*pod->pod).IsSuccess());
}

// A victim still in PreBind (upstream's PodInPreBind) is cancelled in memory: no condition, no
// deletion, the event says so, and the preemptor is activated since no deletion event will come.
TEST(PreEnqueue, AVictimInPreBindIsCancelledInMemory) {
  struct InPreBind : framework::PodInPreBind {
    bool CancelPod(std::string message) override {
      cause = std::move(message);
      return true;
    }
    std::string cause;
  };
  struct Handle final : DeferringHandle {
    std::shared_ptr<framework::PodInPreBind> GetPodInPreBind(std::string_view uid) override {
      return uid == "uid-low" ? victim : nullptr;
    }
    std::shared_ptr<InPreBind> victim = std::make_shared<InPreBind>();
  } handle;
  handle.SetNodes({Node("n1", "4")}, {Pod("low", 1, "3", "n1").Obj()});
  testutil::TestRunner runner(handle);
  DefaultPreemption pl({10, 100}, handle, /*async=*/true);
  auto pod = framework::NewPodInfo(Pod("p", 10, "2").Obj());
  auto state = runner.PreFilter(*pod, handle.SnapshotSharedLister().List());
  framework::NodeToStatus filtered = {{"n1", framework::Status::Unschedulable("Insufficient cpu")}};
  NominatingInfo result;
  ASSERT_TRUE(pl.PostFilter(*state, *pod, filtered, runner, result).IsSuccess());
  ASSERT_EQ(handle.tasks.size(), 1u);
  handle.tasks[0]();
  EXPECT_EQ(handle.victim->cause, "preempted by DefaultPreemption");
  EXPECT_TRUE(handle.write_calls().empty()) << "neither the condition nor a deletion";
  auto events = handle.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].note, "Preempted by pod uid-p on node n1 (in kube-scheduler memory).");
  EXPECT_EQ(handle.activated(), std::vector<std::string>{"default/p"});
}

TEST(PreEnqueue, SynchronousPreemptionNeverHolds) {
  stowage::testing::FakeHandle handle;
  DefaultPreemption pl({10, 100}, handle, /*async=*/false);
  EXPECT_TRUE(pl.PreEnqueue(*Pod("p", 10, "1").Obj()).IsSuccess());
  EXPECT_TRUE(pl.EventsToRegister().empty());
}

}  // namespace
}  // namespace stowage::plugins::default_preemption::default_preemption_test
