// The scheduling queue with a fake clock: ordering, backoff arithmetic, hint-driven moves,
// gating, in-flight events and the unschedulable leftover flush.
#include <gtest/gtest.h>
#include <prometheus/gauge.h>

#include <ostream>
#include <set>
#include <thread>

#include "pkg/metrics/metrics.h"
#include "pkg/queue/scheduling_queue.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"
#include "tests/unit/queue/queue_testing.h"

namespace stowage::queue::queue_test {

// gtest prints the sizes by name when a comparison fails.
void PrintTo(const SchedulingQueue::Sizes& s, std::ostream* os) {
  *os << "{active " << s.active << ", backoff " << s.backoff << ", unschedulable "
      << s.unschedulable << ", flushed " << s.flushed << ", in-flight pods " << s.in_flight_pods
      << ", in-flight events " << s.in_flight_events << ", nominated " << s.nominated << "}";
}

namespace {

using namespace std::chrono_literals;
using framework::ClusterEvent;
using framework::EventResource;
using testing::BuildNode;
using testing::BuildPod;

struct Sort : framework::QueueSortPlugin {
  std::string_view Name() const override { return "Sort"; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    int pa = a.pod().spec.priority.value_or(0), pb = b.pod().spec.priority.value_or(0);
    return pa != pb ? pa > pb : a.timestamp < b.timestamp;
  }
};
// Gates pods labelled gated=yes, and pods named in held (a state outside the pod, as an
// in-flight preemption); counts its calls.
struct Gate : framework::PreEnqueuePlugin, framework::EnqueueExtensions {
  static inline int calls = 0;
  static inline std::set<std::string> held;
  std::string_view Name() const override { return "Gate"; }
  framework::Status PreEnqueue(const api::Pod& pod) override {
    ++calls;
    const std::string* g = pod.metadata.labels.Get("gated");
    const bool gated = (g && *g == "yes") || held.count(pod.metadata.name);
    return gated ? framework::Status::Unresolvable("gated") : framework::Status();
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{{EventResource::kTargetPod, framework::kUpdate}, nullptr}};
  }
};
// Rejections fixed only by a node labelled ok=yes being added.
struct NeedsOkNode : framework::FilterPlugin, framework::EnqueueExtensions {
  std::string_view Name() const override { return "NeedsOkNode"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return {};
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    auto hint = [](const api::Pod&, const framework::EventObject&,
                   const framework::EventObject& n) {
      auto node = std::get<api::NodePtr>(n);
      const std::string* ok = node->metadata.labels.Get("ok");
      return ok && *ok == "yes" ? framework::QueueingHint::kQueue : framework::QueueingHint::kSkip;
    };
    return {{{EventResource::kNode, framework::kAdd}, hint}};
  }
};

// Rejections fixed only by the rejected pod's own scale-down (as NodeResourcesFit's TargetPod
// registration); no hint, so any matching event queues.
struct NeedsScaleDown : framework::FilterPlugin, framework::EnqueueExtensions {
  std::string_view Name() const override { return "NeedsScaleDown"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return {};
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{{EventResource::kTargetPod, framework::kUpdatePodScaleDown}, nullptr}};
  }
};

class QueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using testing::RegisterStub;
    ASSERT_TRUE(RegisterStub(registry_, "Sort", [] { return new Sort; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "Bind", [] { return new testing::StubBinder; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "Gate", [] { return new Gate; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "NeedsOkNode", [] { return new NeedsOkNode; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "NeedsScaleDown", [] { return new NeedsScaleDown; }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kPreEnqueue) = {{"Gate"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"NeedsOkNode"}, {"NeedsScaleDown"}};
    ASSERT_TRUE(NewQueue(registry_, spec, handle_, clock_, &fw_, &q_));
  }

  // Pops p and reports it rejected by plugin.
  void Reject(const std::string& name, const std::string& plugin = "NeedsOkNode") {
    auto p = q_->Pop();
    ASSERT_EQ(p->pod().metadata.name, name);
    p->unschedulable_plugins = {plugin};
    q_->AddUnschedulableIfNotPresent(p, false);
  }
  void AddNode(bool ok) {
    auto n = BuildNode().Name("n").Label("ok", ok ? "yes" : "no").Obj();
    q_->MoveAllToActiveOrBackoffQueue(framework::kEventNodeAdd, {}, n);
  }

  FakeClock clock_;
  framework::Registry registry_;
  testing::FakeHandle handle_;
  std::unique_ptr<framework::Framework> fw_;
  std::unique_ptr<SchedulingQueue> q_;
};

TEST_F(QueueTest, PopsByPriorityThenArrival) {
  q_->Add(BuildPod().Name("low").UID("1").Priority(1).Obj());
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("high").UID("2").Priority(10).Obj());
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("low-later").UID("3").Priority(1).Obj());
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "high");
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "low");
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "low-later");
}

