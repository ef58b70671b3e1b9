// `stowage snapshot` of the real cluster, then `stowage simulate` of that file with no API
// server, must place the pending pods exactly as the live stowage then does with the same
// configuration and seed, and leave the same pod pending with the same message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "pkg/client/resources.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/builders.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::simulate_test {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;

constexpr char kNs[] = "simulate";
constexpr char kProfile[] = "stowage-simulate";

std::map<std::string, std::string> LivePlacements() {
  std::map<std::string, std::string> out;
  client::ListOptions o;
  o.namespace_ = kNs;
  auto pods = client::ListPage<api::Pod>(SharedCluster().Admin(), o);
  if (!pods.ok()) return out;
  for (const auto& p : pods->items)
    out[kNs + std::string("/") + p->metadata.name] = p->spec.node_name;
  return out;
}

TEST(SimulateCommand, ASnapshotSimulatedPlacesPodsAsTheLiveSchedulerDoes) {
  auto& admin = SharedCluster().Admin();
  ASSERT_TRUE(testing::EnsureNamespace(admin, kNs).ok());
  const std::vector<std::tuple<std::string, std::string, std::string>> nodes = {
      {"sim-a1", "4", "a"}, {"sim-a2", "4", "a"}, {"sim-b1", "8", "b"}, {"sim-b2", "2", "b"}};
  for (const auto& [name, cpu, zone] : nodes) {
    ASSERT_TRUE(testing::CreateNode(
                    admin, testing::BuildNode()
                               .Name(name)
                               .Label("simulate", "yes")
                               .Label("topology.kubernetes.io/zone", zone)
                               .Label("kubernetes.io/hostname", name)
                               .Capacity({{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}}))
                    .ok());
  }
  auto pod = [](const std::string& name, const std::string& cpu) {
    return testing::BuildPod()
        .Namespace(kNs)
        .Name(name)
        .SchedulerName(kProfile)
        .NodeSelector({{"simulate", "yes"}})
        .Req({{"cpu", cpu}, {"memory", "256Mi"}});
  };
  // Already running: bound by hand, as another scheduler would have.
  ASSERT_TRUE(testing::CreatePod(admin, pod("running", "1").Node("sim-a1")).ok());
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(
        testing::CreatePod(
            admin, pod("web-" + std::to_string(i), "500m")
                       .Label("app", "web")
                       .SpreadConstraint(1, "topology.kubernetes.io/zone", "DoNotSchedule",
                                         testing::BuildLabelSelector().Label("app", "web").Obj()))
            .ok());
  }
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        testing::CreatePod(admin, pod("batch-" + std::to_string(i), "1")
                                      .Label("app", "batch")
                                      .PodAntiAffinityExists("app", "kubernetes.io/hostname",
                                                             testing::PodAffinityKind::kPreferred))
            .ok());
  }
  ASSERT_TRUE(testing::CreatePod(admin, pod("big", "6")).ok());
  ASSERT_TRUE(testing::CreatePod(admin, pod("huge", "64")).ok());

  const std::string dir = SharedCluster().dir();
  const std::string config = dir + "/simulate-config.yaml";
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "leaderElection: {leaderElect: false}\n"
                           "clientConnection: {kubeconfig: "
                        << SharedCluster().kubeconfig()
                        << "}\n"
                           "profiles:\n- schedulerName: "
                        << kProfile << "\n";
  const std::string snap = dir + "/simulate-snapshot.yaml";
  ASSERT_EQ(RunTo(STOWAGE_BINARY,
                  {"snapshot", "-o", snap, "--kubeconfig=" + SharedCluster().kubeconfig()},
                  dir + "/snapshot.out"),
            0);
  auto text = ReadFile(snap, 256u << 20);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("kind: List"));
  EXPECT_THAT(*text, HasSubstr("name: sim-b2"));
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("managedFields")));

  const std::string out = dir + "/simulate.json";
  ASSERT_EQ(RunTo(STOWAGE_BINARY,
                  {"simulate", snap, "-o", "json", "--seed", "5", "--config=" + config}, out),
            0);
  auto result = nlohmann::json::parse(*ReadFile(out), nullptr, false);
  ASSERT_FALSE(result.is_discarded()) << *ReadFile(out);
  std::map<std::string, std::string> simulated;
  std::string simulated_message;
  for (const auto& p : result["pods"]) {
    const std::string key = p["pod"];
    if (key.rfind(std::string(kNs) + "/", 0) != 0) continue;
    simulated[key] = p["node"];
    if (key == std::string(kNs) + "/huge") simulated_message = p.value("message", "");
  }
  ASSERT_EQ(simulated.size(), 14u) << result.dump(2);
  EXPECT_EQ(simulated[std::string(kNs) + "/huge"], "");
  EXPECT_THAT(simulated_message, HasSubstr("Insufficient cpu"));

  // The live scheduler, same configuration and seed, on the cluster the snapshot was taken of.
  // With --config, the file's clientConnection.kubeconfig is the one used, as upstream.
  Instance live({"--config=" + config, "--random-seed=5"});
  ASSERT_TRUE(testing::Eventually(
      [] {
        auto placed = LivePlacements();
        size_t bound = 0;
        for (const auto& [pod, node] : placed) bound += !node.empty();
        return bound == 14 && !ScheduledMessage(kNs, "huge").empty();
      },
      90s))
      << live.Log();
  auto placed = LivePlacements();
  placed.erase(std::string(kNs) + "/running");
  EXPECT_EQ(placed, simulated);
  EXPECT_EQ(ScheduledMessage(kNs, "huge"), simulated_message);
}

