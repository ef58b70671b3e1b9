// The counts InterPodAffinity keeps across cycles against counts computed from scratch: one
// long-lived plugin on a long-lived snapshot, through a sequence of cache changes (pods bound,
// relabelled and deleted, nodes relabelled, added and removed), must reach the same PreFilter
// and PreScore states, Filter verdicts and scores as a new plugin at every step.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/snapshot.h"
#include "tests/unit/plugins/inter_pod_affinity/test_util.h"

namespace stowage::plugins::inter_pod_affinity::testutil::incremental_test {
namespace {

// Plugins read the cache's snapshot, whose change log is what the kept counts follow.
class SnapshotHandle final : public Handle {
 public:
  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot; }
  cache::Snapshot snapshot;
};

api::NodePtr Node(int i, const std::string& zone) {
  const std::string name = "node-" + std::to_string(i);
  return BuildNode().Name(name).Label("kubernetes.io/hostname", name).Label("zone", zone).Obj();
}

api::LabelSelector Color(const std::string& c) {
  return BuildLabelSelector().Label("color", c).Obj();
}

// The incoming pods: each shape of query the plugin keeps.
std::vector<api::PodPtr> Incoming() {
  api::PodAffinityTerm devops = WithNamespaceSelector(
      TermIn("color", {"red"}, "zone"), BuildLabelSelector().Label("team", "devops").Obj());
  api::WeightedPodAffinityTerm prefer_blue{7, TermIn("color", {"blue"}, "kubernetes.io/hostname")};
  api::WeightedPodAffinityTerm avoid_red{3, TermIn("color", {"red"}, "zone")};
  return {
      // Required affinity to blue by zone, anti-affinity to green by hostname.
      WithAffinity(BuildPod().Name("a").Namespace("default").Label("color", "green"),
                   Terms({TermIn("color", {"blue"}, "zone")}),
                   Terms({TermIn("color", {"green"}, "kubernetes.io/hostname")})),
      // Preferred terms both ways, and anti-affinity with a namespace selector.
      WithAffinity(BuildPod().Name("b").Namespace("default").Label("color", "red"),
                   Terms({}, {prefer_blue}), Terms({devops}, {avoid_red})),
      // No terms: only existing pods' terms count.
      BuildPod().Name("c").Namespace("default").Label("color", "blue").Obj(),
  };
}

// An existing pod: a colour, and sometimes terms of its own.
api::PodPtr Existing(int i, std::mt19937& rng, const std::string& node) {
  static const char* kColors[] = {"red", "green", "blue"};
  const std::string color = kColors[rng() % 3];
  auto pod = BuildPod()
                 .Name("p" + std::to_string(i))
                 .UID("p" + std::to_string(i))
                 .Namespace(rng() % 4 == 0 ? "other" : "default")
                 .Label("color", color)
                 .Node(node);
  switch (rng() % 4) {
    case 0:
      pod.PodAntiAffinity("kubernetes.io/hostname", Color(color),
                          stowage::testing::PodAffinityKind::kRequired);
      break;
    case 1:
      pod.PodAffinity("zone", Color("green"), stowage::testing::PodAffinityKind::kPreferred);
      break;
    case 2:
      pod.PodAffinity("zone", Color("red"), stowage::testing::PodAffinityKind::kRequired);
      break;
    default: break;
  }
  return pod.Obj();
}

void ExpectSameCycle(SnapshotHandle& handle, InterPodAffinity& kept, const api::PodPtr& pod) {
  SCOPED_TRACE("incoming pod " + pod->metadata.name);
  auto fresh = MakePlugin(handle);
  auto info = framework::NewPodInfo(pod);
  const auto& nodes = handle.snapshot.List();
  framework::CycleState a, b;
  framework::PreFilterResult ra, rb;
  const framework::Status pa = kept.PreFilter(a, *info, nodes, ra);
  const framework::Status pb = fresh->PreFilter(b, *info, nodes, rb);
  ASSERT_EQ(pa.code(), pb.code()) << pa.Message() << " / " << pb.Message();
  if (pa.IsSuccess()) {
    const auto* sa = a.Read<PreFilterState>(kPreFilterStateKey);
    const auto* sb = b.Read<PreFilterState>(kPreFilterStateKey);
    EXPECT_TRUE(sa->existing_anti_affinity_counts == sb->existing_anti_affinity_counts);
    EXPECT_TRUE(sa->affinity_counts == sb->affinity_counts);
    EXPECT_TRUE(sa->anti_affinity_counts == sb->anti_affinity_counts);
    for (const framework::NodeInfo* n : nodes) {
      const framework::Status fa = kept.Filter(a, *info, *n);
      const framework::Status fb = fresh->Filter(b, *info, *n);
      EXPECT_EQ(fa.code(), fb.code()) << n->name();
      EXPECT_EQ(fa.Message(), fb.Message()) << n->name();
    }
  }
  const framework::Status qa = kept.PreScore(a, *info, nodes);
  const framework::Status qb = fresh->PreScore(b, *info, nodes);
  ASSERT_EQ(qa.code(), qb.code()) << qa.Message() << " / " << qb.Message();
  if (!qa.IsSuccess()) return;
  EXPECT_TRUE(a.Read<PreScoreState>(kPreScoreStateKey)->topology_score ==
              b.Read<PreScoreState>(kPreScoreStateKey)->topology_score);
  for (const framework::NodeInfo* n : nodes) {
    int64_t sa = 0, sb = 0;
    ASSERT_TRUE(kept.Score(a, *info, *n, sa).IsSuccess());
    ASSERT_TRUE(fresh->Score(b, *info, *n, sb).IsSuccess());
    EXPECT_EQ(sa, sb) << n->name();
  }
}

TEST(InterPodAffinityIncremental, KeptCountsMatchCountsFromScratchAcrossSnapshotChanges) {
  SnapshotHandle handle;
  handle.AddNamespace("default", {{"team", "devops"}});
  handle.AddNamespace("other", {{"team", "devops"}});
  cache::Cache cache;
  std::vector<api::NodePtr> nodes;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(Node(i, "z" + std::to_string(i % 3)));
    cache.AddNode(nodes.back());
  }
  std::mt19937 rng(7);
  std::vector<api::PodPtr> pods;
  int next = 0;
  for (; next < 12; ++next) {
    pods.push_back(Existing(next, rng, nodes[rng() % nodes.size()]->metadata.name));
    ASSERT_TRUE(cache.AddPod(pods.back()).ok());
  }
  auto kept = MakePlugin(handle);
  const std::vector<api::PodPtr> incoming = Incoming();
  int64_t full_before_pod_steps = 0;
  int pod_steps = 0;
  for (int step = 0; step < 120; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int what = static_cast<int>(rng() % 10);
    const bool pods_only = what < 7;
    if (what < 4) {  // bind a pod
      pods.push_back(Existing(next++, rng, nodes[rng() % nodes.size()]->metadata.name));
      ASSERT_TRUE(cache.AddPod(pods.back()).ok());
    } else if (what < 6 && !pods.empty()) {  // delete one
      const size_t i = rng() % pods.size();
      ASSERT_TRUE(cache.RemovePod(*pods[i]).ok());
      pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (what < 7 && !pods.empty()) {  // relabel one
      const size_t i = rng() % pods.size();
      auto relabelled = std::make_shared<api::Pod>(*pods[i]);
      relabelled->metadata.labels = stowage::testing::MakeStringMap({{"color", "blue"}});
      ASSERT_TRUE(cache.UpdatePod(pods[i], relabelled).ok());
      pods[i] = relabelled;
    } else if (what < 8) {  // move a node to another zone
      const size_t i = rng() % nodes.size();
      auto moved =
          Node(std::stoi(nodes[i]->metadata.name.substr(5)), "z" + std::to_string(rng() % 4));
      cache.UpdateNode(nodes[i], moved);
      nodes[i] = moved;
    } else if (what < 9) {  // a new node
      nodes.push_back(Node(100 + step, "z1"));
      cache.AddNode(nodes.back());
    } else if (nodes.size() > 3) {  // remove a node without pods
      const size_t i = rng() % nodes.size();
      bool empty = true;
      for (const auto& p : pods) empty = empty && p->spec.node_name != nodes[i]->metadata.name;
      if (empty) {
        cache.RemoveNode(*nodes[i]);
        nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    ASSERT_TRUE(cache.UpdateSnapshot(handle.snapshot).ok());
    if (pods_only) full_before_pod_steps = kept->FullComputationsForTest();
    for (const api::PodPtr& pod : incoming) ExpectSameCycle(handle, *kept, pod);
    if (pods_only && step > 0) {
      // A step that only moved pods is followed up node by node, never recomputed.
      EXPECT_EQ(kept->FullComputationsForTest(), full_before_pod_steps);
      ++pod_steps;
    }
  }
  EXPECT_GT(pod_steps, 50);
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::testutil::incremental_test
