// scheduleOne end to end over the fake API server, with the real informers, cache and queue: a
// pod bound, and each way an attempt fails (Filter, Reserve, Permit rejection and timeout, a
// binding error, the pod deleted while binding, a pod already being deleted), with what the
// API, the cache and the queue see afterwards. The cases follow upstream's schedule_one_test.go
// (TestSchedulerScheduleOne, TestSchedulerNoPhantomPodAfterDelete, TestSchedulerBinding).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "pkg/framework/runtime.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/scheduler.h"
#include "tests/testing/builders.h"
#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler {
namespace {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using json = nlohmann::json;
using testing::Eventually;
using ::testing::HasSubstr;

constexpr char kPods[] = "/api/v1/pods";
constexpr char kNodes[] = "/api/v1/nodes";
constexpr char kBinding[] = "/api/v1/namespaces/ns/pods/p/binding";
constexpr char kStatus[] = "/api/v1/namespaces/ns/pods/p/status";
constexpr char kEvents[] = "/apis/events.k8s.io/v1/namespaces/ns/events";

// What the test plugin answers at each extension point, and what it saw. Set before the
// scheduler starts (the thread start orders the writes before the plugin's reads).
struct Script {
  bool reject_filter = false;
  Status reserve;
  Status permit;
  std::chrono::milliseconds permit_timeout{0};
  std::atomic<bool> hold_bind{false};
  std::atomic<bool> binding{false};
  std::atomic<int> unreserve_calls{0};
  std::atomic<int> post_bind_calls{0};
};

// One plugin at Filter, Reserve, Permit, Bind and PostBind; Bind goes through the handle to the
// API server, as DefaultBinder does.
class Probe : public framework::FilterPlugin,
              public framework::ReservePlugin,
              public framework::PermitPlugin,
              public framework::BindPlugin,
              public framework::PostBindPlugin {
 public:
  Probe(Script& script, framework::Handle& handle) : script_(script), handle_(handle) {}
  std::string_view Name() const override { return "Probe"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) override {
    return script_.reject_filter ? Status::Unschedulable("rejected by the test") : Status();
  }
  Status Reserve(CycleState&, const api::Pod&, std::string_view) override {
    return script_.reserve;
  }
  void Unreserve(CycleState&, const api::Pod&, std::string_view) override {
    ++script_.unreserve_calls;
  }
  Status Permit(CycleState&, const api::Pod&, std::string_view,
                std::chrono::milliseconds& timeout) override {
    timeout = script_.permit_timeout;
    return script_.permit;
  }
  Status Bind(CycleState&, const api::Pod& pod, std::string_view node) override {
    script_.binding = true;
    while (script_.hold_bind) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    stowage::Status s = handle_.BindPod(pod, node);
    return s.ok() ? Status() : Status::Error(std::string(s.message()));
  }
  void PostBind(CycleState&, const api::Pod&, std::string_view) override {
    ++script_.post_bind_calls;
  }

 private:
  Script& script_;
  framework::Handle& handle_;
};

json PodJson(testing::PodWrapper pod) { return json::parse(pod.Json()); }

testing::PodWrapper ThePod() {
  return testing::BuildPod()
      .Namespace("ns")
      .Name("p")
      .UID("uid-p")
      .ResourceVersion("5")
      .SchedulerName("default-scheduler");
}

class ScheduleOneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.SetList(
        kNodes,
        {json::parse(
            testing::BuildNode().Name("node-a").UID("uid-a").Capacity({{"cpu", "4"}}).Json())});
    // Backoffs longer than any test, so a failed pod stays where the failure put it.
    options_.queue.initial_backoff = std::chrono::minutes(5);
    options_.queue.max_backoff = std::chrono::minutes(5);
    options_.binding_workers = 1;
  }

  // Starts the scheduler with the pods listed at first.
  void Start(std::vector<json> pods) {
    api_.SetList(kPods, std::move(pods));
    ASSERT_TRUE(
        testing::RegisterStub(registry_, "Sort", [] { return new testing::StubSort; }).ok());
    ASSERT_TRUE(testing::RegisterStubWithHandle(registry_, "Probe", [this](framework::Handle& h) {
                  return new Probe(script_, h);
                }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.queue_sort = {{"Sort"}};
    for (auto* point : {&spec.filter, &spec.reserve, &spec.permit, &spec.bind, &spec.post_bind}) {
      *point = {{"Probe"}};
    }
    sched_ = std::make_unique<Scheduler>(*fake_.client, informers_, options_);
    ASSERT_TRUE(sched_->Init(registry_, {spec}).ok());
    informers_.Start();
    ASSERT_TRUE(informers_.WaitForCacheSync(std::chrono::seconds(20)));
    loop_ = std::jthread([this](std::stop_token stop) { sched_->Run(stop); });
  }

  void TearDown() override {
    script_.hold_bind = false;
    if (loop_.joinable()) {
      loop_.request_stop();
      loop_.join();
    }
    informers_.Stop();
    sched_.reset();
  }

  // The bodies of the events written with this reason.
  std::vector<json> Events(const std::string& reason) {
    std::vector<json> out;
    for (const auto& r : api_.Requests("POST", kEvents)) {
      json e = json::parse(r.body);
      if (e["reason"] == reason) out.push_back(e);
    }
    return out;
  }
  // The single PodScheduled patch, once written.
  json StatusPatch() {
    EXPECT_TRUE(Eventually([&] { return !api_.Requests("PATCH", kStatus).empty(); }));
    auto patches = api_.Requests("PATCH", kStatus);
    return patches.empty() ? json() : json::parse(patches.front().body);
  }
  // Waits until the failure has been fully handled: its event written and its patch sent.
  void WaitForFailure() {
    ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
    ASSERT_TRUE(Eventually([&] { return !api_.Requests("PATCH", kStatus).empty(); }));
  }
  bool PodInCache() { return sched_->cache().PodCount() > 0; }
  queue::SchedulingQueue& queue() { return sched_->queue(); }

  testing::FakeClient fake_;
  testing::FakeApiServer& api_ = *fake_.api;
  informer::InformerFactory informers_{*fake_.client};
  Script script_;
  framework::Registry registry_;
  Options options_;
  std::unique_ptr<Scheduler> sched_;
  std::jthread loop_;
};

TEST_F(ScheduleOneTest, APodThatFitsIsAssumedBoundAndConfirmed) {
  script_.hold_bind = true;
  Start({PodJson(ThePod())});
  ASSERT_TRUE(Eventually([&] { return script_.binding.load(); }));
  // Assumed while the binding is in flight, so the next cycle already counts it on the node.
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*ThePod().Obj()));
  EXPECT_EQ(sched_->cache().PodCount(), 1u);
  script_.hold_bind = false;

  ASSERT_TRUE(Eventually([&] { return !api_.Requests("POST", kBinding).empty(); }));
  json binding = json::parse(api_.Requests("POST", kBinding).front().body);
  EXPECT_EQ(binding["target"]["name"], "node-a");
  EXPECT_EQ(binding["metadata"]["name"], "p");
  ASSERT_TRUE(Eventually([&] { return !Events("Scheduled").empty(); }));
  EXPECT_EQ(Events("Scheduled").front()["note"], "Successfully assigned ns/p to node-a");
  ASSERT_TRUE(Eventually([&] { return script_.post_bind_calls.load() == 1; }));

  // The informer then sees the pod bound: the assumed pod is confirmed, not counted twice.
  api_.Push(kPods, "MODIFIED", PodJson(ThePod().ResourceVersion("6").Node("node-a")));
  ASSERT_TRUE(Eventually([&] { return !sched_->cache().IsAssumedPod(*ThePod().Obj()); }));
  EXPECT_EQ(sched_->cache().PodCount(), 1u);
  EXPECT_EQ(script_.unreserve_calls.load(), 0);
  EXPECT_TRUE(api_.Requests("PATCH", kStatus).empty());
  EXPECT_EQ(queue().ActiveSize() + queue().BackoffSize() + queue().UnschedulableSize(), 0u);
}