TEST_F(QueueTest, RejectedPodWaitsForAnEventItsPluginCaresAbout) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p");
  EXPECT_EQ(q_->UnschedulableSize(), 1u);
  AddNode(false);  // the hint says this node does not help
  EXPECT_EQ(q_->UnschedulableSize(), 1u);
  AddNode(true);
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
  EXPECT_EQ(q_->BackoffSize(), 1u) << "still within its 1 s backoff";
  clock_.Advance(2s);
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(q_->ActiveSize(), 1u);
}

TEST_F(QueueTest, APodAnExtenderRejectedMovesOnAnyEventOnlyWithExtenders) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p", "Extender");
  AddNode(false);
  EXPECT_EQ(q_->UnschedulableSize(), 1u) << "no extenders configured: nothing registered";
  q_ = std::make_unique<SchedulingQueue>(
      std::map<std::string, framework::Framework*>{{"default-scheduler", fw_.get()}},
      QueueOptions{.extenders = true}, clock_);
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p", "Extender");
  AddNode(false);  // a node no plugin's hint likes still may suit the extender
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
}

TEST_F(QueueTest, BackoffDoublesFromOneToTenSeconds) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  for (int expected : {1, 2, 4, 8, 10, 10}) {
    Reject("p");
    AddNode(true);  // straight to backoffQ
    ASSERT_EQ(q_->BackoffSize(), 1u);
    clock_.Advance(std::chrono::seconds(expected) - 1ms);
    q_->FlushBackoffQCompleted();
    EXPECT_EQ(q_->BackoffSize(), 1u) << "backoff of " << expected << "s not over yet";
    clock_.Advance(1s + 1ms);
    q_->FlushBackoffQCompleted();
    EXPECT_EQ(q_->ActiveSize(), 1u) << "backoff of " << expected << "s is over";
  }
}

TEST_F(QueueTest, EventsDuringTheCycleAreNotLost) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  auto p = q_->Pop();
  AddNode(true);  // arrives while p is being scheduled
  p->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(p, false);
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
  EXPECT_EQ(q_->BackoffSize(), 1u);
}

TEST_F(QueueTest, APodReplaysOnlyTheEventsAfterItWasPopped) {
  q_->Add(BuildPod().Name("a").UID("a").Obj());
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("b").UID("b").Obj());
  auto a = q_->Pop();
  AddNode(true);  // while a is in flight, before b is popped
  auto b = q_->Pop();
  b->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(b, false);
  EXPECT_EQ(q_->UnschedulableSize(), 1u) << "the node came before b's attempt, which saw it";
  a->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(a, false);
  EXPECT_EQ(q_->BackoffSize(), 1u) << "a's attempt may have missed the node";
}

TEST_F(QueueTest, EventsNoInFlightPodNeedsAreDropped) {
  prometheus::Gauge& retained = metrics::InflightEvents("NodeAdd");
  const double before = retained.Value();
  q_->Add(BuildPod().Name("a").UID("a").Obj());
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("b").UID("b").Obj());
  auto a = q_->Pop();
  AddNode(false);  // needed by a only
  auto b = q_->Pop();
  AddNode(false);  // needed by both
  AddNode(false);
  EXPECT_EQ(retained.Value() - before, 3);
  q_->Done(b->pod());
  EXPECT_EQ(retained.Value() - before, 3) << "a still needs all three";
  q_->Done(a->pod());
  EXPECT_EQ(retained.Value() - before, 0) << "nothing in flight";
  auto c = BuildPod().Name("c").UID("c").Obj();
  q_->Add(c);
  auto cp = q_->Pop();
  AddNode(false);
  q_->Add(BuildPod().Name("d").UID("d").Obj());
  auto d = q_->Pop();
  AddNode(false);
  q_->Done(cp->pod());
  EXPECT_EQ(retained.Value() - before, 1) << "only the event after d was popped is kept";
  q_->Done(d->pod());
  EXPECT_EQ(retained.Value() - before, 0);
}

