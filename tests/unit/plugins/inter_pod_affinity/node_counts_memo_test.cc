// NodeCountsMemo on its own: a view handed out never changes afterwards (the binding cycle and
// preemption may still hold an older cycle's state), least recently used queries are dropped past
// the capacity, and a lister without a change log gets every node recomputed each time.
#include "pkg/plugins/inter_pod_affinity/node_counts_memo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/snapshot.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::inter_pod_affinity::node_counts_memo_test {
namespace {

using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

api::NodePtr Node(const std::string& name) {
  return BuildNode().Name(name).Label("kubernetes.io/hostname", name).Label("zone", "z").Obj();
}

api::PodPtr Pod(const std::string& name, const std::string& node) {
  return BuildPod().Name(name).UID(name).Namespace("default").Node(node).Obj();
}

// The pods of each node, by hostname and by zone.
void CountPods(const framework::NodeInfo& node, TopologyCounts::NodeRecords& out) {
  if (node.node() == nullptr || node.pods().empty()) return;
  const int64_t n = static_cast<int64_t>(node.pods().size());
  for (const char* key : {"kubernetes.io/hostname", "zone"}) {
    if (const std::string* value = node.node()->metadata.labels.Get(key)) out.Add(key, *value, n);
  }
}

class NodeCountsMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"n1", "n2", "n3"}) cache_.AddNode(Node(n));
    Update();
  }
  void Update() { ASSERT_TRUE(cache_.UpdateSnapshot(snapshot_).ok()); }
  CountsView Counts(NodeCountsMemo& memo, const std::string& key) {
    return memo.Counts(key, snapshot_, pool_, CountPods);
  }

  cache::Cache cache_;
  cache::Snapshot snapshot_;
  stowage::testing::SequentialParallelizer pool_;
};

TEST_F(NodeCountsMemoTest, AViewKeepsItsCountsWhileTheMemoMovesOn) {
  NodeCountsMemo memo;
  ASSERT_TRUE(cache_.AddPod(Pod("p1", "n1")).ok());
  Update();
  const CountsView before = Counts(memo, "q");
  const framework::NodeInfo& n1 = *snapshot_.Get("n1");
  EXPECT_EQ(before.CountAt("zone", n1), 1);
  ASSERT_TRUE(cache_.AddPod(Pod("p2", "n1")).ok());
  ASSERT_TRUE(cache_.AddPod(Pod("p3", "n2")).ok());
  Update();
  const CountsView after = Counts(memo, "q");
  EXPECT_EQ(memo.full_computations(), 1);  // the second call only redid n1 and n2
  EXPECT_EQ(after.CountAt("kubernetes.io/hostname", n1), 2);
  EXPECT_EQ(after.CountAt("zone", *snapshot_.Get("n3")), 3);
  EXPECT_EQ(after.Sum(n1), 5);
  EXPECT_EQ(before.CountAt("kubernetes.io/hostname", n1), 1);
  EXPECT_EQ(before.CountAt("zone", *snapshot_.Get("n3")), 1);
  EXPECT_EQ(before.Sum(n1), 2);
  EXPECT_FALSE(before == after);
  EXPECT_TRUE(after == NodeCountsMemo::FromScratch(snapshot_.List(), pool_, CountPods));
}

TEST_F(NodeCountsMemoTest, DropsTheLeastRecentlyUsedQueryPastItsCapacity) {
  NodeCountsMemo memo(2);
  Counts(memo, "a");
  Counts(memo, "b");
  Counts(memo, "a");
  EXPECT_EQ(memo.full_computations(), 2);
  Counts(memo, "c");  // drops b, the least recently used
  Counts(memo, "a");
  EXPECT_EQ(memo.full_computations(), 3);
  ASSERT_TRUE(cache_.AddPod(Pod("p1", "n3")).ok());
  Update();
  const CountsView b = Counts(memo, "b");
  EXPECT_EQ(memo.full_computations(), 4);
  EXPECT_EQ(b.CountAt("kubernetes.io/hostname", *snapshot_.Get("n3")), 1);
}

TEST(NodeCountsMemo, WithoutAChangeLogRecomputesEveryNodeEachTime) {
  stowage::testing::FakeHandle handle;
  stowage::testing::SequentialParallelizer pool;
  NodeCountsMemo memo;
  handle.SetNodes({Node("n1"), Node("n2")}, {Pod("p1", "n1")});
  const framework::NodeInfoLister& lister = handle.SnapshotSharedLister();
  EXPECT_EQ(memo.Counts("q", lister, pool, CountPods).CountAt("zone", *lister.Get("n2")), 1);
  handle.SetNodes({Node("n1"), Node("n2")}, {Pod("p1", "n1"), Pod("p2", "n2")});
  EXPECT_EQ(memo.Counts("q", lister, pool, CountPods).CountAt("zone", *lister.Get("n2")), 2);
  EXPECT_EQ(memo.full_computations(), 2);
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::node_counts_memo_test
