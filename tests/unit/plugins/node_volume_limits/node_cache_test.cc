// NodeVolumeLimits' per-node cache: a volume the new pod shares with a pod of the node counts
// once, and a node's counts are computed again when its pods, a claim or its CSINode change.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/node_volume_limits/node_volume_limits.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::node_volume_limits::node_cache_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;

constexpr std::string_view kDriver = "ebs.csi.aws.com";

class CacheHandle final : public testing::FakeHandle {
 public:
  testing::FakeLister<api::PersistentVolume> pvs;
  testing::FakeLister<api::PersistentVolumeClaim> pvcs;
  testing::FakeLister<api::CSINode> csi_node_list;
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override { return pvs; }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return pvcs;
  }
  const framework::Lister<api::CSINode>& csi_nodes() override { return csi_node_list; }

  // Claim name bound to the CSI volume pv-<name> with handle vol-<name>.
  void AddBound(const std::string& name) {
    api::PersistentVolume pv;
    pv.metadata.name = "pv-" + name;
    pv.source = "csi";
    pv.csi_driver = kDriver;
    pv.csi_volume_handle = "vol-" + name;
    pvs.Add(pv);
    pvcs.Update(Claim(name, pv.metadata.name));
  }
  static api::PersistentVolumeClaim Claim(const std::string& name, const std::string& volume) {
    api::PersistentVolumeClaim c;
    c.metadata.name = name;
    c.metadata.namespace_ = "default";
    c.volume_name = volume;
    return c;
  }
  void SetLimit(const std::string& node, int32_t limit) {
    api::CSINode n;
    n.metadata.name = node;
    n.drivers.push_back({std::string(kDriver), node, {}, limit});
    csi_node_list.Update(n);
  }
};

api::PodPtr Pod(const std::string& name, const std::vector<std::string>& claims) {
  auto p = BuildPod().Name(name).Namespace("default");
  for (const std::string& c : claims) p.PVC(c);
  return p.Obj();
}

// PreFilter, then Filter on each node; the codes in node order.
std::vector<Code> Cycle(NodeVolumeLimits& pl, const api::PodPtr& pod,
                        const std::vector<testing::NodeInfoPtr>& nodes) {
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::NewPodInfo(pod);
  std::vector<const framework::NodeInfo*> list;
  for (const auto& n : nodes) list.push_back(n.get());
  EXPECT_TRUE(pl.PreFilter(state, *info, list, result).IsSuccess());
  std::vector<Code> out;
  for (const auto& n : nodes) out.push_back(pl.Filter(state, *info, *n).code());
  return out;
}

testing::NodeInfoPtr Node(const std::string& name, const std::vector<api::PodPtr>& pods) {
  return testing::MakeNodeInfo(BuildNode().Name(name).Obj(), pods);
}

TEST(NodeVolumeLimitsCache, SharedVolumeCountsOnce) {
  CacheHandle h;
  for (const char* c : {"a", "b", "c"}) h.AddBound(c);
  h.SetLimit("n", 2);
  NodeVolumeLimits pl(h, {});
  auto node = Node("n", {Pod("old", {"a"})});
  // a is on the node already: 1 attached + b = 2.
  EXPECT_EQ(Cycle(pl, Pod("p", {"a", "b"}), {node}), std::vector<Code>{Code::kSuccess});
  // b and c are both new: 1 + 2 > 2.
  EXPECT_EQ(Cycle(pl, Pod("p", {"b", "c"}), {node}), std::vector<Code>{Code::kUnschedulable});
  h.SetLimit("n", 1);
  EXPECT_EQ(Cycle(pl, Pod("p", {"a"}), {node}), std::vector<Code>{Code::kSuccess});
  EXPECT_EQ(Cycle(pl, Pod("p", {"a", "b"}), {node}), std::vector<Code>{Code::kUnschedulable});
}

TEST(NodeVolumeLimitsCache, RecomputedWhenPodsChange) {
  CacheHandle h;
  for (const char* c : {"a", "b", "c"}) h.AddBound(c);
  h.SetLimit("n", 2);
  h.SetLimit("m", 2);
  NodeVolumeLimits pl(h, {});
  const auto pod = Pod("p", {"c"});
  auto one = Node("n", {Pod("x", {"a"})});
  auto empty = Node("m", {});
  EXPECT_EQ(Cycle(pl, pod, {one, empty}), (std::vector<Code>{Code::kSuccess, Code::kSuccess}));
  EXPECT_EQ(pl.CachedNodesForTest(), 2u);
  // The same nodes, the first now with a second pod: a new generation.
  auto two = Node("n", {Pod("x", {"a"}), Pod("y", {"b"})});
  EXPECT_EQ(Cycle(pl, pod, {two, empty}),
            (std::vector<Code>{Code::kUnschedulable, Code::kSuccess}));
  EXPECT_EQ(Cycle(pl, pod, {one, empty}), (std::vector<Code>{Code::kSuccess, Code::kSuccess}));
}

TEST(NodeVolumeLimitsCache, RecomputedWhenListersChange) {
  CacheHandle h;
  h.AddBound("c");
  h.pvcs.Add(CacheHandle::Claim("a", ""));  // unbound and classless: not counted
  h.SetLimit("n", 1);
  NodeVolumeLimits pl(h, {});
  const auto pod = Pod("p", {"c"});
  auto node = Node("n", {Pod("x", {"a"})});
  EXPECT_EQ(Cycle(pl, pod, {node}), std::vector<Code>{Code::kSuccess});
  h.AddBound("a");  // the node's pod now holds a volume
  EXPECT_EQ(Cycle(pl, pod, {node}), std::vector<Code>{Code::kUnschedulable});
  h.SetLimit("n", 2);
  EXPECT_EQ(Cycle(pl, pod, {node}), std::vector<Code>{Code::kSuccess});
  h.csi_node_list.Remove("", "n");  // no CSINode: no limit
  h.SetLimit("other", 0);
  EXPECT_EQ(Cycle(pl, pod, {node}), std::vector<Code>{Code::kSuccess});
}

TEST(NodeVolumeLimitsCache, PrunedWhenNodesGo) {
  CacheHandle h;
  h.AddBound("c");
  NodeVolumeLimits pl(h, {});
  std::vector<testing::NodeInfoPtr> nodes;
  for (int i = 0; i < 80; ++i) {
    h.SetLimit("n" + std::to_string(i), 1);
    nodes.push_back(Node("n" + std::to_string(i), {}));
  }
  Cycle(pl, Pod("p", {"c"}), nodes);
  EXPECT_EQ(pl.CachedNodesForTest(), 80u);
  EXPECT_EQ(Cycle(pl, Pod("p", {"c"}), {nodes[0]}), std::vector<Code>{Code::kSuccess});
  EXPECT_EQ(pl.CachedNodesForTest(), 1u);
}

}  // namespace
}  // namespace stowage::plugins::node_volume_limits::node_cache_test