TEST_F(QueueTest, PopTakesABackingOffPodWhenNothingElseIsActive) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p");
  AddNode(true);
  ASSERT_EQ(q_->BackoffSize(), 1u);
  auto p = q_->Pop();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->attempts, 2);
}

// Upstream keeps pods that failed with an error in a backoff heap of their own that an idle
// scheduler never pops: a failing API call is not retried in a tight loop.
TEST_F(QueueTest, PopDoesNotTakeAPodBackingOffFromAnError) {
  q_->Add(BuildPod().Name("error").UID("e").Obj());
  q_->AddUnschedulableIfNotPresent(q_->Pop(), /*error=*/true);
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("rejected").UID("r").Obj());
  Reject("rejected");
  AddNode(true);
  ASSERT_EQ(q_->BackoffSize(), 2u);
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "rejected") << "though its backoff ends later";
  clock_.Advance(2s);
  q_->FlushBackoffQCompleted();
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "error") << "once its backoff is over";
}

TEST_F(QueueTest, GatedPodWaitsUntilUngated) {
  auto gated =
      BuildPod().Name("g").UID("g").SchedulerName("default-scheduler").Label("gated", "yes").Obj();
  q_->Add(gated);
  EXPECT_EQ(q_->ActiveSize(), 0u);
  EXPECT_TRUE(q_->IsInUnschedulable(*gated));
  q_->Update(
      gated,
      BuildPod().Name("g").UID("g").SchedulerName("default-scheduler").Label("gated", "no").Obj());
  EXPECT_EQ(q_->ActiveSize(), 1u);
}

// Upstream runs PreEnqueue on the way into backoffQ: a pod held meanwhile (a preemptor whose
// victims are being evicted) must not reach backoffQ, from which an idle scheduler pops it.
TEST_F(QueueTest, ABackingOffPodPassesPreEnqueueOnItsWayIntoBackoff) {
  auto pod = BuildPod().Name("p").UID("p").SchedulerName("default-scheduler").Obj();
  q_->Add(pod);
  Reject("p");
  Gate::held = {"p"};
  AddNode(true);
  Gate::held.clear();
  EXPECT_EQ(q_->BackoffSize(), 0u);
  EXPECT_TRUE(q_->IsInUnschedulable(*pod)) << "held as gated";
  q_->Activate(*pod);
  EXPECT_EQ(q_->ActiveSize(), 1u) << "released once its gate opens";
}

TEST_F(QueueTest, LeftoversAreFlushedAfterFiveMinutes) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p");
  clock_.Advance(4min);
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(q_->UnschedulableSize(), 1u);
  clock_.Advance(61s);
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
}

TEST_F(QueueTest, APodsOwnStatusWriteDoesNotRequeueIt) {
  auto pod = BuildPod().Name("p").UID("p").Req({{"cpu", "2"}}).Obj();
  q_->Add(pod);
  Reject("p", "NeedsScaleDown");
  // The scheduler's PodScheduled=False write: a change no plugin registered for.
  auto written = std::make_shared<api::Pod>(*pod);
  written->status.conditions.push_back({"PodScheduled", "False", "Unschedulable", "0/1 nodes", ""});
  q_->Update(pod, written);
  EXPECT_TRUE(q_->IsInUnschedulable(*pod)) << "an unclassified update is no scale-down";
  // The pod's own scale-down is what its rejecting plugin waits for.
  auto smaller = BuildPod().Name("p").UID("p").Req({{"cpu", "1"}}).Obj();
  q_->Update(written, smaller);
  EXPECT_FALSE(q_->IsInUnschedulable(*pod));
  EXPECT_EQ(q_->BackoffSize(), 1u);
}

