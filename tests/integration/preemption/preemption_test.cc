// Preemption against a real kube-apiserver + etcd: a critical pod on a full cluster, a
// PodDisruptionBudget that steers the choice of victims, two preemptors racing for one node, and
// a preemptor deleted while its victims terminate. After every test no node holds more than its
// allocatable. No kubelet runs, so a FakeKubelet finishes the graceful deletion of the victims
// (after a delay, to keep them terminating for a while as a kubelet would).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "stowage/framework/types.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::preemption_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using testing::RunningScheduler;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

// Polls the apiserver every 200 ms.
bool Eventually(const std::function<bool()>& cond, int seconds) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(200));
}

std::vector<api::PodPtr> Pods(const std::string& ns) {
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  EXPECT_TRUE(list.ok()) << list.status();
  return list.ok() ? std::move(list->items) : std::vector<api::PodPtr>{};
}

api::PodPtr Get(const std::string& ns, const std::string& name) {
  auto p = client::GetObject<api::Pod>(Admin(), ns, name);
  return p.ok() ? std::make_shared<api::Pod>(std::move(*p)) : nullptr;
}

void EnsurePriorityClasses() {
  for (const auto& [name, value] : std::map<std::string, int>{{"low", 10}, {"high", 1000}}) {
    auto pc = Admin().Post(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        R"({"metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) + "}");
    ASSERT_TRUE(pc.ok() || client::IsAlreadyExists(pc.status())) << pc.status();
  }
}

// Finishes the graceful deletion of the pods of ns once they have been terminating for delay,
// as a kubelet would after stopping their containers.
class FakeKubelet {
 public:
  FakeKubelet(std::string ns, std::chrono::milliseconds delay)
      : thread_([this, ns = std::move(ns), delay](std::stop_token stop) {
          std::map<std::string, std::chrono::steady_clock::time_point> seen;
          while (!stop.stop_requested()) {
            for (const auto& p : Pods(ns)) {
              if (!p->metadata.deletion_timestamp) continue;
              auto [it, fresh] = seen.emplace(p->metadata.name, std::chrono::steady_clock::now());
              if (std::chrono::steady_clock::now() - it->second >= delay) {
                (void)testing::DeletePod(Admin(), ns, p->metadata.name);
                ++finalized;
              }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
          }
        }) {}
  std::atomic<int> finalized{0};

 private:
  std::jthread thread_;
};

// Nodes created for one test and deleted at its end, so the next test's messages count only
// its own nodes.
class Nodes {
 public:
  void Add(const testing::NodeWrapper& node, const std::string& name) {
    ASSERT_TRUE(testing::CreateNode(Admin(), node).ok());
    names_.push_back(name);
  }
  ~Nodes() {
    for (const auto& n : names_) (void)Admin().Delete("/api/v1/nodes/" + n);
  }

