// PreFilterExtensions: AddPod/RemovePod must leave the state a PreFilter recomputed from scratch
// over the changed cluster would build (upstream TestPreFilterStateAddRemovePod), and clones
// must be independent (TestPreFilterStateClone).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/unit/plugins/inter_pod_affinity/test_util.h"

namespace stowage::plugins::inter_pod_affinity::testutil::prefilter_state_test {
namespace {

api::NodePtr Node(std::string name, std::string region, std::string zone) {
  return BuildNode()
      .Name(name)
      .Label("region", region)
      .Label("zone", zone)
      .Label("kubernetes.io/hostname", name)
      .Obj();
}

api::PodAffinityTerm T(std::string value, std::string topology) {
  return TermIn("security", {std::move(value)}, std::move(topology));
}

api::PodPtr Pod(std::string name, std::string node, std::string security,
                std::optional<api::PodAffinity> affinity = std::nullopt,
                std::optional<api::PodAffinity> anti = std::nullopt) {
  auto p = BuildPod().Name(name).Namespace("default").UID(name).Label("security", security);
  if (!node.empty()) p.Node(node);
  return WithAffinity(p, std::move(affinity), std::move(anti));
}

// The pod's PreFilter state over nodes and pods.
std::unique_ptr<framework::CycleState> PreFilterOver(Handle& handle, InterPodAffinity& plugin,
                                                     const framework::PodInfo& pod,
                                                     const std::vector<api::NodePtr>& nodes,
                                                     const std::vector<api::PodPtr>& pods) {
  handle.SetNodes(nodes, pods);
  auto state = std::make_unique<framework::CycleState>();
  framework::PreFilterResult result;
  framework::Status s = plugin.PreFilter(*state, pod, handle.SnapshotSharedLister().List(), result);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  return state;
}

void ExpectSameCounts(const framework::CycleState& got, const framework::CycleState& want) {
  const auto* g = got.Read<PreFilterState>(kPreFilterStateKey);
  const auto* w = want.Read<PreFilterState>(kPreFilterStateKey);
  ASSERT_TRUE(g && w);
  EXPECT_TRUE(g->existing_anti_affinity_counts == w->existing_anti_affinity_counts);
  EXPECT_TRUE(g->affinity_counts == w->affinity_counts);
  EXPECT_TRUE(g->anti_affinity_counts == w->anti_affinity_counts);
}

TEST(InterPodAffinityPreFilterExtensions, AddAndRemoveMatchARecomputedPreFilter) {
  const std::vector<api::NodePtr> nodes = {Node("nodeA", "r1", "z11"), Node("nodeB", "r1", "z12"),
                                           Node("nodeC", "r2", "z21")};
  // The incoming pod wants a security=S1 pod in its region and no security=S2 pod in its zone.
  const api::PodPtr incoming =
      Pod("incoming", "", "S3", Terms({T("S1", "region")}), Terms({T("S2", "zone")}));
  const std::vector<api::PodPtr> base = {
      Pod("p1", "nodeA", "S1"),
      Pod("p2", "nodeC", "S2"),
      Pod("p3", "nodeB", "S9", std::nullopt, Terms({T("S3", "zone")})),
  };
  // Pods to add on each node: matching the affinity, the anti-affinity, carrying anti-affinity
  // against the incoming pod, and matching nothing.
  const std::vector<api::PodPtr> candidates = {
      Pod("a1", "nodeB", "S1"),
      Pod("a2", "nodeA", "S2"),
      Pod("a3", "nodeC", "S8", std::nullopt, Terms({T("S3", "region"), T("S3", "zone")})),
      Pod("a4", "nodeC", "S7"),
  };
  Handle handle;
  auto plugin = MakePlugin(handle);
  auto info = framework::NewPodInfo(incoming);
  for (const api::PodPtr& candidate : candidates) {
    SCOPED_TRACE(candidate->metadata.name);
    auto state = PreFilterOver(handle, *plugin, *info, nodes, base);
    auto original = PreFilterOver(handle, *plugin, *info, nodes, base);
    std::vector<api::PodPtr> with = base;
    with.push_back(candidate);
    auto recomputed = PreFilterOver(handle, *plugin, *info, nodes, with);

    auto added = framework::NewPodInfo(candidate);
    const framework::NodeInfo* node = handle.SnapshotSharedLister().Get(candidate->spec.node_name);
    ASSERT_NE(node, nullptr);
    ASSERT_TRUE(plugin->AddPod(*state, *incoming, *added, *node).IsSuccess());
    ExpectSameCounts(*state, *recomputed);
    ASSERT_TRUE(plugin->RemovePod(*state, *incoming, *added, *node).IsSuccess());
    ExpectSameCounts(*state, *original);
  }
}

TEST(InterPodAffinityPreFilterExtensions, RemovingTheOnlyMatchingPodFreesTheDomain) {
  const std::vector<api::NodePtr> nodes = {Node("nodeA", "r1", "z11"), Node("nodeB", "r1", "z12")};
  const api::PodPtr incoming = Pod("incoming", "", "S3", std::nullopt, Terms({T("S1", "region")}));
  const api::PodPtr victim = Pod("p1", "nodeA", "S1");
  Handle handle;
  auto plugin = MakePlugin(handle);
  auto info = framework::NewPodInfo(incoming);
  auto state = PreFilterOver(handle, *plugin, *info, nodes, {victim});
  const framework::NodeInfo* a = handle.SnapshotSharedLister().Get("nodeA");
  const framework::NodeInfo* b = handle.SnapshotSharedLister().Get("nodeB");
  EXPECT_EQ(plugin->Filter(*state, *info, *b).Message(), kErrReasonAntiAffinityRulesNotMatch);
  // Preemption works on a clone: removing the pod there leaves the original untouched.
  auto clone = state->Clone();
  ASSERT_TRUE(plugin->RemovePod(*clone, *incoming, *framework::NewPodInfo(victim), *a).IsSuccess());
  EXPECT_TRUE(plugin->Filter(*clone, *info, *b).IsSuccess());
  EXPECT_FALSE(plugin->Filter(*state, *info, *b).IsSuccess());
}

TEST(InterPodAffinityPreFilterExtensions, WithoutStateIsAnError) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto pod = Pod("p", "nodeA", "S1");
  auto node = stowage::testing::MakeNodeInfo(Node("nodeA", "r1", "z1"));
  EXPECT_TRUE(plugin->AddPod(state, *pod, *framework::NewPodInfo(pod), *node).IsError());
  EXPECT_TRUE(plugin->RemovePod(state, *pod, *framework::NewPodInfo(pod), *node).IsError());
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::testutil::prefilter_state_test