TEST_F(QueueTest, AnotherPodsUpdateDoesNotReachTargetPodRegistrations) {
  q_->Add(BuildPod().Name("p").UID("p").Req({{"cpu", "2"}}).Obj());
  Reject("p", "NeedsScaleDown");
  auto other = BuildPod().Name("o").UID("o").Req({{"cpu", "2"}}).Obj();
  auto other_smaller = BuildPod().Name("o").UID("o").Req({{"cpu", "1"}}).Obj();
  for (const ClusterEvent& ev : framework::PodSchedulingPropertiesChange(*other_smaller, *other,
                                                                         /*is_target_pod=*/false)) {
    q_->MoveAllToActiveOrBackoffQueue(ev, other, other_smaller);
  }
  EXPECT_EQ(q_->UnschedulableSize(), 1u);
}

TEST_F(QueueTest, AFlushedGatedPodWaitsFiveMinutesFromTheFlush) {
  auto gated =
      BuildPod().Name("g").UID("g").SchedulerName("default-scheduler").Label("gated", "yes").Obj();
  q_->Add(gated);
  clock_.Advance(5min + 1s);
  Gate::calls = 0;
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Gate::calls, 1) << "flushed once the 5 minutes since its add are over";
  EXPECT_TRUE(q_->IsInUnschedulable(*gated)) << "still gated";
  clock_.Advance(30s);
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Gate::calls, 1) << "1.37 counts the 5 minutes again from the flush";
  clock_.Advance(5min);
  q_->FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Gate::calls, 2);
}

TEST_F(QueueTest, EventsNoPluginRegisteredAreNotKeptForPodsInFlight) {
  prometheus::Gauge& retained = metrics::InflightEvents("NodeDelete");
  const double before = retained.Value();
  q_->Add(BuildPod().Name("a").UID("a").Obj());
  auto a = q_->Pop();
  q_->MoveAllToActiveOrBackoffQueue(framework::kEventNodeDelete, BuildNode().Name("n").Obj(), {});
  EXPECT_EQ(retained.Value() - before, 0);
  q_->Done(a->pod());
}

TEST_F(QueueTest, ErrorsBackOffWithoutWaitingForEvents) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  auto p = q_->Pop();
  q_->AddUnschedulableIfNotPresent(p, /*error=*/true);
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
  EXPECT_EQ(q_->BackoffSize(), 1u);
  EXPECT_EQ(p->consecutive_errors_count, 1);
}

TEST_F(QueueTest, DeleteRemovesFromEveryQueue) {
  auto p = BuildPod().Name("p").UID("p").Obj();
  q_->Add(p);
  Reject("p");
  q_->Delete(*p);
  EXPECT_EQ(q_->UnschedulableSize() + q_->ActiveSize() + q_->BackoffSize(), 0u);
}

TEST_F(QueueTest, NominatorTracksNominatedNodeNames) {
  auto p = BuildPod()
               .Name("p")
               .UID("p")
               .SchedulerName("default-scheduler")
               .NominatedNodeName("n1")
               .Obj();
  q_->Add(p);
  auto nominated = q_->NominatedPods();
  ASSERT_EQ(nominated.count("n1"), 1u);
  EXPECT_EQ(nominated["n1"][0]->pod->metadata.name, "p");
  // Moving the nomination to another node.
  auto moved = BuildPod()
                   .Name("p")
                   .UID("p")
                   .SchedulerName("default-scheduler")
                   .NominatedNodeName("n2")
                   .Obj();
  q_->Update(p, moved);
  nominated = q_->NominatedPods();
  EXPECT_EQ(nominated.count("n1"), 0u);
  ASSERT_EQ(nominated.count("n2"), 1u);
  // Assumed on a node: no longer a nomination.
  q_->DeleteNominatedPodIfExists(*moved);
  EXPECT_TRUE(q_->NominatedPods().empty());
  // Deleted pods drop their nomination too.
  auto other = BuildPod()
                   .Name("o")
                   .UID("o")
                   .SchedulerName("default-scheduler")
                   .NominatedNodeName("n3")
                   .Obj();
  q_->Add(other);
  q_->Delete(*other);
  EXPECT_TRUE(q_->NominatedPods().empty());
}

