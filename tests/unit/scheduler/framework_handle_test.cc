// Plugins reach the API through the Handle's PodWriter, not through the Scheduler: DefaultBinder
// binds through it (the binding the API server receives names the pod and the node), the writer
// sends status changes as a patch (none when nothing changes), and the handle finds a pod
// waiting at Permit.
#include "pkg/scheduler/framework_handle.h"

#include <gtest/gtest.h>

#include <memory>

#include "pkg/cache/snapshot.h"
#include "pkg/framework/runtime/parallelize.h"
#include "pkg/scheduler/pod_writer.h"
#include "tests/unit/scheduler/scheduler_harness.h"

namespace stowage::scheduler::framework_handle_test {
namespace {

using json = nlohmann::json;
using testing::BindingPath;
using testing::Eventually;
using testing::SchedulerHarness;
using testing::StatusPath;

TEST(FrameworkHandleTest, DefaultBinderBindsThroughTheHandlesPodWriter) {
  SchedulerHarness h;
  framework::ProfileSpec spec = SchedulerHarness::Profile();
  spec.at(framework::ExtensionPoint::kBind) = {{"DefaultBinder"}};
  h.Start({testing::PodJson("p", "u1")}, spec);
  ASSERT_TRUE(Eventually([&] { return !h.api().Requests("POST", BindingPath("p")).empty(); }));
  json binding = json::parse(h.api().Requests("POST", BindingPath("p")).front().body);
  EXPECT_EQ(binding["metadata"]["name"], "p");
  EXPECT_EQ(binding["metadata"]["uid"], "u1");
  EXPECT_EQ(binding["target"]["name"], "node-a");
}

class PodWriterTest : public ::testing::Test {
 protected:
  PodWriterTest() : api_(new testing::FakeApiServer) {
    client::RestConfig cfg;
    cfg.qps = 0;
    client_ = std::make_unique<client::RestClient>(cfg, std::unique_ptr<client::Transport>(api_),
                                                   client::RetryPolicy{.max_retries = 0});
  }
  testing::FakeApiServer* api_;  // owned by client_
  std::unique_ptr<client::RestClient> client_;
};

TEST_F(PodWriterTest, PatchPodStatusSendsTheChangeOnlyWhenThereIsOne) {
  ClientPodWriter writer(*client_);
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  pod.metadata.uid = "u1";
  EXPECT_TRUE(writer.PatchPodStatus(pod, pod.status).ok());
  EXPECT_TRUE(api_->Requests("PATCH", StatusPath("p")).empty());
  api::PodStatus nominated = pod.status;
  nominated.nominated_node_name = "node-a";
  EXPECT_TRUE(writer.PatchPodStatus(pod, nominated).ok());
  auto sent = api_->Requests("PATCH", StatusPath("p"));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(json::parse(sent[0].body)["status"]["nominatedNodeName"], "node-a");
}

TEST_F(PodWriterTest, BindFailureIsReturned) {
  api_->SetAnswer([](const client::HttpRequest&) -> std::optional<int> { return 409; });
  ClientPodWriter writer(*client_);
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  EXPECT_FALSE(writer.Bind(pod, "node-a").ok());
  EXPECT_EQ(api_->Requests("POST", BindingPath("p")).size(), 1u);
}

TEST_F(PodWriterTest, NoBindingOrDeletionOnceTheLeaseMayHaveExpired) {
  bool holds_lease = false;
  ClientPodWriter writer(*client_, [&] { return holds_lease; });
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = "p";
  EXPECT_EQ(writer.Bind(pod, "node-a").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(writer.DeletePod(pod).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(api_->Requests("POST", BindingPath("p")).empty());
  EXPECT_TRUE(api_->Requests("DELETE", "/api/v1/namespaces/ns/pods/p").empty());
  holds_lease = true;
  EXPECT_TRUE(writer.DeletePod(pod).ok());
  EXPECT_EQ(api_->Requests("DELETE", "/api/v1/namespaces/ns/pods/p").size(), 1u);
}

// Holds every pod at Permit for a minute.
struct HoldAtPermit : framework::PermitPlugin {
  std::string_view Name() const override { return "HoldAtPermit"; }
  framework::Status Permit(framework::CycleState&, const api::Pod&, std::string_view,
                           std::chrono::milliseconds& timeout) override {
    timeout = std::chrono::minutes(1);
    return framework::Status(framework::Code::kWait, "held");
  }
};

// A plugin (e.g. a co-scheduling Permit) finds a pod waiting in any profile through the
// handle, and allowing it lets the pod bind.
TEST(FrameworkHandleTest, HandleFindsPodsWaitingAtPermit) {
  SchedulerHarness h;
  ASSERT_TRUE(stowage::testing::RegisterStub(h.registry(), "HoldAtPermit", [] {
                return new HoldAtPermit;
              }).ok());
  framework::ProfileSpec spec = SchedulerHarness::Profile();
  spec.at(framework::ExtensionPoint::kPermit) = {{"HoldAtPermit"}};
  spec.at(framework::ExtensionPoint::kBind) = {{"DefaultBinder"}};
  h.Start({testing::PodJson("p", "u1")}, spec);
  framework::Handle& handle = h.scheduler().handle();
  ASSERT_TRUE(Eventually([&] { return handle.GetWaitingPod("u1") != nullptr; }));
  EXPECT_EQ(handle.GetWaitingPod("other"), nullptr);
  EXPECT_TRUE(h.api().Requests("POST", BindingPath("p")).empty());
  handle.GetWaitingPod("u1")->Allow("HoldAtPermit");
  EXPECT_TRUE(Eventually([&] { return !h.api().Requests("POST", BindingPath("p")).empty(); }));
}

// Every profile's plugins get this one handle, so what they keep with SharedObject is made once
// per key and is the same object for each (DynamicResources' allocations in flight).
TEST(FrameworkHandleTest, SharedObjectsAreMadeOncePerKey) {
  cache::Snapshot snapshot;
  framework::WorkerPool pool(1);
  stowage::testing::FakeClient fc;
  ClientPodWriter writer(*fc.client);
  FrameworkHandle handle(snapshot, pool, writer, [](std::string_view) { return nullptr; });
  int made = 0;
  auto make = [&made] {
    ++made;
    return std::make_shared<int>(made);
  };
  std::shared_ptr<void> first = handle.SharedObject("DynamicResources", make);
  EXPECT_EQ(handle.SharedObject("DynamicResources", make), first);
  std::shared_ptr<void> other = handle.SharedObject("Other", make);
  EXPECT_NE(other, first);
  EXPECT_EQ(made, 2);
  EXPECT_EQ(*std::static_pointer_cast<int>(first), 1);
}

// A plugin asks for a lister in its factory, before the informers start: the kind's informer is
// created then, starts with the others and the lister reads its store (one namespace, one name,
// or everything). A handle without informers gives listers that hold nothing.
TEST(FrameworkHandleTest, ListersReadTheInformersTheyCreate) {
  stowage::testing::FakeClient fc;
  fc.api->SetList("/api/v1/namespaces",
                  {json{{"metadata", {{"name", "team-a"}, {"labels", {{"team", "a"}}}}}}});
  fc.api->SetList("/api/v1/services",
                  {json{{"metadata", {{"name", "web"}, {"namespace", "ns"}}},
                        {"spec", {{"selector", {{"app", "web"}}}}}},
                   json{{"metadata", {{"name", "db"}, {"namespace", "other"}}}}});
  informer::InformerFactory informers(*fc.client);
  cache::Snapshot snapshot;
  framework::WorkerPool pool(1);
  ClientPodWriter writer(*fc.client);
  FrameworkHandle handle(
      snapshot, pool, writer, [](std::string_view) { return nullptr; }, &informers);
  const auto& namespaces = handle.namespaces();
  const auto& services = handle.services();
  EXPECT_EQ(&namespaces, &handle.namespaces());  // one informer per kind
  informers.Start();
  ASSERT_TRUE(informers.WaitForCacheSync(std::chrono::seconds(10)));
  ASSERT_NE(namespaces.Get("", "team-a"), nullptr);
  EXPECT_EQ(*namespaces.Get("", "team-a")->metadata.labels.Get("team"), "a");
  EXPECT_EQ(services.List().size(), 2u);
  auto in_ns = services.List("ns");
  ASSERT_EQ(in_ns.size(), 1u);
  EXPECT_EQ(in_ns[0]->metadata.name, "web");
  EXPECT_EQ(services.Get("other", "db")->metadata.name, "db");
  EXPECT_EQ(services.Get("ns", "db"), nullptr);
  EXPECT_EQ(fc.api->Count("/apis/apps/v1/replicasets"), 0u);  // never asked for, never listed
  informers.Stop();

  FrameworkHandle bare(snapshot, pool, writer, [](std::string_view) { return nullptr; });
  EXPECT_TRUE(bare.services().List().empty());
}

}  // namespace
}  // namespace stowage::scheduler::framework_handle_test
