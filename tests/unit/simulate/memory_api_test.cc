// The in-memory API server of `stowage simulate`, through the real RestClient and typed
// helpers the scheduler uses: lists with field selectors, watches from a resourceVersion,
// bindings (a second one conflicts), deletions, strategic and merge patches, events.
#include "pkg/simulate/memory_api.h"

#include <gtest/gtest.h>

#include <thread>

#include "pkg/client/resources.h"
#include "pkg/simulate/patch.h"

namespace stowage::simulate::memory_api_test {
namespace {

const char kPodA[] =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns","uid":"ua"},)"
    R"("spec":{"containers":[{"name":"c","image":"x"}]},"status":{"phase":"Pending"}})";
const char kPodDone[] =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"done","namespace":"ns","uid":"ud"},)"
    R"("spec":{"nodeName":"n1","containers":[{"name":"c","image":"x"}]},)"
    R"("status":{"phase":"Succeeded"}})";
const char kNode[] = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}})";

struct Fixture {
  FakeClock clock;
  MemoryApi* api = nullptr;
  std::unique_ptr<client::RestClient> client;
  Fixture() {
    auto made = MemoryApi::New({kPodA, kPodDone, kNode}, clock);
    EXPECT_TRUE(made.ok()) << made.status();
    api = made->get();
    client::RestConfig rc;
    rc.server = "https://simulated.invalid";
    rc.content_type = "application/json";
    client = std::make_unique<client::RestClient>(rc, std::move(*made));
  }
};

TEST(MemoryApiTest, ListsHonourNamespacesAndFieldSelectors) {
  Fixture f;
  client::ListOptions o;
  o.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  auto pods = client::ListPage<api::Pod>(*f.client, o);
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->items.size(), 1u);
  EXPECT_EQ(pods->items[0]->metadata.name, "a");
  o = {};
  o.namespace_ = "other";
  EXPECT_TRUE(client::ListPage<api::Pod>(*f.client, o)->items.empty());
  o = {};
  o.label_selector = "app=x";
  EXPECT_EQ(client::ListPage<api::Pod>(*f.client, o).status().code(), StatusCode::kInvalidArgument);
}

TEST(MemoryApiTest, ABindingIsWatchedAndASecondOneConflicts) {
  Fixture f;
  auto list = client::ListPage<api::Pod>(*f.client, {});
  ASSERT_TRUE(list.ok());
  std::vector<std::string> seen;
  std::stop_source stop;
  Status watched;
  std::thread watcher([&] {
    client::WatchOptions o;
    o.resource_version = list->resource_version;
    watched = client::WatchObjects<api::Pod>(
        *f.client, o,
        [&](api::WatchEvent<api::Pod>&& ev) {
          seen.push_back(ev.object->metadata.name + "@" + ev.object->spec.node_name);
          stop.request_stop();
          return true;
        },
        stop.get_token());
  });
  api::Pod pod = *list->items[0];
  f.clock.Advance(std::chrono::seconds(3));
  ASSERT_TRUE(client::BindPod(*f.client, pod.metadata, "n1").ok());
  watcher.join();
  // The watch ends because the callback asked it to, not with an error.
  EXPECT_TRUE(watched.ok()) << watched;
  EXPECT_EQ(seen, (std::vector<std::string>{"a@n1"}));
  Status again = client::BindPod(*f.client, pod.metadata, "n1");
  EXPECT_EQ(again.code(), StatusCode::kAborted) << again;  // 409
  auto writes = f.api->Writes();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].pod, "ns/a");
  EXPECT_EQ(writes[0].node, "n1");
  EXPECT_EQ(writes[0].at, std::chrono::seconds(3));
  EXPECT_FALSE(f.api->Busy());
}

