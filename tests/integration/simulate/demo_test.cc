// `stowage simulate` of a snapshot of the demo cluster (cmd/stowage-demo: tainted, cordoned and
// too-small nodes, pods that fit nowhere, a StatefulSet whose claims wait for their first
// consumer) must place each pod where the live stowage then does with the same configuration and
// seed, and leave the same pods pending with the same messages. The live run also provisions and
// binds the replicas' claims, which the simulation only pretends to do. A binary of its own: the
// cluster runs the storage flow, and the demo's nodes and pods (no node selector) stay apart from
// the other tests'.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/client/resources.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::simulatetest::demo_test {
namespace {

// The cluster runs the PV controllers, the StatefulSet controller and the test provisioner.
[[maybe_unused]] const bool kStorageFlow = testing::UseStorageFlow();

using apptest::Instance;
using apptest::RunTo;
using ::testing::HasSubstr;
using testing::SharedCluster;
using namespace std::chrono_literals;

constexpr char kNs[] = "demo";  // stowage-demo's namespace
constexpr char kProfile[] = "stowage-demo-test";
constexpr size_t kDemoPods = 12 + 3;

// The demo's pods: node (or "") and, for a pod the scheduler gave up on, its message.
struct Live {
  std::map<std::string, std::string> node, message;
  size_t decided = 0;
};

Live LivePods() {
  Live out;
  client::ListOptions o;
  o.namespace_ = kNs;
  auto pods = client::ListPage<api::Pod>(SharedCluster().Admin(), o);
  if (!pods.ok()) return out;
  for (const auto& p : pods->items) {
    const std::string key = kNs + std::string("/") + p->metadata.name;
    out.node[key] = p->spec.node_name;
    bool failed = false;
    for (const auto& c : p->status.conditions) {
      if (c.type == "PodScheduled" && c.status == "False") {
        out.message[key] = c.message;
        failed = true;
      }
    }
    out.decided += !p->spec.node_name.empty() || failed;
  }
  return out;
}

// The replicas' claims by name: their phase and volume.
std::map<std::string, std::pair<std::string, std::string>> Claims() {
  std::map<std::string, std::pair<std::string, std::string>> out;
  client::ListOptions o;
  o.namespace_ = kNs;
  auto claims = client::ListPage<api::PersistentVolumeClaim>(SharedCluster().Admin(), o);
  if (!claims.ok()) return out;
  for (const auto& c : claims->items) out[c->metadata.name] = {c->phase, c->volume_name};
  return out;
}

// The node a provisioned volume is pinned to (its kubernetes.io/hostname affinity), or "".
std::string VolumeNode(const std::string& name) {
  auto pv = client::GetObject<api::PersistentVolume>(SharedCluster().Admin(), "", name);
  if (!pv.ok() || !pv->node_affinity) return "";
  for (const auto& term : pv->node_affinity->terms) {
    for (const auto& r : term.match_expressions) {
      if (r.key == "kubernetes.io/hostname" && !r.values.empty()) return r.values[0];
    }
  }
  return "";
}

size_t VolumeCount() {
  auto pvs = client::ListPage<api::PersistentVolume>(SharedCluster().Admin(), {});
  return pvs.ok() ? pvs->items.size() : 1000;
}

TEST(SimulateDemo, ASnapshotOfTheDemoSimulatedPlacesPodsAsTheLiveSchedulerDoes) {
  const std::string dir = SharedCluster().dir();
  const std::string kubeconfig = SharedCluster().kubeconfig();
  // The demo's objects, with no scheduler running: every pod pending, every claim unbound.
  ASSERT_EQ(RunTo(STOWAGE_DEMO_BINARY,
                  {"--kubeconfig", kubeconfig, "--scheduler-name", kProfile, "--create-only"},
                  dir + "/demo.out"),
            0);
  ASSERT_EQ(LivePods().node.size(), kDemoPods);

  const std::string config = dir + "/demo-config.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "leaderElection: {leaderElect: false}\n"
                           "clientConnection: {kubeconfig: "
                        << kubeconfig
                        << "}\n"
                           "profiles:\n- schedulerName: "
                        << kProfile << "\n";
  const std::string snap = dir + "/demo-snapshot.yaml";
  ASSERT_EQ(RunTo(STOWAGE_BINARY, {"snapshot", "-o", snap, "--kubeconfig=" + kubeconfig},
                  dir + "/snapshot.out"),
            0);
  const std::string out = dir + "/demo-simulate.json";
  ASSERT_EQ(RunTo(STOWAGE_BINARY,
                  {"simulate", snap, "-o", "json", "--seed", "5", "--config=" + config}, out),
            0);
  auto result = nlohmann::json::parse(*ReadFile(out), nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << *ReadFile(out);
  EXPECT_FALSE(result.value("stoppedEarly", true)) << result.dump(2);
  std::map<std::string, std::string> simulated, simulated_message;
  for (const auto& p : result["pods"]) {
    const std::string key = p["pod"];
    if (key.rfind(std::string(kNs) + "/", 0) != 0) continue;
    simulated[key] = p["node"];
    if (p["node"] == "") simulated_message[key] = p.value("message", "");
  }
  ASSERT_EQ(simulated.size(), kDemoPods) << result.dump(2);
  // The demo's own story: the gpu job on the tainted node it tolerates, two pods fitting nowhere.
  EXPECT_EQ(simulated["demo/gpu-job"], "demo-b2");
  EXPECT_THAT(simulated_message["demo/too-big"], HasSubstr("Insufficient cpu"));
  EXPECT_THAT(simulated_message["demo/zone-x-only"], HasSubstr("node affinity/selector"));
  EXPECT_EQ(simulated_message.size(), 2u) << result.dump(2);

  // The live scheduler, same configuration and seed, on the cluster the snapshot was taken of.
  Instance live({"--config=" + config, "--random-seed=5"});
  ASSERT_TRUE(testing::Eventually(
      [] {
        auto claims = Claims();
        size_t bound = 0;
        for (const auto& [name, c] : claims) bound += c.first == "Bound";
        return LivePods().decided == kDemoPods && bound == 3;
      },
      120s, 200ms))
      << live.Log();
  const Live placed = LivePods();
  EXPECT_EQ(placed.node, simulated);
  for (const auto& [pod, node] : placed.node) {
    auto message = placed.message.find(pod);
    const std::string where = !node.empty()                     ? node
                              : message != placed.message.end() ? "pending: " + message->second
                                                                : "pending";
    std::printf("%-18s %s\n", pod.c_str(), where.c_str());
  }
  for (const auto& [pod, message] : simulated_message) {
    auto live_message = placed.message.find(pod);
    EXPECT_EQ(live_message == placed.message.end() ? "" : live_message->second, message) << pod;
  }
  // Each replica's claim is Bound to a volume provisioned on the replica's node.
  const auto claims = Claims();
  for (int i = 0; i < 3; ++i) {
    const std::string pod = std::string(kNs) + "/db-" + std::to_string(i);
    ASSERT_TRUE(claims.count("data-db-" + std::to_string(i))) << pod;
    const auto& [phase, volume] = claims.at("data-db-" + std::to_string(i));
    EXPECT_EQ(phase, "Bound") << pod;
    EXPECT_EQ(VolumeNode(volume), placed.node.at(pod)) << pod << "'s volume " << volume;
  }

  // The StatefulSet first, or its controller makes the pods again; then the pods, so that the
  // claims lose their protection and their volumes are reclaimed.
  auto& admin = SharedCluster().Admin();
  const std::string ns = std::string("/namespaces/") + kNs;
  EXPECT_TRUE(admin.Delete("/apis/apps/v1" + ns + "/statefulsets/db").ok());
  EXPECT_TRUE(admin.Delete("/api/v1" + ns + "/pods?gracePeriodSeconds=0").ok());
  EXPECT_TRUE(admin.Delete("/api/v1" + ns + "/persistentvolumeclaims").ok());
  EXPECT_TRUE(testing::Eventually([] { return VolumeCount() == 0; }, 60s, 200ms))
      << VolumeCount() << " volumes left";
  EXPECT_TRUE(admin.Delete("/apis/storage.k8s.io/v1/storageclasses/demo-local").ok());
  for (const char* node : {"demo-a1", "demo-a2", "demo-b1", "demo-b2", "demo-c1"}) {
    EXPECT_TRUE(admin.Delete(std::string("/api/v1/nodes/") + node).ok()) << node;
  }
  EXPECT_TRUE(admin.Delete("/api/v1/namespaces/demo").ok());
}

}  // namespace
}  // namespace stowage::simulatetest::demo_test