TEST_F(ScheduleOneTest, AFilterRejectionIsReportedAndParksThePodAsUnschedulable) {
  script_.reject_filter = true;
  Start({PodJson(ThePod())});
  WaitForFailure();
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["type"], "PodScheduled");
  EXPECT_EQ(condition["status"], "False");
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"], "0/1 nodes are available: 1 rejected by the test.");
  json event = Events("FailedScheduling").front();
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["note"], "0/1 nodes are available: 1 rejected by the test.");
  EXPECT_EQ(event["regarding"]["uid"], "uid-p");
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(*ThePod().Obj()); }));
  EXPECT_FALSE(PodInCache());
  EXPECT_TRUE(api_.Requests("POST", kBinding).empty());
}

// Upstream's ErrNoNodesAvailable: a rejection with the bare message, but no plugin to wait for,
// so the pod backs off like an error.
TEST_F(ScheduleOneTest, WithNoNodesThePodIsRejectedWithTheBareMessageAndBacksOff) {
  api_.SetList(kNodes, {});
  Start({PodJson(ThePod())});
  WaitForFailure();
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"], "no nodes available to schedule pods");
  EXPECT_EQ(Events("FailedScheduling").front()["note"], "no nodes available to schedule pods");
  EXPECT_TRUE(Eventually([&] { return queue().BackoffSize() == 1; }));
  EXPECT_FALSE(queue().IsInUnschedulable(*ThePod().Obj()));
}