TEST(MemoryApiTest, DeletionsAndEventsAreKept) {
  Fixture f;
  ASSERT_TRUE(client::DeletePod(*f.client, "ns", "done").ok());
  EXPECT_EQ(client::DeletePod(*f.client, "ns", "done").code(), StatusCode::kNotFound);
  auto writes = f.api->Writes();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].kind, Write::Kind::kDelete);
  EXPECT_EQ(writes[0].node, "n1");
  api::EventRecord e;
  e.name = "a.1";
  e.namespace_ = "ns";
  e.regarding_kind = "Pod";
  e.regarding.namespace_ = "ns";
  e.regarding.name = "a";
  e.reason = "Preempted";
  e.note = "Preempted by pod uid on node n1";
  ASSERT_TRUE(client::CreateEvent(*f.client, e).ok());
  auto events = f.api->Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object, "ns/a");
  EXPECT_EQ(events[0].message, "Preempted by pod uid on node n1");
}

// The PV controller's part: a claim given a selected node is provisioned and bound at once.
TEST(MemoryApiTest, AClaimGivenASelectedNodeIsProvisionedAndBound) {
  FakeClock clock;
  auto made = MemoryApi::New(
      {R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data",)"
       R"("namespace":"ns","uid":"c1"},"spec":{"storageClassName":"wffc","accessModes":)"
       R"(["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"},
      clock);
  ASSERT_TRUE(made.ok());
  MemoryApi* api = made->get();
  client::RestConfig rc;
  rc.server = "https://simulated.invalid";
  client::RestClient c(rc, std::move(*made));
  ASSERT_TRUE(c.Patch("/api/v1/namespaces/ns/persistentvolumeclaims/data",
                      R"({"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"n1"}}})",
                      client::kStrategicMergePatch)
                  .ok());
  auto pvc = client::GetObject<api::PersistentVolumeClaim>(c, "ns", "data");
  ASSERT_TRUE(pvc.ok()) << pvc.status();
  EXPECT_EQ(pvc->volume_name, "pvc-c1");
  EXPECT_NE(pvc->metadata.annotations.Get("pv.kubernetes.io/bind-completed"), nullptr);
  auto pvs = api->List("/api/v1/persistentvolumes");
  ASSERT_EQ(pvs.size(), 1u);
  EXPECT_NE(pvs[0].find(R"("uid":"c1")"), std::string::npos) << pvs[0];
}

TEST(PatchTest, StrategicPatchesMergeConditionsByTypeAndFinalizersAsASet) {
  auto obj = nlohmann::json::parse(R"({"metadata":{"finalizers":["a"]},"status":{"conditions":[
      {"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],"x":1}})");
  ASSERT_TRUE(ApplyPatch(obj, R"({"metadata":{"finalizers":["b","a"]},"status":{
      "$setElementOrder/conditions":[{"type":"PodScheduled"}],
      "conditions":[{"type":"PodScheduled","status":"False","message":"no"}],"x":null,
      "nominatedNodeName":"n2"}})",
                         "application/strategic-merge-patch+json")
                  .ok());
  EXPECT_EQ(obj["metadata"]["finalizers"], nlohmann::json::parse(R"(["a","b"])"));
  ASSERT_EQ(obj["status"]["conditions"].size(), 2u);
  EXPECT_EQ(obj["status"]["conditions"][1]["status"], "False");
  EXPECT_EQ(obj["status"]["conditions"][1]["message"], "no");
  EXPECT_FALSE(obj["status"].contains("x"));
  EXPECT_EQ(obj["status"]["nominatedNodeName"], "n2");
  ASSERT_TRUE(
      ApplyPatch(obj, R"({"status":{"conditions":null}})", "application/merge-patch+json").ok());
  EXPECT_FALSE(obj["status"].contains("conditions"));
  EXPECT_FALSE(ApplyPatch(obj, "{", "application/merge-patch+json").ok());
  EXPECT_FALSE(ApplyPatch(obj, "{}", "text/plain").ok());
}

}  // namespace
}  // namespace stowage::simulate::memory_api_test
