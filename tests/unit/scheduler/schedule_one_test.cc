// scheduleOne end to end over the fake API server, with the real informers, cache and queue: a
// pod bound, and each way an attempt fails (Filter, Reserve, Permit rejection and timeout, a
// binding error, the pod deleted while binding, a pod already being deleted), with what the
// API, the cache and the queue see afterwards. The cases follow upstream's schedule_one_test.go
// (TestSchedulerScheduleOne, TestSchedulerNoPhantomPodAfterDelete, TestSchedulerBinding).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::schedule_one_test {
namespace {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using json = nlohmann::json;
using testing::Eventually;
using ::testing::HasSubstr;
using testing::SchedulerHarness;

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
  std::atomic<bool> hold_binding{false};
  std::atomic<bool> binding{false};
  std::atomic<int> unreserve_calls{0};
  std::atomic<int> post_bind_calls{0};
};

// One plugin at Filter, Reserve, Permit, PreBind (where a test can hold the binding cycle) and
// PostBind; the real DefaultBinder binds.
class Probe : public framework::FilterPlugin,
              public framework::ReservePlugin,
              public framework::PermitPlugin,
              public framework::PreBindPlugin,
              public framework::PostBindPlugin {
 public:
  explicit Probe(Script& script) : script_(script) {}
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
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override {
    script_.binding = true;
    while (script_.hold_binding) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
  }
  void PostBind(CycleState&, const api::Pod&, std::string_view) override {
    ++script_.post_bind_calls;
  }

 private:
  Script& script_;
};

// The pod under test, as the API server serves it.
json ThePod() { return testing::PodJson("p", "uid-p"); }
// The pod object the scheduler holds, to ask the cache and the queue about.
api::Pod PodObject() {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  pod.metadata.uid = "uid-p";
  return pod;
}

class ScheduleOneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Backoffs longer than any test, so a failed pod stays where the failure put it.
    h_.options().queue.initial_backoff = std::chrono::minutes(5);
    h_.options().queue.max_backoff = std::chrono::minutes(5);
    h_.options().binding_workers = 1;
    ASSERT_TRUE(stowage::testing::RegisterStub(h_.registry(), "Probe", [this] {
                  return new Probe(script_);
                }).ok());
  }

  // Starts the scheduler with the pods listed at first and Probe at every point it implements.
  void Start(std::vector<json> pods) {
    framework::ProfileSpec spec = SchedulerHarness::Profile();
    using framework::ExtensionPoint;
    for (ExtensionPoint point :
         {ExtensionPoint::kFilter, ExtensionPoint::kReserve, ExtensionPoint::kPermit,
          ExtensionPoint::kPreBind, ExtensionPoint::kPostBind}) {
      spec.at(point) = {{"Probe"}};
    }
    spec.at(ExtensionPoint::kBind) = {{"DefaultBinder"}};
    h_.Start(std::move(pods), spec);
  }
  void TearDown() override {
    script_.hold_binding = false;  // a failed test must not leave the binding cycle held
    h_.Stop();
  }

  // The bodies of the events written with this reason.
  std::vector<json> Events(const std::string& reason) {
    std::vector<json> out;
    for (const auto& r : api().Requests("POST", kEvents)) {
      json e = json::parse(r.body);
      if (e["reason"] == reason) out.push_back(e);
    }
    return out;
  }
  // The first PodScheduled patch, once written.
  // The first status patch with conditions (the failure's; a nomination may come before it).
  json StatusPatch() {
    json found;
    EXPECT_TRUE(Eventually([&] {
      for (const auto& r : api().Requests("PATCH", kStatus)) {
        json patch = json::parse(r.body);
        if (patch["status"].contains("conditions")) {
          found = std::move(patch);
          return true;
        }
      }
      return false;
    }));
    return found;
  }
  // Waits until the failure has been fully handled: its event written and its patch sent.
  void WaitForFailure() {
    ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
    ASSERT_FALSE(StatusPatch().is_null());
  }
  stowage::testing::FakeApiServer& api() { return h_.api(); }
  cache::Cache& cache() { return h_.scheduler().cache(); }
  bool PodInCache() { return cache().PodCount() > 0; }
  queue::SchedulingQueue& queue() { return h_.scheduler().queue(); }

  Script script_;  // outlives the harness, whose plugins refer to it
  SchedulerHarness h_;
};

TEST_F(ScheduleOneTest, APodThatFitsIsAssumedBoundAndConfirmed) {
  script_.hold_binding = true;
  Start({ThePod()});
  ASSERT_TRUE(Eventually([&] { return script_.binding.load(); }));
  // Assumed while the binding is in flight, so the next cycle already counts it on the node.
  EXPECT_TRUE(cache().IsAssumedPod(PodObject()));
  EXPECT_EQ(cache().PodCount(), 1u);
  script_.hold_binding = false;

  ASSERT_TRUE(Eventually([&] { return !api().Requests("POST", kBinding).empty(); }));
  json binding = json::parse(api().Requests("POST", kBinding).front().body);
  EXPECT_EQ(binding["target"]["name"], "node-a");
  EXPECT_EQ(binding["metadata"]["name"], "p");
  ASSERT_TRUE(Eventually([&] { return !Events("Scheduled").empty(); }));
  EXPECT_EQ(Events("Scheduled").front()["note"], "Successfully assigned ns/p to node-a");
  ASSERT_TRUE(Eventually([&] { return script_.post_bind_calls.load() == 1; }));

  // The informer then sees the pod bound: the assumed pod is confirmed, not counted twice.
  json bound = ThePod();
  bound["metadata"]["resourceVersion"] = "102";
  bound["spec"]["nodeName"] = "node-a";
  api().Push(kPods, "MODIFIED", bound);
  ASSERT_TRUE(Eventually([&] { return !cache().IsAssumedPod(PodObject()); }));
  EXPECT_EQ(cache().PodCount(), 1u);
  EXPECT_EQ(script_.unreserve_calls.load(), 0);
  EXPECT_TRUE(api().Requests("PATCH", kStatus).empty());
  EXPECT_EQ(queue().ActiveSize() + queue().BackoffSize() + queue().UnschedulableSize(), 0u);
}