// Preemption nominates in memory before the status patch is seen (upstream AddNominatedPod);
// an update carrying no nomination on either side keeps it (UpdateNominatedPod), one that
// names or clears a node wins.
TEST_F(QueueTest, AnInMemoryNominationSurvivesUpdatesThatDoNotCarryIt) {
  auto p = BuildPod().Name("p").UID("p").SchedulerName("default-scheduler").Priority(5).Obj();
  q_->Add(p);
  q_->AddNominatedPod(framework::NewPodInfo(p), {framework::NominatingInfo::Mode::kOverride, "n1"});
  ASSERT_EQ(q_->NominatedPodsForNode("n1").size(), 1u);
  auto relabelled =
      BuildPod().Name("p").UID("p").SchedulerName("default-scheduler").Priority(5).Label("a", "b");
  q_->Update(p, relabelled.Obj());
  ASSERT_EQ(q_->NominatedPodsForNode("n1").size(), 1u) << "an unrelated update keeps it";
  EXPECT_EQ(q_->NominatedPodsForNode("n1")[0]->pod->metadata.labels.size(), 1u)
      << "with the updated pod";
  // Noop keeps what the pod's status says (nothing here); an Override of "" clears.
  q_->AddNominatedPod(framework::NewPodInfo(relabelled.Obj()), {});
  EXPECT_TRUE(q_->NominatedPodsForNode("n1").empty());
  auto patched = relabelled.NominatedNodeName("n2").Obj();
  q_->AddNominatedPod(framework::NewPodInfo(patched), {});
  EXPECT_EQ(q_->NominatedPodsForNode("n2").size(), 1u) << "Noop keeps the status' nomination";
  q_->AddNominatedPod(framework::NewPodInfo(patched),
                      {framework::NominatingInfo::Mode::kOverride, ""});
  EXPECT_TRUE(q_->NominatedPods().empty());
}

// Upstream's Activate: a pod held by a PreEnqueue plugin runs it again at once.
TEST_F(QueueTest, ActivateRunsPreEnqueueAgainForAGatedPod) {
  auto gated =
      BuildPod().Name("g").UID("g").SchedulerName("default-scheduler").Label("gated", "yes").Obj();
  q_->Add(gated);
  ASSERT_TRUE(q_->IsInUnschedulable(*gated));
  const int calls = Gate::calls;
  q_->Activate(*gated);
  EXPECT_EQ(Gate::calls, calls + 1);
  EXPECT_TRUE(q_->IsInUnschedulable(*gated)) << "still gated";
  auto other = BuildPod().Name("o").UID("o").SchedulerName("default-scheduler").Obj();
  q_->Add(other);
  Reject("o");
  ASSERT_TRUE(q_->IsInUnschedulable(*other));
  q_->Activate(*other);
  EXPECT_EQ(q_->ActiveSize(), 1u);
}

// A pod with resource claims passes PreEnqueue again as it leaves activeQ: one held since it
// was queued (a claim it shares went into another pod's binding cycle) is set aside without an
// attempt and the next pod is popped; a pod without claims is not asked again.
TEST_F(QueueTest, APodWithClaimsHeldSinceItWasQueuedIsSetAsideByPop) {
  auto with_claim = [](const std::string& name) {
    return BuildPod()
        .Name(name)
        .UID(name)
        .SchedulerName("default-scheduler")
        .ResourceClaims({{"gpu", "shared", std::nullopt}})
        .Obj();
  };
  auto a = with_claim("a");
  auto b = BuildPod().Name("b").UID("b").SchedulerName("default-scheduler").Obj();
  q_->Add(a);
  clock_.Advance(std::chrono::seconds(1));
  q_->Add(b);
  ASSERT_EQ(q_->ActiveSize(), 2u);
  Gate::held = {"a", "b"};
  const int calls = Gate::calls;
  auto p = q_->Pop();
  Gate::held.clear();
  ASSERT_EQ(p->pod().metadata.name, "b");
  EXPECT_EQ(Gate::calls, calls + 1);
  EXPECT_TRUE(q_->IsInUnschedulable(*a));
  q_->Activate(*a);
  auto again = q_->Pop();
  ASSERT_EQ(again->pod().metadata.name, "a");
  EXPECT_EQ(again->attempts, 1) << "being held is not an attempt";
}

