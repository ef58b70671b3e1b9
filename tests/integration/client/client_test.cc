// The client against a real kube-apiserver + etcd: paging, watch ordering, 410 Gone, binding
// and its conflict, API error classes, and TLS verification.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/protobuf.h"
#include "pkg/client/resources.h"
#include "pkg/common/file.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/objects.h"

namespace stowage::client_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

TEST(ClientIntegration, ListsMoreThanAThousandPodsAcrossPages) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "paging").ok());
  constexpr int kPods = 1050;
  ASSERT_TRUE(testing::CreatePods(Admin(), "paging", "p", kPods).ok());

  client::ListOptions o;
  o.namespace_ = "paging";
  o.limit = 100;
  std::set<std::string> names;
  int pages = 0;
  std::string first_rv;
  do {
    auto page = client::ListPage<api::Pod>(Admin(), o);
    ASSERT_TRUE(page.ok()) << page.status();
    ++pages;
    EXPECT_LE(page->items.size(), 100u);
    if (first_rv.empty()) first_rv = page->resource_version;
    EXPECT_EQ(page->resource_version, first_rv) << "pages of one list share a snapshot";
    for (const auto& p : page->items) names.insert(p->metadata.name);
    o.continue_token = page->continue_token;
  } while (!o.continue_token.empty());
  EXPECT_EQ(names.size(), static_cast<size_t>(kPods));
  EXPECT_EQ(pages, 11);
}

TEST(ClientIntegration, WatchSeesCreateUpdateDeleteInOrder) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "watch").ok());
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = "watch"});
  ASSERT_TRUE(list.ok()) << list.status();

  Mutex mu;
  std::vector<std::pair<api::WatchEventType, std::string>> seen;
  std::stop_source stop;
  std::thread watcher([&] {
    client::WatchOptions o;
    o.namespace_ = "watch";
    o.resource_version = list->resource_version;
    o.allow_bookmarks = true;
    Status s = client::WatchObjects<api::Pod>(
        Admin(), o,
        [&](api::WatchEvent<api::Pod>&& ev) {
          MutexLock l(mu);
          seen.emplace_back(ev.type, ev.object->metadata.labels.Get("step")
                                         ? *ev.object->metadata.labels.Get("step")
                                         : "");
          return ev.type != api::WatchEventType::kDeleted;
        },
        stop.get_token());
    EXPECT_TRUE(s.ok()) << s;
  });
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace("watch").Name("w").Label("step", "1")).ok());
  auto patched = Admin().Patch("/api/v1/namespaces/watch/pods/w",
                               R"({"metadata":{"labels":{"step":"2"}}})", client::kMergePatch);
  ASSERT_TRUE(patched.ok()) << patched.status();
  ASSERT_TRUE(testing::DeletePod(Admin(), "watch", "w").ok());
  watcher.join();
  // ADDED, the label change, possibly a MODIFIED setting deletionTimestamp, then DELETED.
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(api::WatchEventType::kAdded, std::string("1")));
  EXPECT_EQ(seen[1], std::make_pair(api::WatchEventType::kModified, std::string("2")));
  for (size_t i = 2; i + 1 < seen.size(); ++i)
    EXPECT_EQ(seen[i].first, api::WatchEventType::kModified);
  EXPECT_EQ(seen.back().first, api::WatchEventType::kDeleted);
}

TEST(ClientIntegration, WatchFromATooOldVersionIsGone) {
  // A restarted apiserver's watch cache starts at etcd's current revision: version 1 is gone.
  SharedCluster().Stop();
  ASSERT_TRUE(SharedCluster().Start().ok());
  client::WatchOptions o;
  o.resource_version = "1";
  std::stop_source stop;
  Status s = client::WatchObjects<api::Pod>(
      Admin(), o, [](api::WatchEvent<api::Pod>&&) { return true; }, stop.get_token());
  EXPECT_TRUE(client::IsGone(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("410"));
}

TEST(ClientIntegration, BindingSetsNodeNameAndRebindingConflicts) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "bind").ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name("bind-node-1")).ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name("bind-node-2")).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("bind").Name("b")).ok());
  auto pod = client::GetObject<api::Pod>(Admin(), "bind", "b");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->spec.node_name, "");

  ASSERT_TRUE(client::BindPod(Admin(), pod->metadata, "bind-node-1").ok());
  auto bound = client::GetObject<api::Pod>(Admin(), "bind", "b");
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ(bound->spec.node_name, "bind-node-1");

  Status again = client::BindPod(Admin(), pod->metadata, "bind-node-2");
  EXPECT_TRUE(client::IsConflict(again)) << again;
  auto still = client::GetObject<api::Pod>(Admin(), "bind", "b");
  EXPECT_EQ(still->spec.node_name, "bind-node-1");
}

