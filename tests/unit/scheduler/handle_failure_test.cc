// What the scheduler does after a failed attempt, over a scripted API server: the pod it writes
// about stays alive when the informer drops or replaces it concurrently, the event and the
// PodScheduled patch are about the pod as the informer holds it (observedGeneration included),
// a pod recreated meanwhile is left alone, and a conflicting patch is sent again.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::handle_failure_test {
namespace {

using json = nlohmann::json;
using testing::Eventually;
using testing::StatusPath;

constexpr char kPods[] = "/api/v1/pods";
constexpr char kEvents[] = "/apis/events.k8s.io/v1/namespaces/ns/events";

json Pod(const std::string& name, const std::string& uid, int64_t generation = 1,
         const std::string& scheduler = "default-scheduler") {
  return testing::PodJson(name, uid, generation, scheduler);
}

// Rejects every node; blocks first while hold is set, so a test can change the cluster while
// the pod is in flight.
struct RejectAll : framework::FilterPlugin {
  static inline std::atomic<bool> hold{false};
  static inline std::atomic<bool> holding{false};
  std::string_view Name() const override { return "RejectAll"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    holding = true;
    while (hold) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    holding = false;
    return framework::Status::Unschedulable("rejected");
  }
};

// A PostFilter (in the role of preemption) that finds nothing to do and says so; it records how
// many node statuses it was given.
struct NoVictims : framework::PostFilterPlugin {
  static inline std::atomic<int> calls{0};
  static inline std::atomic<size_t> filtered{0};
  // When set, it nominates the node instead, as a successful preemption does.
  static inline std::atomic<bool> nominate{false};
  std::string_view Name() const override { return "NoVictims"; }
  framework::Status PostFilter(framework::CycleState&, const framework::PodInfo&,
                               const framework::NodeToStatus& statuses, framework::PluginsRunner&,
                               framework::NominatingInfo& result) override {
    ++calls;
    filtered = statuses.size();
    if (nominate) {
      result = {framework::NominatingInfo::Mode::kOverride, "node-a"};
      return framework::Status(framework::Code::kSuccess, "preemption: found a placement");
    }
    return framework::Status::Unschedulable(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  }
};

class HandleFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RejectAll::hold = false;
    NoVictims::nominate = false;
  }

  // Starts the scheduler with the pods listed at first.
  void Start(std::vector<json> pods) {
    ASSERT_TRUE(stowage::testing::RegisterStub(h_.registry(), "RejectAll", [] {
                  return new RejectAll;
                }).ok());
    framework::ProfileSpec spec = testing::SchedulerHarness::Profile();
    spec.at(framework::ExtensionPoint::kFilter) = {{"RejectAll"}};
    if (with_post_filter_) {
      ASSERT_TRUE(stowage::testing::RegisterStub(h_.registry(), "NoVictims", [] {
                    return new NoVictims;
                  }).ok());
      spec.at(framework::ExtensionPoint::kPostFilter) = {{"NoVictims"}};
    }
    h_.options().binding_workers = 1;
    h_.Start(std::move(pods), spec);
    sched_ = &h_.scheduler();
    api_ = &h_.api();
  }

  void TearDown() override {
    RejectAll::hold = false;
    h_.Stop();
  }

  bool InStore(const std::string& name, int64_t generation = 0) {
    return h_.InStore(name, generation);
  }
  // The JSON bodies of the FailedScheduling events written so far.
  std::vector<json> FailedSchedulingEvents() {
    std::vector<json> out;
    for (const auto& r : api_->Requests("POST", kEvents)) out.push_back(json::parse(r.body));
    return out;
  }

  testing::SchedulerHarness h_;
  Options& options_ = h_.options();
  testing::FakeApiServer* api_ = &h_.api();
  Scheduler* sched_ = nullptr;
  bool with_post_filter_ = false;
};

// The pod changes while it is being scheduled (so the informer no longer holds the object the
// queue gave out), then is deleted right after it is handed back to the queue: the queue lets
// go of the last reference to the object the attempt started with. The event and the status
// patch must still name the pod; reading it through the queue's entry was a use after free
// (std::bad_alloc in the field; AddressSanitizer reports it in this test).
TEST_F(HandleFailureTest, PodChangedThenDeletedOnceRequeuedIsStillWrittenAbout) {
  std::atomic<bool> once{false};
  options_.after_failure_requeue_for_test = [&] {
    if (once.exchange(true)) return;
    api_->Push(kPods, "DELETED", Pod("doomed", "u1", 2));
    // Events are handled in order: once the marker is in, the deletion has been handled.
    api_->Push(kPods, "ADDED", Pod("marker", "u2", 1, "other-scheduler"));
    ASSERT_TRUE(Eventually([&] { return InStore("marker") && !InStore("doomed"); }));
    EXPECT_EQ(sched_->queue().UnschedulableSize() + sched_->queue().BackoffSize(), 0u);
  };
  RejectAll::hold = true;
  Start({Pod("doomed", "u1", 1)});
  ASSERT_TRUE(Eventually([&] { return RejectAll::holding.load(); }));
  api_->Push(kPods, "MODIFIED", Pod("doomed", "u1", 2));
  ASSERT_TRUE(Eventually([&] { return InStore("doomed", 2); }));
  RejectAll::hold = false;
  ASSERT_TRUE(Eventually([&] { return !api_->Requests("PATCH", StatusPath("doomed")).empty(); }));
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingEvents().empty(); }));
  json event = FailedSchedulingEvents().front();
  EXPECT_EQ(event["regarding"]["name"], "doomed");
  EXPECT_EQ(event["regarding"]["uid"], "u1");
  EXPECT_EQ(event["note"], "0/1 nodes are available: 1 rejected.");
}

