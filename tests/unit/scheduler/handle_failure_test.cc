// What the scheduler does after a failed attempt, over a scripted API server: the pod it writes
// about stays alive when the informer drops or replaces it concurrently, the event and the
// PodScheduled patch are about the pod as the informer holds it (observedGeneration included),
// a pod recreated meanwhile is left alone, and a conflicting patch is sent again.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "pkg/framework/runtime.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/scheduler.h"
#include "tests/testing/stub_plugins.h"
#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::scheduler {
namespace {

using json = nlohmann::json;
using testing::Eventually;
using testing::FakeApiServer;

constexpr char kPods[] = "/api/v1/pods";
constexpr char kEvents[] = "/apis/events.k8s.io/v1/namespaces/ns/events";

json Pod(const std::string& name, const std::string& uid, int64_t generation = 1,
         const std::string& scheduler = "default-scheduler") {
  return {{"metadata",
           {{"namespace", "ns"}, {"name", name}, {"uid", uid}, {"generation", generation},
            {"resourceVersion", std::to_string(100 + generation)}}},
          {"spec", {{"schedulerName", scheduler}, {"containers", {{{"name", "c"}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

std::string StatusPath(const std::string& name) {
  return "/api/v1/namespaces/ns/pods/" + name + "/status";
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

class HandleFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RejectAll::hold = false;
    api_ = new FakeApiServer;
    api_->SetList("/api/v1/nodes",
                  {json{{"metadata", {{"name", "node-a"}, {"uid", "n1"}}},
                        {"status", {{"allocatable", {{"cpu", "4"}, {"pods", "110"}}}}}}});
    client::RestConfig cfg;
    cfg.qps = 0;
    client_ = std::make_unique<client::RestClient>(cfg, std::unique_ptr<client::Transport>(api_),
                                                   client::RetryPolicy{.max_retries = 0});
    informers_ = std::make_unique<informer::InformerFactory>(*client_);
  }

  // Starts the scheduler with the pods listed at first.
  void Start(std::vector<json> pods) {
    api_->SetList(kPods, std::move(pods));
    ASSERT_TRUE(stowage::testing::RegisterSortAndBind(registry_).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "RejectAll", [] {
                  return new RejectAll;
                }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.queue_sort = {{"Sort"}};
    spec.bind = {{"Bind"}};
    spec.filter = {{"RejectAll"}};
    options_.binding_workers = 1;
    sched_ = std::make_unique<Scheduler>(*client_, *informers_, options_);
    ASSERT_TRUE(sched_->Init(registry_, {spec}).ok());
    informers_->Start();
    ASSERT_TRUE(informers_->WaitForCacheSync(std::chrono::seconds(10)));
    loop_ = std::jthread([this](std::stop_token stop) { sched_->Run(stop); });
  }

  void TearDown() override {
    RejectAll::hold = false;
    if (loop_.joinable()) {
      loop_.request_stop();
      loop_.join();
    }
    informers_->Stop();
    sched_.reset();
  }

  bool InStore(const std::string& name, int64_t generation = 0) {
    for (const auto& p : sched_->ListPods()) {
      if (p->metadata.name == name &&
          (generation == 0 || p->metadata.generation == generation)) {
        return true;
      }
    }
    return false;
  }
  // The JSON bodies of the FailedScheduling events written so far.
  std::vector<json> FailedSchedulingEvents() {
    std::vector<json> out;
    for (const auto& r : api_->Requests("POST", kEvents)) out.push_back(json::parse(r.body));
    return out;
  }

  FakeApiServer* api_;  // owned by client_
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<informer::InformerFactory> informers_;
  framework::Registry registry_;
  Options options_;
  std::unique_ptr<Scheduler> sched_;
  std::jthread loop_;
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
}  // namespace stowage::scheduler
