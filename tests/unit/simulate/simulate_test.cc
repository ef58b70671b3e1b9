// What-if runs end to end: the real scheduler (in-tree plugins, queue, preemption, binder) over
// the in-memory API server. Pods land where the plugins say, a pod that fits nowhere keeps the
// scheduler's own message, a preemption goes through, a drained node's pods move,
// and the same inputs and seed give the same output.
#include "pkg/simulate/simulate.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/plugins/registry.h"

namespace stowage::simulate::simulate_test {
namespace {

std::string Node(const std::string& name, const std::string& cpu) {
  return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {kubernetes.io/hostname: " + name + "}}\nstatus: {allocatable: {cpu: \"" + cpu +
         "\", memory: 8Gi, pods: \"110\"}, capacity: {cpu: \"" + cpu +
         "\", memory: 8Gi, pods: \"110\"}}\n";
}

std::string Pod(const std::string& name, const std::string& cpu, int priority = 0,
                const std::string& node = "", const std::string& extra_meta = "") {
  return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ns" +
         extra_meta + "}\nspec: {priority: " + std::to_string(priority) +
         (node.empty() ? "" : ", nodeName: " + node) +
         ", containers: [{name: c, image: x, resources: {requests: {cpu: \"" + cpu +
         "\"}}}]}\nstatus: {phase: " + (node.empty() ? "Pending" : "Running") + "}\n";
}

class SimulateTest : public ::testing::Test {
 protected:
  SimulateTest() {
    auto cfg = config::ParseConfig(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", "test");
    EXPECT_TRUE(cfg.ok()) << cfg.status();
    config::SetDefaults(*cfg);
    cfg_ = *cfg;
  }

  Result Run(const Snapshot& snapshot, uint64_t seed = 1) {
    auto r = simulate::Run({.snapshot = snapshot,
                            .cfg = cfg_,
                            .registry = registry_,
                            .not_yet_implemented = plugins::NotYetImplemented(),
                            .options = {.seed = seed}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : Result{};
  }

  static Snapshot Parse(const std::string& text) {
    Snapshot s;
    Status st = s.Parse(text, "test.yaml");
    EXPECT_TRUE(st.ok()) << st;
    return s;
  }

  config::KubeSchedulerConfiguration cfg_;
  framework::Registry registry_ = plugins::NewInTreeRegistry();
};

TEST_F(SimulateTest, PlacesWhatFitsAndKeepsTheSchedulersMessageForTheRest) {
  Snapshot s = Parse(Node("n1", "2") + Node("n2", "2") + Pod("a", "1500m") + Pod("b", "1500m") +
                     Pod("c", "1500m"));
  Result r = Run(s);
  ASSERT_EQ(r.pods.size(), 3u);
  EXPECT_FALSE(r.pods[0].node.empty());
  EXPECT_FALSE(r.pods[1].node.empty());
  EXPECT_NE(r.pods[0].node, r.pods[1].node);
  EXPECT_EQ(r.pods[2].node, "");
  EXPECT_EQ(r.pods[2].reason, "Unschedulable");
  EXPECT_EQ(r.pods[2].message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
            "No preemption victims found for incoming pod.");
  EXPECT_FALSE(r.stopped_early);
  ASSERT_EQ(r.utilisation.size(), 2u);
  EXPECT_EQ(r.utilisation[0].milli_cpu_before, 0);
  EXPECT_EQ(r.utilisation[0].milli_cpu_after + r.utilisation[1].milli_cpu_after, 3000);
  EXPECT_EQ(r.utilisation[0].allocatable_milli_cpu, 2000);
  const std::string text = RenderText(r);
  EXPECT_NE(text.find("Simulated 3 pending pod(s) on 2 node(s): 2 bound, 1 pending"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ns/c"), std::string::npos) << text;
}

TEST_F(SimulateTest, AHigherPriorityPodPreempts) {
  Snapshot s = Parse(Node("n1", "2") + Pod("low", "1500m", 0, "n1") + Pod("high", "1500m", 1000));
  Result r = Run(s);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].pod, "ns/high");
  EXPECT_EQ(r.pods[0].node, "n1");
  ASSERT_EQ(r.preempted.size(), 1u);
  EXPECT_EQ(r.preempted[0].pod, "ns/low");
  EXPECT_EQ(r.preempted[0].node, "n1");
  EXPECT_NE(r.preempted[0].message.find("Preempted by pod"), std::string::npos)
      << r.preempted[0].message;
  // Retried once the victim was gone, within its backoff (a pod in backoffQ is popped when
  // activeQ is empty, SchedulerPopFromBackoffQ), with no real time spent waiting.
  EXPECT_LE(r.virtual_seconds, 10);
  EXPECT_LE(r.pods[0].bound_at, r.virtual_seconds);
  ASSERT_EQ(r.utilisation.size(), 1u);
  EXPECT_EQ(r.utilisation[0].pods_before, 1u);
  EXPECT_EQ(r.utilisation[0].pods_after, 1u);
}

TEST_F(SimulateTest, ADrainedNodesPodsMoveAndTheNodeTakesNoMore) {
  const std::string owned =
      ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs1, "
      "controller: true}]";
  Snapshot s =
      Parse(Node("n1", "4") + Node("n2", "4") + Pod("web", "1", 0, "n1", owned) + Pod("new", "1"));
  ASSERT_TRUE(s.Drain("n1").ok());
  Result r = Run(s);
  ASSERT_EQ(r.pods.size(), 2u);
  for (const auto& p : r.pods) EXPECT_EQ(p.node, "n2") << p.pod;
  ASSERT_EQ(r.displaced.size(), 1u);
  EXPECT_TRUE(r.displaced[0].recreated);
  EXPECT_TRUE(r.utilisation[0].unschedulable);
}

TEST_F(SimulateTest, TheSameInputsAndSeedGiveTheSameOutput) {
  std::string text;
  for (int i = 0; i < 6; ++i) text += Node("n" + std::to_string(i), "4");
  for (int i = 0; i < 12; ++i) text += Pod("p" + std::to_string(i), "500m");
  Snapshot s = Parse(text);
  const std::string first = RenderJson(Run(s, 7));
  EXPECT_EQ(RenderJson(Run(s, 7)), first);
  EXPECT_NE(first.find("\"seed\": 7"), std::string::npos);
}

}  // namespace
}  // namespace stowage::simulate::simulate_test
