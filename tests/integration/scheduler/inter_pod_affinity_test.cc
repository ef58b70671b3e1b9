// InterPodAffinity against a real kube-apiserver + etcd: required anti-affinity keeps replicas
// on distinct hosts while they are deleted and recreated, and a pod waiting on required affinity
// is scheduled when its partner arrives, through the queueing hint rather than the five-minute
// flush of unschedulable pods.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::inter_pod_affinity_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using testing::PodAffinityKind;
using testing::RunningScheduler;

constexpr char kHostname[] = "kubernetes.io/hostname";

client::RestClient& Admin() { return testing::SharedCluster().Admin(); }

// Nodes of this file only, labelled group=<group> so its pods stay off the other tests' nodes.
void CreateNodes(const std::string& group, int count) {
  for (int i = 0; i < count; ++i) {
    const std::string name = group + "-" + std::to_string(i);
    Status s = testing::CreateNode(
        Admin(), BuildClusterNode().Name(name).Label(kHostname, name).Label("group", group));
    ASSERT_TRUE(s.ok()) << s;
  }
}

std::map<std::string, std::string> NodeOfPod(const std::string& ns) {
  std::map<std::string, std::string> out;
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  if (!list.ok()) return out;
  for (const auto& p : list->items) out[p->metadata.name] = p->spec.node_name;
  return out;
}

bool Bound(const std::string& ns, const std::string& name) {
  auto pod = client::GetObject<api::Pod>(Admin(), ns, name);
  return pod.ok() && !pod->spec.node_name.empty();
}

// Each pod's node, or its PodScheduled=False message, for failure output.
std::string Describe(const std::string& ns);

std::string ScheduledMessage(const std::string& ns, const std::string& name) {
  auto pod = client::GetObject<api::Pod>(Admin(), ns, name);
  if (!pod.ok()) return "";
  for (const auto& c : pod->status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") return c.message;
  }
  return "";
}

std::string Describe(const std::string& ns) {
  std::string out;
  for (const auto& [pod, node] : NodeOfPod(ns)) {
    out += pod + ": " + (node.empty() ? "pending: " + ScheduledMessage(ns, pod) : node) + "\n";
  }
  return out;
}

testing::PodWrapper Replica(const std::string& ns, const std::string& name) {
  return BuildPod()
      .Namespace(ns)
      .Name(name)
      .SchedulerName("stowage")
      .Label("app", "web")
      .NodeSelector({{"group", ns}})
      .PodAntiAffinityIn("app", kHostname, {"web"}, PodAffinityKind::kRequired);
}

TEST(InterPodAffinityIntegration, RequiredAntiAffinityKeepsReplicasApartUnderChurn) {
  const std::string ns = "ipa-anti";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  CreateNodes(ns, 3);
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  for (const std::string& w : sched.warnings()) {
    EXPECT_EQ(w.find("InterPodAffinity"), std::string::npos) << w;
  }
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), Replica(ns, "web-" + std::to_string(i))).ok());
  }
  auto distinct_hosts = [&] {
    std::map<std::string, int> per_node;
    for (const auto& [pod, node] : NodeOfPod(ns)) {
      if (!node.empty() && ++per_node[node] > 1) return false;
    }
    return true;
  };
  auto bound_count = [&] {
    int n = 0;
    for (const auto& [pod, node] : NodeOfPod(ns)) n += !node.empty();
    return n;
  };
  // Three hosts, four replicas: one waits, with the anti-affinity reason in its condition.
  ASSERT_TRUE(testing::Eventually(
      [&] {
        if (bound_count() != 3) return false;
        for (const auto& [pod, node] : NodeOfPod(ns)) {
          if (node.empty()) {
            return ScheduledMessage(ns, pod).find(
                       "3 node(s) didn't match pod anti-affinity rules") != std::string::npos;
          }
        }
        return false;
      },
      std::chrono::seconds(60)))
      << Describe(ns);
  EXPECT_TRUE(distinct_hosts());

  // Churn: delete a bound replica, so the waiting one takes its host (the AssignedPod Delete
  // hint); recreate it, so it is now the one that waits. Hosts stay distinct throughout.
  for (int round = 0; round < 3; ++round) {
    std::string victim;
    for (const auto& [pod, node] : NodeOfPod(ns)) {
      if (!node.empty()) victim = pod;
    }
    ASSERT_FALSE(victim.empty());
    ASSERT_TRUE(testing::DeletePod(Admin(), ns, victim).ok());
    ASSERT_TRUE(testing::Eventually([&] { return NodeOfPod(ns).size() == 3 && bound_count() == 3; },
                                    std::chrono::seconds(60)))
        << "round " << round;
    EXPECT_TRUE(distinct_hosts());
    ASSERT_TRUE(testing::CreatePod(Admin(), Replica(ns, victim)).ok());
    ASSERT_TRUE(testing::Eventually(
        [&] { return NodeOfPod(ns).size() == 4 && !ScheduledMessage(ns, victim).empty(); },
        std::chrono::seconds(60)))
        << "round " << round;
    EXPECT_EQ(bound_count(), 3);
    EXPECT_TRUE(distinct_hosts());
  }
}

TEST(InterPodAffinityIntegration, PodWaitingOnAffinityIsScheduledWhenItsPartnerArrives) {
  const std::string ns = "ipa-affinity";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  CreateNodes(ns, 3);
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod()
                                              .Namespace(ns)
                                              .Name("follower")
                                              .SchedulerName("stowage")
                                              .Label("app", "follower")
                                              .NodeSelector({{"group", ns}})
                                              .PodAffinityIn("app", kHostname, {"leader"},
                                                             PodAffinityKind::kRequired))
                  .ok());
  // No leader anywhere, and the follower does not match its own term: it waits.
  ASSERT_TRUE(testing::Eventually(
      [&] {
        return ScheduledMessage(ns, "follower").find("didn't match pod affinity rules") !=
               std::string::npos;
      },
      std::chrono::seconds(60)))
      << Describe(ns);
  const std::string host = ns + "-1";
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod()
                                              .Namespace(ns)
                                              .Name("leader")
                                              .SchedulerName("stowage")
                                              .Label("app", "leader")
                                              .NodeSelector({{kHostname, host}}))
                  .ok());
  // The leader's binding is an AssignedPod Add whose hint requeues the follower; the
  // unschedulable-pods flush would take five minutes, beyond this wait.
  ASSERT_TRUE(testing::Eventually([&] { return Bound(ns, "follower"); }, std::chrono::seconds(90)))
      << Describe(ns);
  EXPECT_EQ(NodeOfPod(ns)["follower"], host);
}

}  // namespace
}  // namespace stowage::inter_pod_affinity_test