 private:
  std::vector<std::string> names_;
};

// Every node's bound pods (terminating ones included: they still hold their room) fit in its
// allocatable CPU.
void ExpectNoNodeOvercommitted() {
  auto nodes = client::ListPage<api::Node>(Admin(), {});
  ASSERT_TRUE(nodes.ok());
  auto pods = client::ListPage<api::Pod>(Admin(), {});
  ASSERT_TRUE(pods.ok());
  std::map<std::string, int64_t> used;
  for (const auto& p : pods->items) {
    if (p->spec.node_name.empty() || p->status.phase == "Succeeded" ||
        p->status.phase == "Failed") {
      continue;
    }
    used[p->spec.node_name] += framework::ComputePodRequests(*p).milli_cpu;
  }
  for (const auto& n : nodes->items) {
    const int64_t allocatable = framework::Resource::FromList(n->status.allocatable).milli_cpu;
    EXPECT_LE(used[n->metadata.name], allocatable) << n->metadata.name << " is overcommitted";
  }
}

testing::PodWrapper Pod(const std::string& ns, const std::string& name, const std::string& cls,
                        const std::string& cpu) {
  return BuildPod().Namespace(ns).Name(name).PriorityClassName(cls).Req({{"cpu", cpu}});
}

class PreemptionTest : public ::testing::Test {
 protected:
  void SetUp() override { EnsurePriorityClasses(); }
  void TearDown() override { ExpectNoNodeOvercommitted(); }
};

TEST_F(PreemptionTest, ACriticalPodPreemptsOneLowPriorityPodOnAFullCluster) {
  const std::string ns = "full";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  Nodes nodes;
  for (const char* n : {"full-1", "full-2"}) {
    nodes.Add(BuildClusterNode().Name(n).Capacity("cpu", "2").Label("pool", "full"), n);
  }
  FakeKubelet kubelet(ns, std::chrono::seconds(1));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), Pod(ns, "low-" + std::to_string(i), "low", "1")
                                                .Node(i < 2 ? "full-1" : "full-2"))
                    .ok());
  }
  RunningScheduler sched;
  auto critical = BuildPod()
                      .Namespace("kube-system")
                      .Name("critical")
                      .PriorityClassName("system-cluster-critical")
                      .NodeSelector({{"pool", "full"}})
                      .Req({{"cpu", "1"}});
  ASSERT_TRUE(testing::CreatePod(Admin(), critical).ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto p = Get("kube-system", "critical");
        return p && !p->spec.node_name.empty();
      },
      60))
      << "the critical pod never bound";
  auto bound = Get("kube-system", "critical");
  EXPECT_EQ(bound->status.nominated_node_name, "") << "a bound pod keeps no nomination";
  EXPECT_EQ(Pods(ns).size(), 3u) << "exactly one victim";
  // The victim's Preempted event, as upstream writes it: the preemptor is its related object.
  nlohmann::json preempted;
  EXPECT_TRUE(Eventually(
      [&] {
        auto list = Admin().Get("/apis/events.k8s.io/v1/namespaces/" + ns + "/events");
        if (!list.ok()) return false;
        const nlohmann::json events = nlohmann::json::parse(*list);
        for (const auto& e : events["items"]) {
          if (e.value("reason", "") == "Preempted") preempted = e;
        }
        return !preempted.is_null();
      },
      30))
      << "no Preempted event";
  if (!preempted.is_null()) {
    EXPECT_EQ(preempted["type"], "Normal");
    EXPECT_EQ(preempted["action"], "Preempting");
    EXPECT_EQ(preempted["note"],
              "Preempted by pod " + bound->metadata.uid + " on node " + bound->spec.node_name);
    EXPECT_EQ(preempted["related"]["kind"], "Pod");
    EXPECT_EQ(preempted["related"]["namespace"], "kube-system");
    EXPECT_EQ(preempted["related"]["name"], "critical");
    EXPECT_EQ(preempted["related"]["uid"], bound->metadata.uid);
  }
  (void)testing::DeletePod(Admin(), "kube-system", "critical");
}

TEST_F(PreemptionTest, AVictimProtectedByAPodDisruptionBudgetIsSpared) {
  const std::string ns = "pdb";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  Nodes nodes;
  nodes.Add(BuildClusterNode().Name("pdb-1").Capacity("cpu", "1").Label("pool", "pdb"), "pdb-1");
  nodes.Add(BuildClusterNode().Name("pdb-2").Capacity("cpu", "1").Label("pool", "pdb"), "pdb-2");
  // No disruption controller runs: the budget allows no disruption (status 0).
  auto pdb = Admin().Post("/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets",
                          R"({"metadata":{"name":"guard"},"spec":{"minAvailable":1,)"
                          R"("selector":{"matchLabels":{"app":"guarded"}}}})");
  ASSERT_TRUE(pdb.ok()) << pdb.status();
  FakeKubelet kubelet(ns, std::chrono::seconds(1));
  ASSERT_TRUE(testing::CreatePod(
                  Admin(), Pod(ns, "guarded", "low", "1").Label("app", "guarded").Node("pdb-1"))
                  .ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), Pod(ns, "free", "low", "1").Node("pdb-2")).ok());
  RunningScheduler sched;
  ASSERT_TRUE(
      testing::CreatePod(Admin(), Pod(ns, "preemptor", "high", "1").NodeSelector({{"pool", "pdb"}}))
          .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto p = Get(ns, "preemptor");
        return p && !p->spec.node_name.empty();
      },
      60));
  EXPECT_EQ(Get(ns, "preemptor")->spec.node_name, "pdb-2");
  EXPECT_NE(Get(ns, "guarded"), nullptr) << "the PDB-protected pod was preempted";
  EXPECT_EQ(Get(ns, "free"), nullptr);
}

