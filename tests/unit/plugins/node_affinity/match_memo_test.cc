// NodeAffinity's MatchMemo over a real cache and snapshot: through node label changes, pods bound,
// nodes added and removed, and pods whose inputs take turns in more columns than are kept, every
// Filter must give what the plugin without a memo gives, and the memo must be read (entries
// filled by the nodes Filter looked at, reused while they do not change).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/snapshot.h"
#include "pkg/plugins/node_affinity/node_affinity.h"
#include "tests/unit/plugins/node_affinity/test_util.h"

namespace stowage::plugins::node_affinity::testutil::match_memo_test {
namespace {

// A handle whose snapshot is the cache's, as the scheduler's is.
class SnapshotHandle : public stowage::testing::FakeHandle {
 public:
  cache::Cache cache;
  cache::Snapshot snapshot;
  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot; }
};

api::NodePtr Node(const std::string& name, const std::string& zone, const std::string& disk) {
  return BuildNode().Name(name).Label("zone", zone).Label("disk", disk).Obj();
}

class MatchMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 12; ++i) handle_.cache.AddNode(NodeAt(i, "z" + std::to_string(i % 3)));
  }

  api::NodePtr NodeAt(int i, const std::string& zone) {
    return Node("n" + std::to_string(i), zone, i % 2 ? "ssd" : "hdd");
  }

  // Six sets of inputs, more than the memo keeps columns for.
  static std::vector<api::PodPtr> Incoming() {
    return {
        BuildPod().Name("a").NodeAffinityIn("zone", {"z0", "z1"}).Obj(),
        BuildPod().Name("b").NodeSelector({{"disk", "ssd"}}).Obj(),
        BuildPod()
            .Name("c")
            .NodeSelector({{"disk", "ssd"}})
            .NodeAffinityNotIn("zone", {"z2"})
            .Obj(),
        BuildPod().Name("d").NodeAffinityIn("zone", {"z2"}).Obj(),
        BuildPod().Name("e").NodeAffinityNotIn("zone", {"z0"}).Obj(),
        BuildPod().Name("f").NodeSelector({{"zone", "z9"}}).Obj(),
    };
  }

  // One cycle per incoming pod, each asking every node: the memo plugin must decide as the one
  // without. Returns how many nodes matched in all.
  int ExpectSameDecisions(const std::vector<api::PodPtr>& pods) {
    EXPECT_TRUE(handle_.cache.UpdateSnapshot(handle_.snapshot).ok());
    const auto& nodes = handle_.snapshot.List();
    int matched = 0;
    for (const api::PodPtr& pod : pods) {
      SCOPED_TRACE(pod->metadata.name);
      const framework::PodInfoPtr info = framework::NewPodInfo(pod);
      framework::CycleState got_state, want_state;
      framework::PreFilterResult result;
      EXPECT_TRUE(memo_.PreFilter(got_state, *info, nodes, result).IsSuccess());
      EXPECT_TRUE(scratch_.PreFilter(want_state, *info, nodes, result).IsSuccess());
      for (const framework::NodeInfo* node : nodes) {
        const framework::Status got = memo_.Filter(got_state, *info, *node);
        const framework::Status want = scratch_.Filter(want_state, *info, *node);
        EXPECT_EQ(got.code(), want.code()) << node->name();
        EXPECT_EQ(got.Message(), want.Message()) << node->name();
        matched += got.IsSuccess();
        // A copy of the node (nominated pods counted on it) is matched afresh, the same.
        const framework::NodeInfo copy = *node;
        EXPECT_EQ(memo_.Filter(got_state, *info, copy).code(), want.code()) << node->name();
      }
    }
    return matched;
  }

  SnapshotHandle handle_;
  NodeAffinity memo_{std::nullopt, std::nullopt, &handle_};
  NodeAffinity scratch_{std::nullopt, std::nullopt};
};

TEST_F(MatchMemoTest, DecidesAsMatchingThroughChanges) {
  const std::vector<api::PodPtr> pods = Incoming();
  const std::vector<api::PodPtr> first(pods.begin(), pods.begin() + 2);
  EXPECT_GT(ExpectSameDecisions(first), 0);
  // Two columns, each filled at every node Filter looked at.
  EXPECT_EQ(memo_.memo_for_test().columns_for_test(), 2u);
  EXPECT_EQ(memo_.memo_for_test().filled_for_test(), 24u);

  std::mt19937 rng(7);
  for (int step = 0; step < 40; ++step) {
    SCOPED_TRACE(step);
    const int i = static_cast<int>(rng() % 14);
    switch (rng() % 4) {
      case 0: {  // relabel a node (an update of a missing node adds it)
        const api::NodePtr old_node = NodeAt(i, "z" + std::to_string(i % 3));
        handle_.cache.UpdateNode(old_node, NodeAt(i, "z" + std::to_string(rng() % 4)));
        break;
      }
      case 1:  // a pod bound to a node: a new generation, the same labels
        ASSERT_TRUE(handle_.cache
                        .AddPod(BuildPod()
                                    .Name("p" + std::to_string(step))
                                    .UID("p" + std::to_string(step))
                                    .Node("n" + std::to_string(i))
                                    .Obj())
                        .ok());
        break;
      case 2:  // a node goes: the list is rebuilt
        handle_.cache.RemoveNode(*NodeAt(i, "z0"));
        break;
      default:  // a node comes (back) in another zone
        handle_.cache.AddNode(NodeAt(i, "z" + std::to_string(rng() % 3)));
        break;
    }
    // The pods take turns, so columns are replaced as well as reused.
    std::vector<api::PodPtr> some;
    for (size_t k = 0; k < pods.size(); ++k) {
      if ((k + static_cast<size_t>(step)) % 3 != 0) some.push_back(pods[k]);
    }
    ExpectSameDecisions(some);
    EXPECT_LE(memo_.memo_for_test().columns_for_test(), MatchMemo::kMaxColumns);
  }
}

TEST_F(MatchMemoTest, AChangedNodeIsMatchedAgain) {
  const std::vector<api::PodPtr> pods = {Incoming()[0]};  // zone z0 or z1
  EXPECT_EQ(ExpectSameDecisions(pods), 8);
  // n2 moves from z2 to z1: its entry is stale and must not answer.
  handle_.cache.UpdateNode(NodeAt(2, "z2"), NodeAt(2, "z1"));
  EXPECT_EQ(ExpectSameDecisions(pods), 9);
  handle_.cache.UpdateNode(NodeAt(2, "z1"), NodeAt(2, "z2"));
  EXPECT_EQ(ExpectSameDecisions(pods), 8);
}

TEST_F(MatchMemoTest, APodPinnedToNamedNodesKeepsNoColumn) {
  api::NodeAffinity pinned = Required(
      {Fields({R("metadata.name", "In", {"n1"})}), Fields({R("metadata.name", "In", {"n4"})})});
  ExpectSameDecisions({BuildPod().Name("ds").NodeAffinity(pinned).Obj()});
  EXPECT_EQ(memo_.memo_for_test().columns_for_test(), 0u);
}

}  // namespace
}  // namespace stowage::plugins::node_affinity::testutil::match_memo_test