TEST_F(ScheduleOneTest, AReserveFailureRunsUnreserveAndForgetsThePod) {
  script_.reserve = Status::Unschedulable("no room reserved").WithPlugin("Probe");
  Start({PodJson(ThePod())});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*ThePod().Obj()));
  EXPECT_EQ(StatusPatch()["status"]["conditions"][0]["message"],
            "0/1 nodes are available: 1 no room reserved.");
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(*ThePod().Obj()); }));
  EXPECT_TRUE(api_.Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, APermitRejectionRunsUnreserveAndParksThePodAsUnschedulable) {
  script_.permit = Status::Unschedulable("not permitted").WithPlugin("Probe");
  Start({PodJson(ThePod())});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"], "0/1 nodes are available: 1 not permitted.");
  // Rejected by a plugin: the pod waits for an event that plugin cares about, not a backoff.
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(*ThePod().Obj()); }));
  EXPECT_TRUE(api_.Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, APermitTimeoutRejectsThePodAfterItWaited) {
  script_.permit = Status(framework::Code::kWait);
  script_.permit_timeout = std::chrono::milliseconds(10);
  Start({PodJson(ThePod())});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"],
            "0/1 nodes are available: 1 rejected due to timeout after waiting 10ms at plugin "
            "Probe.");
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(*ThePod().Obj()); }));
  EXPECT_TRUE(api_.Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, ABindingErrorForgetsThePodAndRequeuesItWithBackoff) {
  api_.SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == kBinding) return 500;
    return std::nullopt;
  });
  Start({PodJson(ThePod())});
  WaitForFailure();
  EXPECT_EQ(api_.Requests("POST", kBinding).size(), 1u);
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "SchedulerError");
  EXPECT_THAT(condition["message"].get<std::string>(), HasSubstr("500"));
  EXPECT_TRUE(Eventually([&] { return queue().BackoffSize() == 1; }));
  EXPECT_FALSE(queue().IsInUnschedulable(*ThePod().Obj()));
  EXPECT_EQ(script_.post_bind_calls.load(), 0);
}

TEST_F(ScheduleOneTest, APodDeletedWhileBindingIsForgottenAndNotRequeued) {
  script_.hold_bind = true;
  api_.SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == kBinding) return 404;  // the pod is gone
    return std::nullopt;
  });
  Start({PodJson(ThePod())});
  ASSERT_TRUE(Eventually([&] { return script_.binding.load(); }));
  api_.Push(kPods, "DELETED", PodJson(ThePod()));
  ASSERT_TRUE(Eventually([&] { return sched_->ListPods().empty(); }));
  script_.hold_bind = false;
  ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache()) << "no phantom pod left on the node";
  EXPECT_EQ(queue().ActiveSize() + queue().BackoffSize() + queue().UnschedulableSize(), 0u);
}

TEST_F(ScheduleOneTest, APodBeingDeletedIsSkipped) {
  Start({PodJson(ThePod().Terminating())});
  ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
  EXPECT_EQ(Events("FailedScheduling").front()["note"], "skip schedule deleting pod: ns/p");
  EXPECT_TRUE(api_.Requests("POST", kBinding).empty());
  EXPECT_TRUE(api_.Requests("PATCH", kStatus).empty());
  EXPECT_FALSE(PodInCache());
}

}  // namespace
}  // namespace stowage::scheduler
