// Status patches of failed attempts go through StatusWriter, apart from the bindings: a pod's
// patches are sent one at a time and the newest replaces a queued one, other pods' patches do
// not wait behind a slow one, and a burst of failures whose patches hang does not keep the
// scheduling loop from binding the next pod.
#include "pkg/scheduler/status_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::status_writer_test {
namespace {

using testing::BindingPath;
using testing::Eventually;
using testing::FakeApiServer;
using testing::Gate;
using testing::SchedulerHarness;
using testing::StatusPath;

api::PodPtr Pod(const std::string& name) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.namespace_ = "ns";
  p->metadata.name = name;
  p->metadata.uid = "uid-" + name;
  return p;
}

class StatusWriterTest : public ::testing::Test {
 protected:
  StatusWriterTest() : api_(new FakeApiServer) {
    client::RestConfig cfg;
    cfg.qps = 0;
    client_ = std::make_unique<client::RestClient>(cfg, std::unique_ptr<client::Transport>(api_),
                                                   client::RetryPolicy{.max_retries = 0});
  }
  size_t Patches(const std::string& pod) { return api_->Requests("PATCH", StatusPath(pod)).size(); }

  FakeApiServer* api_;  // owned by client_
  std::unique_ptr<client::RestClient> client_;
};

TEST_F(StatusWriterTest, NewestPatchReplacesQueuedOneAndOtherPodsDoNotWait) {
  Gate hold_a;
  api_->SetAnswer([&](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == StatusPath("a")) hold_a.Wait();
    return std::nullopt;
  });
  StatusWriter writer(*client_, /*workers=*/2);
  writer.Submit(Pod("a"), R"({"n":1})");
  ASSERT_TRUE(Eventually([&] { return hold_a.waiting() == 1; }));
  writer.Submit(Pod("a"), R"({"n":2})");
  writer.Submit(Pod("a"), R"({"n":3})");
  writer.Submit(Pod("b"), R"({"n":1})");
  // The second worker sends b's patch, but never a second patch of a while one is in flight.
  ASSERT_TRUE(Eventually([&] { return Patches("b") == 1; }));
  EXPECT_EQ(Patches("a"), 1u);
  EXPECT_EQ(writer.Drain(std::chrono::milliseconds(0)), 1u);  // a: being sent, and queued
  hold_a.Open();
  EXPECT_EQ(writer.Drain(std::chrono::seconds(20)), 0u);
  auto sent = api_->Requests("PATCH", StatusPath("a"));
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1].body, R"({"n":3})");
}

// A binding waits for its own pod's patch (a nomination must not arrive after the binding), never
// for another pod's.
TEST_F(StatusWriterTest, WaitForPodWaitsForThatPodsPatchOnly) {
  Gate hold_a;
  api_->SetAnswer([&](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == StatusPath("a")) hold_a.Wait();
    return std::nullopt;
  });
  StatusWriter writer(*client_, /*workers=*/2);
  writer.Submit(Pod("a"), "{}");
  ASSERT_TRUE(Eventually([&] { return hold_a.waiting() == 1; }));
  writer.WaitForPod(*Pod("b"), std::chrono::seconds(60));  // nothing of b's: returns at once
  std::atomic<bool> a_done{false};
  std::thread waiter([&] {
    writer.WaitForPod(*Pod("a"), std::chrono::seconds(60));
    a_done = true;
  });
  writer.Submit(Pod("b"), "{}");
  ASSERT_TRUE(Eventually([&] { return Patches("b") == 1; }));
  EXPECT_FALSE(a_done) << "a's patch is still being sent";
  hold_a.Open();
  EXPECT_TRUE(Eventually([&] { return a_done.load(); }));
  waiter.join();
}

// Issue 26: the patches of pods deleted meanwhile (answered 404) leave nothing queued or in
// flight.
TEST_F(StatusWriterTest, PatchesOfDeletedPodsLeaveNothingBehind) {
  api_->SetAnswer([](const client::HttpRequest&) -> std::optional<int> { return 404; });
  StatusWriter writer(*client_, 2);
  for (int i = 0; i < 50; ++i) {
    writer.Submit(Pod("gone-" + std::to_string(i % 10)), "{\"n\":" + std::to_string(i) + "}");
  }
  EXPECT_EQ(writer.Drain(std::chrono::seconds(20)), 0u);
  EXPECT_GE(api_->RequestsOf("PATCH").size(), 10u);
}

