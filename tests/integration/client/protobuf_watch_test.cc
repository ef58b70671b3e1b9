// Lists and watches of Pods and Nodes asked for as protobuf from the real apiserver decode to the
// same objects as the JSON answers, and a too-old watch still ends as Gone.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/client/protobuf.h"
#include "pkg/client/protobuf_decode.h"
#include "pkg/client/resources.h"
#include "stowage/common/mutex.h"
#include "tests/testing/cluster.h"
#include "tests/testing/objects.h"

namespace stowage::protobuf_watch_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using testing::PodAffinityKind;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

std::unique_ptr<client::RestClient> ProtobufClient() {
  client::RestConfig rc = SharedCluster().AdminConfig();
  rc.content_type = std::string(client::kProtobuf);
  auto c = client::RestClient::New(rc);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

template <typename T>
std::map<std::string, std::shared_ptr<const T>> ByName(client::RestClient& c,
                                                       const client::ListOptions& o) {
  auto list = client::ListPage<T>(c, o);
  EXPECT_TRUE(list.ok()) << list.status();
  std::map<std::string, std::shared_ptr<const T>> out;
  if (list.ok()) {
    for (auto& item : list->items) out[item->metadata.name] = item;
  }
  return out;
}

TEST(ProtobufIntegration, ListsAndWatchesDecodeAsJson) {
  auto proto = ProtobufClient();
  ASSERT_NE(proto, nullptr);
  const std::string ns = "pbwatch";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode()
                                               .Name("pb-node")
                                               .Label("topology.kubernetes.io/zone", "z1")
                                               .Taint("dedicated", "gpu", "NoSchedule")
                                               .Image({"nginx:1.27"}, 123456)
                                               .DeclaredFeatures({"FeatureA"}))
                  .ok());
  auto rich =
      BuildPod()
          .Namespace(ns)
          .Name("rich")
          .Label("app", "web")
          .Req({{"cpu", "250m"}, {"memory", "64Mi"}})
          .SidecarReq({{"cpu", "100m"}})
          .NodeAffinityIn("topology.kubernetes.io/zone", {"z1", "z2"})
          .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"web"}, PodAffinityKind::kRequired)
          .PodAffinityIn("app", "topology.kubernetes.io/zone", {"db"}, PodAffinityKind::kPreferred)
          .SpreadConstraint(1, "topology.kubernetes.io/zone", "DoNotSchedule", api::LabelSelector{},
                            2)
          .Toleration("dedicated", "Equal", "gpu", "NoSchedule")
          .HostPort(8080)
          .PVC("data")
          .SchedulingGates({"example.com/wait"});
  Status created = testing::CreatePod(Admin(), rich);
  ASSERT_TRUE(created.ok()) << created.ToString();
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("plain")).ok());

  // The apiserver answers in protobuf, so the comparison below is not JSON against JSON.
  auto raw = proto->Get("/api/v1/namespaces/" + ns + "/pods", client::kProtobuf);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_TRUE(client::IsProtobufEnvelope(*raw));
  auto json_pods = ByName<api::Pod>(Admin(), {.namespace_ = ns});
  auto proto_pods = ByName<api::Pod>(*proto, {.namespace_ = ns});
  ASSERT_EQ(json_pods.size(), 2u);
  ASSERT_EQ(proto_pods.size(), 2u);
  for (const auto& [name, pod] : json_pods) {
    ASSERT_TRUE(proto_pods.count(name)) << name;
    EXPECT_TRUE(*pod == *proto_pods[name]) << name;
  }
  EXPECT_EQ(proto_pods["rich"]->spec.topology_spread_constraints[0].min_domains, 2);
  auto json_nodes = ByName<api::Node>(Admin(), {});
  auto proto_nodes = ByName<api::Node>(*proto, {});
  ASSERT_TRUE(proto_nodes.count("pb-node"));
  EXPECT_TRUE(*json_nodes["pb-node"] == *proto_nodes["pb-node"]);

  // A protobuf watch from the list's version sees a new pod as the JSON GET shows it.
  auto list = client::ListPage<api::Pod>(*proto, {.namespace_ = ns});
  ASSERT_TRUE(list.ok()) << list.status();
  Mutex mu;
  std::shared_ptr<const api::Pod> seen;
  std::stop_source stop;
  Status watch_status;
  std::thread watcher([&] {
    client::WatchOptions o{
        .namespace_ = ns, .resource_version = list->resource_version, .timeout_seconds = 60};
    watch_status = client::WatchObjects<api::Pod>(
        *proto, o,
        [&](api::WatchEvent<api::Pod>&& ev) {
          if (ev.type != api::WatchEventType::kAdded || ev.object->metadata.name != "late") {
            return true;
          }
          MutexLock l(mu);
          seen = ev.object;
          return false;
        },
        stop.get_token());
  });
  ASSERT_TRUE(testing::CreatePod(Admin(), rich.Name("late")).ok());
  watcher.join();
  EXPECT_TRUE(watch_status.ok()) << watch_status;
  MutexLock l(mu);
  ASSERT_NE(seen, nullptr);
  auto got = client::GetObject<api::Pod>(Admin(), ns, "late");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == *seen);
}

// After an apiserver restart, whose watch cache starts at etcd's current revision, a watch from
// an older version gets an ERROR event whose protobuf Status says 410.
TEST(ProtobufIntegration, TooOldWatchEndsAsGone) {
  auto proto = ProtobufClient();
  ASSERT_NE(proto, nullptr);
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "pbgone").ok());
  auto list = client::ListPage<api::Pod>(*proto, {.namespace_ = "pbgone"});
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("pbgone").Name("after")).ok());
  SharedCluster().Stop();
  ASSERT_TRUE(SharedCluster().Start().ok());
  client::WatchOptions o{
      .namespace_ = "pbgone", .resource_version = list->resource_version, .timeout_seconds = 30};
  Status s = client::WatchObjects<api::Pod>(*proto, o,
                                            [](api::WatchEvent<api::Pod>&&) { return true; }, {});
  EXPECT_TRUE(client::IsGone(s)) << s;
}

}  // namespace
}  // namespace stowage::protobuf_watch_test