// As upstream's schedulingCycle, PostFilter runs after a FitError with the nodes' statuses, and
// its message ends the failure message (FitError's PostFilterMsg).
TEST_F(HandleFailureTest, PostFilterRunsAfterAFitErrorAndItsMessageIsReported) {
  NoVictims::calls = 0;
  with_post_filter_ = true;
  Start({Pod("p", "u1", 1)});
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingEvents().empty(); }));
  EXPECT_EQ(NoVictims::calls.load(), 1);
  EXPECT_EQ(NoVictims::filtered.load(), 1u);
  EXPECT_EQ(FailedSchedulingEvents().front()["note"],
            "0/1 nodes are available: 1 rejected. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
}

// As upstream's handleSchedulingFailure, PostFilter's nomination is written to
// status.nominatedNodeName and recorded by the nominator at once, before the patch comes back
// through the informer, so the next cycles already keep the room.
TEST_F(HandleFailureTest, APostFilterNominationIsPatchedAndKeptByTheNominator) {
  NoVictims::nominate = true;
  with_post_filter_ = true;
  Start({Pod("p", "u1", 1)});
  ASSERT_TRUE(Eventually([&] { return !api_->Requests("PATCH", StatusPath("p")).empty(); }));
  NoVictims::nominate = false;
  json patch = json::parse(api_->Requests("PATCH", StatusPath("p")).front().body);
  EXPECT_EQ(patch["status"]["nominatedNodeName"], "node-a");
  auto nominated = sched_->queue().NominatedPodsForNode("node-a");
  ASSERT_EQ(nominated.size(), 1u);
  EXPECT_EQ(nominated[0]->pod->metadata.name, "p");
  ASSERT_TRUE(Eventually([&] { return !FailedSchedulingEvents().empty(); }));
  EXPECT_EQ(FailedSchedulingEvents().front()["note"],
            "0/1 nodes are available: 1 rejected. preemption: found a placement");
}

// The pod changed while it was being scheduled (a new generation): the patch is computed from
// the informer's pod, as upstream's, so it reports the generation the scheduler last saw.
TEST_F(HandleFailureTest, PatchReportsTheGenerationTheInformerHolds) {
  RejectAll::hold = true;
  Start({Pod("p", "u1", 1)});
  ASSERT_TRUE(Eventually([&] { return RejectAll::holding.load(); }));
  api_->Push(kPods, "MODIFIED", Pod("p", "u1", 2));
  ASSERT_TRUE(Eventually([&] { return InStore("p", 2); }));
  RejectAll::hold = false;
  ASSERT_TRUE(Eventually([&] { return !api_->Requests("PATCH", StatusPath("p")).empty(); }));
  json patch = json::parse(api_->Requests("PATCH", StatusPath("p")).front().body);
  EXPECT_EQ(patch["status"]["conditions"][0]["observedGeneration"], 2) << patch.dump();
  EXPECT_EQ(patch["status"]["conditions"][0]["reason"], "Unschedulable");
}

// A pod deleted and created again under the same name while its predecessor was being
// scheduled is not the failed pod: upstream neither requeues, nor records, nor patches.
TEST_F(HandleFailureTest, RecreatedPodIsLeftAlone) {
  RejectAll::hold = true;
  Start({Pod("p", "u1", 1)});
  ASSERT_TRUE(Eventually([&] { return RejectAll::holding.load(); }));
  // The new pod gets a profile nobody runs, so only the old pod's failure could write.
  api_->Push(kPods, "DELETED", Pod("p", "u1"));
  api_->Push(kPods, "ADDED", Pod("p", "u2", 1, "other-scheduler"));
  api_->Push(kPods, "ADDED", Pod("marker", "u3", 1, "other-scheduler"));
  ASSERT_TRUE(Eventually([&] { return InStore("marker"); }));
  RejectAll::hold = false;
  // A later failure of another pod shows that the first one has been handled.
  api_->Push(kPods, "ADDED", Pod("later", "u4"));
  ASSERT_TRUE(Eventually([&] { return !api_->Requests("PATCH", StatusPath("later")).empty(); }));
  EXPECT_TRUE(api_->Requests("PATCH", StatusPath("p")).empty());
  for (const auto& e : FailedSchedulingEvents()) EXPECT_NE(e["regarding"]["name"], "p");
  EXPECT_EQ(sched_->queue().UnschedulableSize() + sched_->queue().BackoffSize(), 1u);
}

// 1.37 sends the PodScheduled patch again when the API server answers Conflict.
TEST_F(HandleFailureTest, ConflictingStatusPatchIsRetried) {
  std::atomic<int> patches{0};
  api_->SetAnswer([&](const client::HttpRequest& r) -> std::optional<int> {
    if (r.method == "PATCH" && r.target == StatusPath("p") && patches++ < 2) return 409;
    return std::nullopt;
  });
  Start({Pod("p", "u1")});
  ASSERT_TRUE(Eventually([&] { return api_->Requests("PATCH", StatusPath("p")).size() == 3; }));
  auto sent = api_->Requests("PATCH", StatusPath("p"));
  EXPECT_EQ(sent[0].body, sent[2].body);
}

}  // namespace
}  // namespace stowage::scheduler::handle_failure_test
