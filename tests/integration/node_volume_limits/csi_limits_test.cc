// NodeVolumeLimits on a real kube-apiserver: with a limit of one volume of a CSI driver per node
// (the CSINodes' allocatable.count), two pods with such volumes take one node each, a third
// waits with upstream's reason, and a new CSINode that raises a node's limit lets it in. Then
// upstream's kube-scheduler, given a pod that fits nowhere either, writes the same message.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/client/resources.h"
#include "pkg/plugins/node_volume_limits/node_volume_limits.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::csi_limits_test {
namespace {

extern "C" char** environ;

using json = nlohmann::json;
using testing::BuildClusterNode;
using testing::BuildPod;
using testing::RunningScheduler;

constexpr const char* kNs = "csi-limits";
constexpr const char* kDriver = "limits.csi.example.com";

client::RestClient& Admin() { return testing::SharedCluster().Admin(); }

void Create(const std::string& path, const json& body) {
  auto r = Admin().Post(path, body.dump());
  ASSERT_TRUE(r.ok()) << path << ": " << r.status();
}

bool WaitFor(const std::function<bool()>& cond) {
  return testing::Eventually(cond, std::chrono::seconds(30), std::chrono::milliseconds(200));
}

// The pod's PodScheduled condition message once the scheduler has written one, else "".
std::string PendingMessage(const std::string& pod) {
  auto p = client::GetObject<api::Pod>(Admin(), kNs, pod);
  if (!p.ok()) return "";
  for (const auto& c : p->status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") return c.message;
  }
  return "";
}

// The node the pod is bound to, once it is (empty if it is not within the wait).
std::string BoundNode(const std::string& pod) {
  std::string node;
  WaitFor([&] {
    auto p = client::GetObject<api::Pod>(Admin(), kNs, pod);
    node = p.ok() ? p->spec.node_name : "";
    return !node.empty();
  });
  return node;
}

json CSINode(const std::string& node, int count) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "CSINode"},
          {"metadata", {{"name", node}}},
          {"spec",
           {{"drivers",
             {{{"name", kDriver}, {"nodeID", node}, {"allocatable", {{"count", count}}}}}}}}};
}

// A CSI volume of the driver bound to a claim of the same name (as the PV controller would
// have bound them: none runs here).
void CreateBoundVolume(const std::string& name) {
  Create("/api/v1/persistentvolumes",
         {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"capacity", {{"storage", "1Gi"}}},
            {"accessModes", {"ReadWriteOnce"}},
            {"storageClassName", "limited"},
            {"csi", {{"driver", kDriver}, {"volumeHandle", "handle-" + name}}},
            {"claimRef", {{"namespace", kNs}, {"name", name}}}}}});
  Create(std::string("/api/v1/namespaces/") + kNs + "/persistentvolumeclaims",
         {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata",
           {{"name", name}, {"annotations", {{"pv.kubernetes.io/bind-completed", "yes"}}}}},
          {"spec",
           {{"accessModes", {"ReadWriteOnce"}},
            {"resources", {{"requests", {{"storage", "1Gi"}}}}},
            {"storageClassName", "limited"},
            {"volumeName", name}}}});
}

TEST(NodeVolumeLimits, CSILimitKeepsAThirdVolumeOffBothNodes) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), kNs).ok());
  for (const char* node : {"nvl-a", "nvl-b"}) {
    ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name(node)).ok());
    Create("/apis/storage.k8s.io/v1/csinodes", CSINode(node, 1));
  }
  for (int i = 1; i <= 3; ++i) CreateBoundVolume("vol-" + std::to_string(i));
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  auto pod = [&](int i) {
    return BuildPod()
        .Namespace(kNs)
        .Name("pod-" + std::to_string(i))
        .SchedulerName("stowage")
        .PVC("vol-" + std::to_string(i));
  };
  ASSERT_TRUE(testing::CreatePod(Admin(), pod(1)).ok());
  const std::string first = BoundNode("pod-1");
  ASSERT_FALSE(first.empty());
  ASSERT_TRUE(testing::CreatePod(Admin(), pod(2)).ok());
  const std::string second = BoundNode("pod-2");
  ASSERT_FALSE(second.empty());
  EXPECT_NE(first, second);

  ASSERT_TRUE(testing::CreatePod(Admin(), pod(3)).ok());
  const std::string want =
      "0/2 nodes are available: 2 " +
      std::string(plugins::node_volume_limits::kErrReasonMaxVolumeCountExceeded) +
      ". preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
  ASSERT_TRUE(WaitFor([&] { return PendingMessage("pod-3") == want; })) << PendingMessage("pod-3");

  // A CSINode with a higher limit (re-created: an Add event, which has no hint) lets it in.
  ASSERT_TRUE(Admin().Delete("/apis/storage.k8s.io/v1/csinodes/nvl-a").ok());
  Create("/apis/storage.k8s.io/v1/csinodes", CSINode("nvl-a", 2));
  EXPECT_EQ(BoundNode("pod-3"), "nvl-a");

  // Both nodes are full now. Upstream and stowage reject a fourth and fifth volume alike.
  for (int i = 4; i <= 5; ++i) CreateBoundVolume("vol-" + std::to_string(i));
  std::string bin = testing::TestCluster::BinDir() + "/kube-scheduler";
  std::vector<std::string> args = {bin, "--kubeconfig=" + testing::SharedCluster().kubeconfig(),
                                   "--leader-elect=false", "--secure-port=0", "-v=0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const std::string log = testing::SharedCluster().dir() + "/kube-scheduler.log";
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace(kNs).Name("up-4").PVC("vol-4")).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), pod(5)).ok());
  const bool upstream = WaitFor([&] { return !PendingMessage("up-4").empty(); });
  const bool ours = WaitFor([&] { return !PendingMessage("pod-5").empty(); });
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(upstream) << "upstream wrote no condition; its log: " << log;
  ASSERT_TRUE(ours);
  EXPECT_EQ(PendingMessage("pod-5"), PendingMessage("up-4"));
  EXPECT_EQ(PendingMessage("pod-5"), want);
}

}  // namespace
}  // namespace stowage::csi_limits_test