TEST(ClientIntegration, ErrorsAreClassified) {
  auto missing = client::GetObject<api::Pod>(Admin(), "default", "does-not-exist");
  EXPECT_TRUE(client::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr("404"));

  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("default").Name("dup")).ok());
  Status dup = testing::CreatePod(Admin(), BuildPod().Namespace("default").Name("dup"));
  EXPECT_TRUE(client::IsAlreadyExists(dup)) << dup;

  client::RestConfig bad = SharedCluster().AdminConfig();
  bad.bearer_token = "not-a-valid-token";
  auto anon = client::RestClient::New(bad);
  ASSERT_TRUE(anon.ok());
  auto denied = (*anon)->Get("/api/v1/pods");
  EXPECT_TRUE(client::IsUnauthorized(denied.status())) << denied.status();
}

TEST(ClientIntegration, ServiceAccountWithoutRightsIsForbidden) {
  auto sa = Admin().Post("/api/v1/namespaces/default/serviceaccounts",
                         R"({"metadata":{"name":"nobody"}})");
  ASSERT_TRUE(sa.ok() || client::IsAlreadyExists(sa.status())) << sa.status();
  auto token_body =
      Admin().Post("/api/v1/namespaces/default/serviceaccounts/nobody/token",
                   R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  ASSERT_TRUE(token_body.ok()) << token_body.status();
  size_t at = token_body->find("\"token\":\"");
  ASSERT_NE(at, std::string::npos);
  at += 9;
  std::string token = token_body->substr(at, token_body->find('"', at) - at);

  client::RestConfig cfg = SharedCluster().AdminConfig();
  cfg.bearer_token = token;
  auto c = client::RestClient::New(cfg);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Get("/api/v1/nodes");
  EXPECT_TRUE(client::IsForbidden(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("system:serviceaccount:default:nobody"));
}

TEST(ClientIntegration, WrongCertificateAuthorityFailsClearly) {
  client::RestConfig cfg = SharedCluster().AdminConfig();
  cfg.ca_pem = testing::ReadFixture("tls/other-ca.crt");
  cfg.max_retries = 0;
  auto c = client::RestClient::New(cfg);
  ASSERT_TRUE(c.ok()) << c.status();
  auto r = (*c)->Get("/api/v1/namespaces");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("TLS handshake"));
  EXPECT_THAT(r.status().message(), HasSubstr("not trusted"));
}

TEST(ClientIntegration, LeaseCreateAndStaleUpdateConflicts) {
  api::Lease lease;
  lease.metadata.name = "client-test";
  lease.metadata.namespace_ = "default";
  lease.holder_identity = "a";
  lease.lease_duration_seconds = 15;
  lease.acquire_time = api::FormatTime(RealClock().WallNow(), true);
  lease.renew_time = lease.acquire_time;
  auto created = client::CreateLease(Admin(), lease);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->holder_identity, "a");
  EXPECT_FALSE(created->metadata.resource_version.empty());

  api::Lease renewed = *created;
  renewed.holder_identity = "b";
  auto updated = client::UpdateLease(Admin(), renewed);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->holder_identity, "b");

  auto stale = client::UpdateLease(Admin(), renewed);  // the old resourceVersion
  EXPECT_TRUE(client::IsConflict(stale.status())) << stale.status();
  EXPECT_TRUE(client::IsAlreadyExists(client::CreateLease(Admin(), lease).status()));
}

TEST(ClientIntegration, EventsAndStatusPatchesAreAccepted) {
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("default").Name("ev")).ok());
  auto pod = client::GetObject<api::Pod>(Admin(), "default", "ev");
  ASSERT_TRUE(pod.ok());
  api::PodStatus status = pod->status;
  status.conditions.push_back(
      {"PodScheduled", "False", "Unschedulable", "0/0 nodes are available.", ""});
  ASSERT_TRUE(client::PatchPodStatus(Admin(), "default", "ev",
                                     api::EncodePodStatusPatch(pod->status, status))
                  .ok());
  auto after = client::GetObject<api::Pod>(Admin(), "default", "ev");
  ASSERT_TRUE(after.ok());
  ASSERT_FALSE(after->status.conditions.empty());
  EXPECT_EQ(after->status.conditions[0].reason, "Unschedulable");

  api::EventRecord e;
  e.name = "ev.test";
  e.namespace_ = "default";
  e.event_time = api::FormatTime(RealClock().WallNow(), true);
  e.reporting_controller = "stowage";
  e.reporting_instance = "stowage-test";
  e.action = "Scheduling";
  e.reason = "FailedScheduling";
  e.note = "0/0 nodes are available.";
  e.type = "Warning";
  e.regarding_kind = "Pod";
  e.regarding_api_version = "v1";
  e.regarding = pod->metadata;
  Status s = client::CreateEvent(Admin(), e);
  EXPECT_TRUE(s.ok()) << s;
}