TEST_F(ScheduleOneTest, AFilterRejectionIsReportedAndParksThePodAsUnschedulable) {
  script_.reject_filter = true;
  Start({ThePod()});
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
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(PodObject()); }));
  EXPECT_FALSE(PodInCache());
  EXPECT_TRUE(api().Requests("POST", kBinding).empty());
}

// Upstream's ErrNoNodesAvailable: a rejection with the bare message, but no plugin to wait for,
// so the pod backs off like an error.
TEST_F(ScheduleOneTest, WithNoNodesThePodIsRejectedWithTheBareMessageAndBacksOff) {
  api().SetList(kNodes, {});
  Start({ThePod()});
  WaitForFailure();
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"], "no nodes available to schedule pods");
  EXPECT_EQ(Events("FailedScheduling").front()["note"], "no nodes available to schedule pods");
  EXPECT_TRUE(Eventually([&] { return queue().BackoffSize() == 1; }));
  EXPECT_FALSE(queue().IsInUnschedulable(PodObject()));
}

TEST_F(ScheduleOneTest, AReserveFailureRunsUnreserveAndForgetsThePod) {
  script_.reserve = Status::Unschedulable("no room reserved").WithPlugin("Probe");
  Start({ThePod()});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  EXPECT_FALSE(cache().IsAssumedPod(PodObject()));
  EXPECT_EQ(StatusPatch()["status"]["conditions"][0]["message"],
            "0/1 nodes are available: 1 no room reserved.");
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(PodObject()); }));
  EXPECT_TRUE(api().Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, APermitRejectionRunsUnreserveAndParksThePodAsUnschedulable) {
  script_.permit = Status::Unschedulable("not permitted").WithPlugin("Probe");
  Start({ThePod()});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"], "0/1 nodes are available: 1 not permitted.");
  // Rejected by a plugin: the pod waits for an event that plugin cares about, not a backoff.
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(PodObject()); }));
  EXPECT_TRUE(api().Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, APermitTimeoutRejectsThePodAfterItWaited) {
  script_.permit = Status(framework::Code::kWait);
  script_.permit_timeout = std::chrono::milliseconds(10);
  Start({ThePod()});
  WaitForFailure();
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  // Before the wait, the node was written as the pod's nominated node, as upstream does.
  EXPECT_EQ(
      json::parse(api().Requests("PATCH", kStatus).front().body)["status"]["nominatedNodeName"],
      "node-a");
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "Unschedulable");
  EXPECT_EQ(condition["message"],
            "0/1 nodes are available: 1 rejected due to timeout after waiting 10ms at plugin "
            "Probe.");
  EXPECT_TRUE(Eventually([&] { return queue().IsInUnschedulable(PodObject()); }));
  EXPECT_TRUE(api().Requests("POST", kBinding).empty());
}

TEST_F(ScheduleOneTest, ABindingErrorForgetsThePodAndRequeuesItWithBackoff) {
  api().SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == kBinding) return 403;  // an error DefaultBinder does not retry
    return std::nullopt;
  });
  Start({ThePod()});
  WaitForFailure();
  EXPECT_EQ(api().Requests("POST", kBinding).size(), 1u);
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache());
  json condition = StatusPatch()["status"]["conditions"][0];
  EXPECT_EQ(condition["reason"], "SchedulerError");
  EXPECT_THAT(condition["message"].get<std::string>(), HasSubstr("403"));
  EXPECT_TRUE(Eventually([&] { return queue().BackoffSize() == 1; }));
  EXPECT_FALSE(queue().IsInUnschedulable(PodObject()));
  EXPECT_EQ(script_.post_bind_calls.load(), 0);
}

TEST_F(ScheduleOneTest, APodDeletedWhileBindingIsForgottenAndNotRequeued) {
  script_.hold_binding = true;
  api().SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == kBinding) return 404;  // the pod is gone
    return std::nullopt;
  });
  Start({ThePod()});
  ASSERT_TRUE(Eventually([&] { return script_.binding.load(); }));
  api().Push(kPods, "DELETED", ThePod());
  ASSERT_TRUE(Eventually([&] { return h_.scheduler().ListPods().empty(); }));
  script_.hold_binding = false;
  ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
  EXPECT_EQ(script_.unreserve_calls.load(), 1);
  EXPECT_FALSE(PodInCache()) << "no phantom pod left on the node";
  EXPECT_EQ(queue().ActiveSize() + queue().BackoffSize() + queue().UnschedulableSize(), 0u);
}

TEST_F(ScheduleOneTest, APodBeingDeletedIsSkipped) {
  json deleting = ThePod();
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  Start({deleting});
  ASSERT_TRUE(Eventually([&] { return !Events("FailedScheduling").empty(); }));
  EXPECT_EQ(Events("FailedScheduling").front()["note"], "skip schedule deleting pod: ns/p");
  EXPECT_TRUE(api().Requests("POST", kBinding).empty());
  EXPECT_TRUE(api().Requests("PATCH", kStatus).empty());
  EXPECT_FALSE(PodInCache());
}

}  // namespace
}  // namespace stowage::scheduler::schedule_one_test