// `kubectl stowage snapshot`, through the real kubectl of the test cluster and kubectl's own
// --kubeconfig, writes the snapshot simulate reads.
TEST(SimulateCommand, TheKubectlPluginTakesASnapshotWithKubectlsConfig) {
  const std::string dir = SharedCluster().dir();
  const std::string snap = dir + "/kubectl-snapshot.json";
  testing::Process p;
  const std::string path =
      std::string(KUBECTL_STOWAGE_DIR) + ":" + testing::TestCluster::BinDir() + ":/usr/bin:/bin";
  ASSERT_TRUE(p.Start({testing::TestCluster::BinDir() + "/kubectl", "stowage", "snapshot", "-o",
                       snap, "--format", "json", "--kubeconfig", SharedCluster().kubeconfig()},
                      dir + "/kubectl-snapshot.log",
                      {"PATH=" + path, std::string("STOWAGE=") + STOWAGE_BINARY})
                  .ok());
  ASSERT_EQ(p.Wait(60s).value_or(-1), 0) << p.Log();
  auto text = ReadFile(snap, 256u << 20);
  ASSERT_TRUE(text.ok()) << text.status();
  auto list = nlohmann::json::parse(*text, nullptr, false);
  ASSERT_FALSE(list.is_discarded()) << text->substr(0, 200);
  EXPECT_EQ(list["kind"], "List");
  std::set<std::string> kinds, namespaces;
  for (const auto& item : list["items"]) {
    kinds.insert(item.value("kind", ""));
    if (item["kind"] == "Namespace") namespaces.insert(item["metadata"]["name"]);
  }
  EXPECT_TRUE(kinds.count("Node")) << p.Log();
  EXPECT_TRUE(namespaces.count("kube-system")) << p.Log();
  const std::string out = dir + "/kubectl-simulate.json";
  ASSERT_EQ(RunTo(STOWAGE_BINARY, {"simulate", snap, "-o", "json"}, out), 0);
  auto result = nlohmann::json::parse(*ReadFile(out), nullptr, false);
  ASSERT_FALSE(result.is_discarded());
  EXPECT_EQ(result["seed"], 1);
  // A wrong flag is refused with the usage, before anything runs.
  testing::Process bad;
  ASSERT_TRUE(bad.Start({testing::TestCluster::BinDir() + "/kubectl", "stowage", "snapshot",
                         "--namespace-typo", "x"},
                        dir + "/kubectl-snapshot-bad.log", {"PATH=" + path})
                  .ok());
  EXPECT_EQ(bad.Wait(60s).value_or(-1), 2);
  EXPECT_THAT(bad.Log(), HasSubstr("usage: kubectl stowage explain"));
}

}  // namespace
}  // namespace stowage::apptest::simulate_test
