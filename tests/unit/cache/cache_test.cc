// The cache's assumed-pod state machine, pods arriving before their node, and the incremental
// snapshot.
#include "pkg/cache/cache.h"

#include <gtest/gtest.h>

#include "tests/testing/builders.h"

namespace stowage::cache::cache_test {
namespace {

using testing::BuildNode;
using testing::BuildPod;

api::NodePtr Node(const std::string& name, const std::string& zone = "") {
  auto w = BuildNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}});
  if (!zone.empty()) w.Label("topology.kubernetes.io/zone", zone);
  return w.Obj();
}

framework::PodInfoPtr Assumed(const std::string& name, const std::string& node) {
  return framework::NewPodInfo(
      BuildPod().Name(name).UID(name).Node(node).Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj());
}

TEST(Cache, AssumeThenConfirmCountsThePodOnce) {
  Cache c;
  c.AddNode(Node("n1"));
  auto p = Assumed("p", "n1");
  ASSERT_TRUE(c.AssumePod(p).ok());
  EXPECT_TRUE(c.IsAssumedPod(*p->pod));
  EXPECT_FALSE(c.AssumePod(p).ok()) << "assuming twice is an error";
  ASSERT_TRUE(c.FinishBinding(*p->pod).ok());
  ASSERT_TRUE(c.AddPod(p->pod).ok());  // the informer observed the binding
  EXPECT_FALSE(c.IsAssumedPod(*p->pod));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  ASSERT_EQ(s.List().size(), 1u);
  EXPECT_EQ(s.Get("n1")->pods().size(), 1u);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 1000);
}

TEST(Cache, ForgetUndoesAnAssumption) {
  Cache c;
  c.AddNode(Node("n1"));
  auto p = Assumed("p", "n1");
  ASSERT_TRUE(c.AssumePod(p).ok());
  ASSERT_TRUE(c.ForgetPod(*p->pod).ok());
  EXPECT_FALSE(c.IsAssumedPod(*p->pod));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.Get("n1")->pods().empty());
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 0);
  // A pod that is not assumed cannot be forgotten.
  ASSERT_TRUE(c.AddPod(BuildPod().Name("q").UID("q").Node("n1").Obj()).ok());
  EXPECT_FALSE(c.ForgetPod(*BuildPod().Name("q").UID("q").Node("n1").Obj()).ok());
}

TEST(Cache, ConfirmationOnAnotherNodeMovesThePod) {
  Cache c;
  c.AddNode(Node("n1"));
  c.AddNode(Node("n2"));
  auto p = Assumed("p", "n1");
  ASSERT_TRUE(c.AssumePod(p).ok());
  ASSERT_TRUE(c.AddPod(BuildPod().Name("p").UID("p").Node("n2").Req({{"cpu", "1"}}).Obj()).ok());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.Get("n1")->pods().empty());
  EXPECT_EQ(s.Get("n2")->pods().size(), 1u);
}

TEST(Cache, PodsBeforeTheirNodeAndNodesRemovedWithPods) {
  Cache c;
  ASSERT_TRUE(
      c.AddPod(BuildPod().Name("early").UID("early").Node("late").Req({{"cpu", "2"}}).Obj()).ok());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.List().empty()) << "a node entry without a Node is not schedulable";
  c.AddNode(Node("late"));
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  ASSERT_EQ(s.List().size(), 1u);
  EXPECT_EQ(s.Get("late")->requested().milli_cpu, 2000) << "the early pod is counted";
  c.RemoveNode(*Node("late"));
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.List().empty());
  EXPECT_EQ(c.PodCount(), 1u);
}

TEST(Snapshot, CopiesOnlyChangedNodes) {
  Cache c;
  c.AddNode(Node("a"));
  c.AddNode(Node("b"));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  const framework::NodeInfo* a = s.Get("a");
  const framework::NodeInfo* b = s.Get("b");
  int64_t b_gen = b->generation();
  ASSERT_TRUE(c.AssumePod(Assumed("p", "a")).ok());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("a"), a) << "updated in place";
  EXPECT_EQ(a->pods().size(), 1u);
  EXPECT_EQ(s.Get("b"), b);
  EXPECT_EQ(b->generation(), b_gen) << "b was not copied";
}

TEST(Snapshot, ListsNodesRoundRobinAcrossZones) {
  Cache c;
  for (auto [n, z] : std::vector<std::pair<std::string, std::string>>{
           {"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"c1", "c"}, {"c2", "c"}}) {
    c.AddNode(Node(n, z));
  }
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  std::vector<std::string> names;
  for (const auto* n : s.List()) names.push_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"a1", "b1", "c1", "a2", "c2", "a3"}));
}