// Activate finds the pod by namespace and name, as upstream's: a pod recreated under the name
// of the one asked for is activated rather than taken out of the queue and lost.
TEST_F(QueueTest, ActivateOfAnEarlierIncarnationActivatesThePodQueuedUnderItsName) {
  auto now = BuildPod().Name("p").UID("new").SchedulerName("default-scheduler").Obj();
  q_->Add(now);
  Reject("p");
  ASSERT_TRUE(q_->IsInUnschedulable(*now));
  q_->Activate(*BuildPod().Name("p").UID("old").Obj());
  EXPECT_FALSE(q_->IsInUnschedulable(*now));
  EXPECT_EQ(q_->ActiveSize(), 1u);
}

// Cases from upstream's scheduling_queue_test.go.

TEST_F(QueueTest, UpdatingAnActivePodReplacesItInPlace) {
  auto pod = BuildPod().Name("p").UID("p").Obj();
  q_->Add(pod);
  q_->Update(pod, BuildPod().Name("p").UID("p").Label("v", "2").Obj());
  EXPECT_EQ(q_->ActiveSize(), 1u);
  auto popped = q_->Pop();
  ASSERT_NE(popped->pod().metadata.labels.Get("v"), nullptr) << "the updated object is popped";
  EXPECT_EQ(q_->ActiveSize() + q_->BackoffSize() + q_->UnschedulableSize(), 0u);
}

TEST_F(QueueTest, AFailedPodIsNotAddedAgainWhenItIsQueuedAlready) {
  auto pod = BuildPod().Name("p").UID("p").Obj();
  q_->Add(pod);
  auto popped = q_->Pop();
  q_->Add(pod);  // e.g. the informer delivered the pod again
  popped->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(popped, false);
  EXPECT_EQ(q_->ActiveSize(), 1u);
  EXPECT_EQ(q_->UnschedulableSize(), 0u);
}

TEST_F(QueueTest, AMovedPodWhoseBackoffIsOverGoesStraightToActive) {
  q_->Add(BuildPod().Name("p").UID("p").Obj());
  Reject("p");
  clock_.Advance(2s);
  AddNode(true);
  EXPECT_EQ(q_->ActiveSize(), 1u);
  EXPECT_EQ(q_->BackoffSize(), 0u);
}

// Each failure stamps the pod anew, so a pod failing again and again goes behind newer pods of
// equal priority instead of blocking them.
TEST_F(QueueTest, APodFailingRepeatedlyDoesNotBlockANewerPod) {
  q_->Add(BuildPod().Name("old").UID("old").Obj());
  Reject("old");
  clock_.Advance(1ms);
  q_->Add(BuildPod().Name("new").UID("new").Obj());
  clock_.Advance(2s);
  AddNode(true);  // "old" is active again, stamped before "new" was added
  Reject("old");  // popped first, fails again
  clock_.Advance(3s);
  AddNode(true);
  q_->FlushBackoffQCompleted();
  ASSERT_EQ(q_->ActiveSize(), 2u);
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "new");
  EXPECT_EQ(q_->Pop()->pod().metadata.name, "old");
}