// With upstream's default contentType the Binding and the Event go as protobuf; the apiserver
// stores what the JSON bodies say, field for field.
TEST(ClientIntegration, ProtobufBindingAndEventAreStoredAsSent) {
  client::RestConfig rc = SharedCluster().AdminConfig();
  rc.content_type = std::string(client::kProtobuf);
  auto proto = client::RestClient::New(rc);
  ASSERT_TRUE(proto.ok()) << proto.status();
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "proto").ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name("proto-node")).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("proto").Name("pb")).ok());
  auto pod = client::GetObject<api::Pod>(Admin(), "proto", "pb");
  ASSERT_TRUE(pod.ok()) << pod.status();

  Status bound = client::BindPod(**proto, pod->metadata, "proto-node");
  ASSERT_TRUE(bound.ok()) << bound;
  EXPECT_EQ(client::GetObject<api::Pod>(Admin(), "proto", "pb")->spec.node_name, "proto-node");

  api::EventRecord e;
  e.name = "pb.proto";
  e.namespace_ = "proto";
  e.event_time = "2026-11-26T10:20:30.123456Z";
  e.reporting_controller = "default-scheduler";
  e.reporting_instance = "default-scheduler-host";
  e.action = "Binding";
  e.reason = "Scheduled";
  e.note = "Successfully assigned proto/pb to proto-node";
  e.type = "Normal";
  e.regarding_kind = "Pod";
  e.regarding_api_version = "v1";
  e.regarding = pod->metadata;
  e.series_count = 2;
  e.series_last_observed_time = "2026-11-26T10:20:31.5Z";
  Status created = client::CreateEvent(**proto, e);
  ASSERT_TRUE(created.ok()) << created;
  auto stored = Admin().Get("/apis/events.k8s.io/v1/namespaces/proto/events/pb.proto");
  ASSERT_TRUE(stored.ok()) << stored.status();
  auto j = nlohmann::json::parse(*stored);
  EXPECT_EQ(j["eventTime"], "2026-11-26T10:20:30.123456Z");
  EXPECT_EQ(j["series"]["count"], 2);
  EXPECT_EQ(j["series"]["lastObservedTime"], "2026-11-26T10:20:31.500000Z");
  EXPECT_EQ(j["reportingController"], "default-scheduler");
  EXPECT_EQ(j["reportingInstance"], "default-scheduler-host");
  EXPECT_EQ(j["action"], "Binding");
  EXPECT_EQ(j["reason"], "Scheduled");
  EXPECT_EQ(j["note"], "Successfully assigned proto/pb to proto-node");
  EXPECT_EQ(j["type"], "Normal");
  EXPECT_EQ(j["regarding"]["kind"], "Pod");
  EXPECT_EQ(j["regarding"]["name"], "pb");
  EXPECT_EQ(j["regarding"]["namespace"], "proto");
  EXPECT_EQ(j["regarding"]["uid"], pod->metadata.uid);
  EXPECT_EQ(j["regarding"]["resourceVersion"], pod->metadata.resource_version);
}

}  // namespace
}  // namespace stowage::client_test

namespace stowage::client_test {
namespace {

// Runs f with stderr redirected to a file and returns what was written.
std::string CaptureStderr(const std::function<void()>& f) {
  std::string path = SharedCluster().dir() + "/stderr-capture";
  std::fflush(stderr);
  int saved = dup(2);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, 2);
  close(fd);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  auto text = ReadFile(path);
  return text.ok() ? *text : "";
}

TEST(ClientIntegration, CredentialsNeverAppearInLogs) {
  client::RestConfig cfg = SharedCluster().AdminConfig();
  ASSERT_FALSE(cfg.bearer_token.empty());
  std::string logs = CaptureStderr([&] {
    logging::Init(10);
    auto c = client::RestClient::New(cfg);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE((*c)->Get("/api/v1/namespaces").ok());
    EXPECT_FALSE((*c)->Get("/api/v1/namespaces/default/pods/absent").ok());
    client::RestConfig wrong = cfg;
    wrong.bearer_token = cfg.bearer_token + "x";  // rejected: must not be echoed either
    auto w = client::RestClient::New(wrong);
    auto r = (*w)->Get("/api/v1/nodes");
    EXPECT_TRUE(client::IsUnauthorized(r.status()));
    EXPECT_EQ(r.status().message().find(cfg.bearer_token), std::string::npos);
    logging::Init(0);
  });
  EXPECT_NE(logs.find("GET /api/v1/namespaces 200"), std::string::npos) << logs;
  EXPECT_EQ(logs.find(cfg.bearer_token), std::string::npos);
}

}  // namespace
}  // namespace stowage::client_test