TEST_F(PreemptionTest, TwoPreemptorsRaceForOneNodeAndOnlyOneWins) {
  const std::string ns = "race";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  Nodes nodes;
  nodes.Add(BuildClusterNode().Name("race-1").Capacity("cpu", "2").Label("pool", "race"), "race-1");
  FakeKubelet kubelet(ns, std::chrono::seconds(2));
  for (const char* n : {"low-a", "low-b"}) {
    ASSERT_TRUE(testing::CreatePod(Admin(), Pod(ns, n, "low", "1").Node("race-1")).ok());
  }
  RunningScheduler sched;
  for (const char* n : {"high-a", "high-b"}) {
    ASSERT_TRUE(
        testing::CreatePod(Admin(), Pod(ns, n, "high", "2").NodeSelector({{"pool", "race"}})).ok());
  }
  auto bound_high = [&] {
    int n = 0;
    for (const auto& p : Pods(ns))
      n += p->metadata.name.rfind("high", 0) == 0 && !p->spec.node_name.empty();
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return bound_high() == 1; }, 60));
  // The loser found no candidate: the winner, nominated or bound, holds the node against a pod
  // of equal priority, so its failure ends with a preemption part that names no victims.
  std::string loser = Get(ns, "high-a")->spec.node_name.empty() ? "high-a" : "high-b";
  std::string message;
  ASSERT_TRUE(Eventually(
      [&] {
        auto pod = Get(ns, loser);
        for (const auto& c : pod->status.conditions) {
          if (c.type == "PodScheduled") message = c.message;
        }
        return message.find("preemption: 0/1 nodes are available: 1 ") != std::string::npos;
      },
      60))
      << message;
  EXPECT_THAT(message, ::testing::Not(HasSubstr("found a potential placement")));
  EXPECT_EQ(Get(ns, loser)->status.nominated_node_name, "");
  EXPECT_EQ(bound_high(), 1);
}

TEST_F(PreemptionTest, APreemptorDeletedWhileItsVictimsTerminateLeavesTheRoomToOthers) {
  const std::string ns = "gone";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  Nodes nodes;
  nodes.Add(BuildClusterNode().Name("gone-1").Capacity("cpu", "1").Label("pool", "gone"), "gone-1");
  // Long enough for the test to delete the preemptor while its victim still terminates.
  FakeKubelet kubelet(ns, std::chrono::seconds(5));
  ASSERT_TRUE(testing::CreatePod(Admin(), Pod(ns, "victim", "low", "1").Node("gone-1")).ok());
  RunningScheduler sched;
  ASSERT_TRUE(testing::CreatePod(Admin(),
                                 Pod(ns, "preemptor", "high", "1").NodeSelector({{"pool", "gone"}}))
                  .ok());
  ASSERT_TRUE(Eventually(
      [&] {
        auto p = Get(ns, "preemptor");
        auto v = Get(ns, "victim");
        return p && p->status.nominated_node_name == "gone-1" && v &&
               v->metadata.deletion_timestamp;
      },
      60))
      << "the preemptor was never nominated while its victim terminated";
  auto victim = Get(ns, "victim");
  bool condition = false;
  for (const auto& c : victim->status.conditions) {
    condition |= c.type == "DisruptionTarget" && c.reason == "PreemptionByScheduler";
  }
  EXPECT_TRUE(condition) << "the victim carries the DisruptionTarget condition";
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "preemptor").ok());
  // Once the victim is gone, a pod of low priority takes the node the deleted pod was
  // nominated to.
  ASSERT_TRUE(
      testing::CreatePod(Admin(), Pod(ns, "next", "low", "1").NodeSelector({{"pool", "gone"}}))
          .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto p = Get(ns, "next");
        return p && p->spec.node_name == "gone-1";
      },
      60));
}

}  // namespace
}  // namespace stowage::preemption_test