TEST_F(StatusWriterTest, ShutdownDropsQueuedPatches) {
  Gate hold;
  api_->SetAnswer([&](const client::HttpRequest&) -> std::optional<int> {
    hold.Wait();
    return std::nullopt;
  });
  StatusWriter writer(*client_, 1);
  writer.Submit(Pod("a"), "{}");
  ASSERT_TRUE(Eventually([&] { return hold.waiting() == 1; }));
  writer.Submit(Pod("b"), "{}");
  hold.Open();
  writer.Shutdown();
  writer.Submit(Pod("c"), "{}");  // ignored once shut down
  EXPECT_EQ(Patches("a"), 1u);
  EXPECT_EQ(Patches("c"), 0u);
}

// Rejects the pods whose name starts with "bad".
struct RejectBad : framework::FilterPlugin {
  std::string_view Name() const override { return "RejectBad"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo& pod,
                           const framework::NodeInfo&) override {
    if (pod.pod->metadata.name.rfind("bad", 0) == 0) {
      return framework::Status::Unschedulable("bad pod");
    }
    return {};
  }
};

// Status patches that hang (an overloaded API server) took the binding queue's room: with one
// binding worker and one queued binding allowed, two failures stopped the loop for good.
// A binding cycle's nomination goes out at once from its own thread, not behind other pods'
// queued patches (which made bindings wait for them, or overtake the nomination and have it
// refused as "already bound"); a patch of the same pod still goes first.
TEST_F(StatusWriterTest, SendNowDoesNotQueueBehindOtherPods) {
  Gate hold_a;
  api_->SetAnswer([&](const client::HttpRequest& r) -> std::optional<int> {
    if (r.target == StatusPath("a")) hold_a.Wait();
    return std::nullopt;
  });
  StatusWriter writer(*client_, /*workers=*/1);
  writer.Submit(Pod("a"), R"({"n":1})");
  ASSERT_TRUE(Eventually([&] { return hold_a.waiting() == 1; }));
  writer.Submit(Pod("c"), R"({"n":1})");  // behind a's, on the only worker
  EXPECT_TRUE(writer.SendNow(Pod("b"), R"({"n":1})", std::chrono::milliseconds(5000)).ok());
  EXPECT_EQ(Patches("b"), 1u);
  EXPECT_EQ(Patches("c"), 0u);
  hold_a.Open();
  writer.Submit(Pod("d"), R"({"n":1})");
  EXPECT_TRUE(writer.SendNow(Pod("d"), R"({"n":2})", std::chrono::milliseconds(5000)).ok());
  const auto sent = api_->Requests("PATCH", StatusPath("d"));
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].body, R"({"n":1})");
  EXPECT_EQ(sent[1].body, R"({"n":2})");
}

TEST(StatusWriterBurstTest, HangingStatusPatchesDoNotStopBindings) {
  Gate patches;  // declared first: the harness's threads wait on it until they are joined
  SchedulerHarness h;
  h.api().SetAnswer([&](const client::HttpRequest& r) -> std::optional<int> {
    if (r.method == "PATCH") patches.Wait();
    return std::nullopt;
  });
  ASSERT_TRUE(
      stowage::testing::RegisterStub(h.registry(), "RejectBad", [] { return new RejectBad; }).ok());
  h.options().binding_workers = 1;
  h.options().max_queued_bindings = 1;
  h.options().status_workers = 1;
  framework::ProfileSpec spec = SchedulerHarness::Profile();
  spec.at(framework::ExtensionPoint::kFilter) = {{"RejectBad"}};
  spec.at(framework::ExtensionPoint::kBind) = {{"DefaultBinder"}};
  std::vector<nlohmann::json> bad;
  constexpr int kBad = 10;
  for (int i = 0; i < kBad; ++i) {
    bad.push_back(testing::PodJson("bad-" + std::to_string(i), "u" + std::to_string(i)));
  }
  h.Start(bad, spec);
  ASSERT_TRUE(Eventually([&] { return h.scheduler().queue().UnschedulableSize() == kBad; }));
  ASSERT_TRUE(Eventually([&] { return patches.waiting() == 1; }));
  h.api().Push(testing::kPodsPath, "ADDED", testing::PodJson("good", "g1"));
  EXPECT_TRUE(Eventually([&] { return !h.api().Requests("POST", BindingPath("good")).empty(); }));
  patches.Open();
}

}  // namespace
}  // namespace stowage::scheduler::status_writer_test