// Every way through the queue, then every pod deleted: no part keeps anything of them.
TEST_F(QueueTest, DeletedPodsLeaveNothingBehind) {
  std::vector<api::PodPtr> pods;
  auto add = [&](const std::string& name, bool gated = false) {
    auto w = BuildPod().Name(name).UID(name).SchedulerName("default-scheduler");
    if (gated) w.Label("gated", "yes");
    pods.push_back(w.Obj());
    q_->Add(pods.back());
    return pods.back();
  };
  add("rejected");
  Reject("rejected");
  add("erred");
  q_->AddUnschedulableIfNotPresent(q_->Pop(), /*error=*/true);  // backoffQ
  add("flushed");
  Reject("flushed");
  clock_.Advance(5min + 1s);
  q_->FlushUnschedulablePodsLeftover();  // both rejected pods, back in activeQ
  auto in_flight = q_->Pop();
  auto nominated = add("nominated");
  q_->AddNominatedPod(framework::NewPodInfo(nominated),
                      {framework::NominatingInfo::Mode::kOverride, "n1"});
  add("gated", /*gated=*/true);
  AddNode(false);  // kept for the pod in flight
  const SchedulingQueue::Sizes held = q_->SizesForTest();
  EXPECT_EQ(held.active, 2u);
  EXPECT_EQ(held.backoff, 1u);
  EXPECT_EQ(held.unschedulable, 1u);
  EXPECT_EQ(held.flushed, 2u);
  EXPECT_EQ(held.in_flight_pods, 1u);
  EXPECT_EQ(held.in_flight_events, 1u);
  EXPECT_EQ(held.nominated, 1u);
  for (const api::PodPtr& p : pods) q_->Delete(*p);
  q_->Done(in_flight->pod());  // its cycle ends after its deletion, as the scheduler's may
  EXPECT_EQ(q_->SizesForTest(), SchedulingQueue::Sizes{});
}

// A failed pod that the informer queued again meanwhile is no longer in flight: upstream's
// AddUnschedulableIfNotPresent calls Done in any case. Kept in flight, it would hold every later
// event in the log until it was popped again.
TEST_F(QueueTest, AFailedPodQueuedAlreadyIsNoLongerInFlight) {
  auto pod = BuildPod().Name("p").UID("p").Obj();
  q_->Add(pod);
  auto popped = q_->Pop();
  q_->Add(pod);
  popped->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(popped, false);
  AddNode(false);
  q_->Delete(*pod);
  EXPECT_EQ(q_->SizesForTest(), SchedulingQueue::Sizes{});
}

TEST_F(QueueTest, CloseWakesABlockedPop) {
  QueuedPodInfoPtr got = std::make_shared<framework::QueuedPodInfo>();
  std::thread popper([&] { got = q_->Pop(); });
  q_->Close();
  popper.join();  // a Pop left blocked would hang here
  EXPECT_EQ(got, nullptr);
}

// Explain asks where a pod waits: each part of the queue answers with its own state.
class QueueStateTest : public QueueTest {};

TEST_F(QueueStateTest, EachPartSaysWhereThePodWaitsAndWhy) {
  auto p = BuildPod().Name("p").UID("p").Obj();
  EXPECT_FALSE(q_->StateOf(*p).has_value());
  q_->Add(p);
  ASSERT_TRUE(q_->StateOf(*p).has_value());
  EXPECT_EQ(q_->StateOf(*p)->where, "active");
  auto popped = q_->Pop();
  EXPECT_EQ(q_->StateOf(*p)->where, "scheduling");
  popped->unschedulable_plugins = {"NeedsOkNode"};
  q_->AddUnschedulableIfNotPresent(popped, false);
  clock_.Advance(std::chrono::milliseconds(200));
  auto s = q_->StateOf(*p);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->where, "unschedulable");
  EXPECT_EQ(s->attempts, 1);
  EXPECT_NEAR(s->seconds_queued, 0.2, 1e-9);
  EXPECT_EQ(s->rejected_by, std::set<std::string>{"NeedsOkNode"});
  // An event its plugin registered for moves it to backoff, whose first second is not over.
  AddNode(true);
  s = q_->StateOf(*p);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->where, "backoff");
  EXPECT_NEAR(s->seconds_until_retry, 0.8, 1e-9);

  auto gated =
      BuildPod().Name("g").UID("g").SchedulerName("default-scheduler").Label("gated", "yes").Obj();
  q_->Add(gated);
  EXPECT_EQ(q_->StateOf(*gated)->where, "gated");
  q_->Delete(*gated);
  EXPECT_FALSE(q_->StateOf(*gated).has_value());
}

}  // namespace
}  // namespace stowage::queue::queue_test