TEST(Snapshot, TracksPodsWithAffinity) {
  Cache c;
  c.AddNode(Node("n1"));
  c.AddNode(Node("n2"));
  ASSERT_TRUE(c.AddPod(BuildPod()
                           .Name("aff")
                           .UID("aff")
                           .Node("n2")
                           .PodAntiAffinityExists("app", "kubernetes.io/hostname",
                                                  testing::PodAffinityKind::kRequired)
                           .Obj())
                  .ok());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  ASSERT_EQ(s.HavePodsWithAffinityList().size(), 1u);
  EXPECT_EQ(s.HavePodsWithAffinityList()[0]->name(), "n2");
  EXPECT_EQ(s.HavePodsWithRequiredAntiAffinityList().size(), 1u);
}

TEST(Cache, ImageStatesCountNodesHoldingEachImage) {
  Cache c;
  c.AddNode(BuildNode().Name("n1").Image({"img:1"}, 100).Obj());
  c.AddNode(BuildNode().Name("n2").Image({"img:1"}, 100).Image({"other:2"}, 5).Obj());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("n1")->image_states().at("img:1").num_nodes, 2);
  EXPECT_EQ(s.Get("n2")->image_states().at("other:2").num_nodes, 1);
  EXPECT_EQ(s.Get("n2")->image_states().at("img:1").size, 100);
}

// Upstream's image state keeps the size first recorded for an image while any node holds it;
// a later node reporting another size (or the first node's update) does not replace it.
TEST(Cache, ImageStateKeepsTheSizeFirstRecorded) {
  Cache c;
  c.AddNode(BuildNode().Name("n1").Image({"img:1"}, 100).Obj());
  c.AddNode(BuildNode().Name("n2").Image({"img:1"}, 300).Obj());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("n1")->image_states().at("img:1").size, 100);
  EXPECT_EQ(s.Get("n2")->image_states().at("img:1").size, 100);

  // n1 reports another size while n2 still holds the image: the recorded size stays.
  c.UpdateNode(nullptr, BuildNode().Name("n1").Image({"img:1"}, 200).Obj());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("n1")->image_states().at("img:1").size, 100);

  // Once n2 is the only holder, its own update records its size afresh (upstream drops the
  // state when the last node is removed from it, then adds the node back).
  c.RemoveNode(*BuildNode().Name("n1").Obj());
  c.UpdateNode(nullptr, BuildNode().Name("n2").Image({"img:1"}, 300).Obj());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("n2")->image_states().at("img:1").size, 300);
}

// A name listed under two images of one node takes the first image's size.
TEST(Cache, ImageNameListedTwiceTakesTheFirstSize) {
  Cache c;
  c.AddNode(BuildNode().Name("n1").Image({"img:1"}, 100).Image({"img:1", "img@sha"}, 500).Obj());
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(s.Get("n1")->image_states().at("img:1").size, 100);
  EXPECT_EQ(s.Get("n1")->image_states().at("img@sha").size, 500);
}

// Issue 26: every way a pod goes through the cache (assumed and confirmed, assumed and
// forgotten, added bound, on a node not yet known) ends with nothing of it left once it is gone.
TEST(Cache, DeletedPodsLeaveNothingBehind) {
  Cache c;
  c.AddNode(Node("n1"));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  auto confirmed = Assumed("confirmed", "n1");
  ASSERT_TRUE(c.AssumePod(confirmed).ok());
  ASSERT_TRUE(c.FinishBinding(*confirmed->pod).ok());
  ASSERT_TRUE(c.AddPod(confirmed->pod).ok());
  auto forgotten = Assumed("forgotten", "n1");  // its binding failed, or it was deleted unbound
  ASSERT_TRUE(c.AssumePod(forgotten).ok());
  auto bound = BuildPod()
                   .Name("bound")
                   .UID("bound")
                   .Node("n1")
                   .PodAntiAffinityExists("app", "kubernetes.io/hostname",
                                          testing::PodAffinityKind::kPreferred)
                   .Obj();
  ASSERT_TRUE(c.AddPod(bound).ok());
  auto early = BuildPod().Name("early").UID("early").Node("unknown").Obj();
  ASSERT_TRUE(c.AddPod(early).ok());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(c.PodCount(), 4u);
  EXPECT_EQ(c.DumpAll().nodes.size(), 2u);
  EXPECT_EQ(s.HavePodsWithAffinityList().size(), 1u);

  ASSERT_TRUE(c.RemovePod(*confirmed->pod).ok());
  ASSERT_TRUE(c.ForgetPod(*forgotten->pod).ok());
  ASSERT_TRUE(c.RemovePod(*bound).ok());
  ASSERT_TRUE(c.RemovePod(*early).ok());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(c.PodCount(), 0u);
  EXPECT_FALSE(c.IsAssumedPod(*forgotten->pod));
  EXPECT_EQ(c.DumpAll().nodes.size(), 1u) << "the entry of the unknown node goes with its pod";
  EXPECT_EQ(c.NodeCount(), 1u);
  EXPECT_TRUE(s.Get("n1")->pods().empty());
  EXPECT_TRUE(s.HavePodsWithAffinityList().empty());
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 0);
}

}  // namespace
}  // namespace stowage::cache::cache_test
