// The memo PodTopologySpread keeps across cycles: over a real cache and snapshot, through a
// sequence of changes (pods added, removed, relabelled, terminating or in another namespace;
// node labels and taints changed; nodes added and removed), every cycle's PreFilter, AddPod,
// Filter, PreScore, Score and NormalizeScore must give what the same plugin computes from
// scratch, and pod changes must be taken from the change log rather than a rescan.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/snapshot.h"
#include "tests/unit/plugins/pod_topology_spread/test_util.h"

namespace stowage::plugins::pod_topology_spread::testutil::memo_test {
namespace {

// A handle whose snapshot is the cache's, as the scheduler's is.
class SnapshotHandle : public ListerHandle {
 public:
  cache::Cache cache;
  cache::Snapshot snapshot;
  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot; }
};

const std::string kZone = "zone";  // the constraints' zone key, outside the node tree's

api::NodePtr Node(const std::string& name, const std::string& zone, bool tainted = false) {
  auto n = ZoneNode(name, zone).Label(std::string(kLabelTopologyZone), zone);
  if (tainted) n.Taint("dedicated", "x", "NoSchedule");
  return n.Obj();
}

api::PodPtr Pod(const std::string& name, const std::string& node, const std::string& app,
                const std::string& ns = "ns") {
  return BuildPod().Name(name).UID(name).Namespace(ns).Node(node).Label("app", app).Obj();
}

class MemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_.replica_sets_list.Add(
        ReplicaSet("ns", "rs", BuildLabelSelector().Label("app", "web").Obj()));
    memo_ = MakePlugin(handle_, SystemArgs());
    scratch_ = MakePlugin(handle_, SystemArgs());
    scratch_->DisableMemoForTest();
    for (const auto& [name, zone] : std::vector<std::pair<std::string, std::string>>{
             {"n1", "z1"}, {"n2", "z1"}, {"n3", "z2"}, {"n4", "z2"}, {"n5", "z3"}}) {
      handle_.cache.AddNode(Node(name, zone, name == "n5"));
    }
    handle_.cache.AddNode(ZoneNode("n6", "").Obj());  // no zone label at all
    for (int i = 0; i < 8; ++i) {
      Add(Pod("p" + std::to_string(i), "n" + std::to_string(i % 6 + 1), i % 3 ? "web" : "db"));
    }
  }

  void Add(const api::PodPtr& pod) { ASSERT_TRUE(handle_.cache.AddPod(pod).ok()); }

  // The incoming pods: their own constraints of both kinds, inclusion policies that depend on the
  // pod, matchLabelKeys, and a pod that gets the system defaults through its ReplicaSet.
  std::vector<api::PodPtr> Incoming() const {
    const auto web = BuildLabelSelector().Label("app", "web").Obj();
    return {
        BuildPod()
            .Name("a")
            .Namespace("ns")
            .Label("app", "web")
            .SpreadConstraint(1, kZone, kDoNot, web)
            .SpreadConstraint(1, kHostname, kAnyway, web)
            .Obj(),
        BuildPod()
            .Name("b")
            .Namespace("ns")
            .Label("app", "web")
            .NodeAffinityNotIn(kZone, {"z1"})
            .SpreadConstraint(1, kZone, kDoNot, web, 3, std::nullopt, "Honor")
            .SpreadConstraint(2, kZone, kAnyway, web, std::nullopt, std::nullopt, "Honor")
            .Obj(),
        BuildPod()
            .Name("c")
            .Namespace("ns")
            .Label("app", "db")
            .Label("v", "1")
            .SpreadConstraint(1, kHostname, kDoNot, BuildLabelSelector().Exists("app").Obj(),
                              std::nullopt, std::nullopt, std::nullopt, {"v"})
            .Obj(),
        // "b" tolerating the taint: the same node affinity, other tolerations, another column.
        BuildPod()
            .Name("b2")
            .Namespace("ns")
            .Label("app", "web")
            .NodeAffinityNotIn(kZone, {"z1"})
            .Toleration("dedicated", "Equal", "x", "NoSchedule")
            .SpreadConstraint(1, kZone, kDoNot, web, 3, std::nullopt, "Honor")
            .Obj(),
        // Inclusion decided by a nodeSelector and by taints it tolerates or not; with "b" and
        // "b2", four sets of inputs, so four inclusion columns.
        BuildPod()
            .Name("e")
            .Namespace("ns")
            .Label("app", "web")
            .NodeSelector({{std::string(kLabelTopologyZone), "z2"}})
            .Toleration("dedicated", "Equal", "x", "NoSchedule")
            .SpreadConstraint(1, kZone, kDoNot, web, std::nullopt, "Honor", "Honor")
            .SpreadConstraint(1, kHostname, kAnyway, web, std::nullopt, "Ignore", "Honor")
            .Obj(),
        BuildPod()
            .Name("d")
            .Namespace("ns")
            .Label("app", "web")
            .OwnerReference("rs", "ReplicaSet", "apps/v1")
            .Obj(),
    };
  }

  // One cycle: the snapshot is updated, then both plugins run every extension point on every
  // incoming pod and must agree.
  void ExpectSameDecisions() {
    ASSERT_TRUE(handle_.cache.UpdateSnapshot(handle_.snapshot).ok());
    const auto& nodes = handle_.snapshot.List();
    for (const api::PodPtr& pod : Incoming()) {
      SCOPED_TRACE(pod->metadata.name);
      const framework::PodInfoPtr info = framework::NewPodInfo(pod);
      framework::CycleState got_state, want_state;
      framework::PreFilterResult result;
      const framework::Status got = memo_->PreFilter(got_state, *info, nodes, result);
      const framework::Status want = scratch_->PreFilter(want_state, *info, nodes, result);
      ASSERT_EQ(got.code(), want.code());
      if (got.IsSuccess()) {
        ExpectSameFilter(*info, got_state, want_state);
        // A nominated pod on the first node, as AddPod sees it.
        const framework::PodInfoPtr extra = framework::NewPodInfo(Pod("extra", "n1", "web"));
        ASSERT_TRUE(memo_->AddPod(got_state, *pod, *extra, *nodes[0]).IsSuccess());
        ASSERT_TRUE(scratch_->AddPod(want_state, *pod, *extra, *nodes[0]).IsSuccess());
        ExpectSameFilter(*info, got_state, want_state);
      }
      ExpectSameScores(*info, nodes);
    }
  }

  void ExpectSameFilter(const framework::PodInfo& pod, const framework::CycleState& got,
                        const framework::CycleState& want) {
    const auto* g = got.Read<PreFilterState>(kPreFilterStateKey);
    const auto* w = want.Read<PreFilterState>(kPreFilterStateKey);
    ASSERT_NE(g, nullptr);
    ASSERT_NE(w, nullptr);
    ASSERT_EQ(g->counts.size(), w->counts.size());
    for (size_t i = 0; i < g->counts.size(); ++i) {
      EXPECT_EQ(g->CountsForTest(i), w->CountsForTest(i));
      EXPECT_EQ(g->MinMatchNum(i), w->MinMatchNum(i));
    }
    for (const framework::NodeInfo* node : handle_.snapshot.List()) {
      EXPECT_EQ(memo_->Filter(got, pod, *node).code(), scratch_->Filter(want, pod, *node).code())
          << node->name();
      // A copy, as preemption makes, is not in the memo: Filter then goes by the label's value.
      const framework::NodeInfo copy = *node;
      EXPECT_EQ(memo_->Filter(got, pod, copy).code(), scratch_->Filter(want, pod, copy).code())
          << node->name() << " (copy)";
    }
  }

  void ExpectSameScores(const framework::PodInfo& pod,
                        const std::vector<const framework::NodeInfo*>& feasible) {
    framework::CycleState got_state, want_state;
    const framework::Status got = memo_->PreScore(got_state, pod, feasible);
    const framework::Status want = scratch_->PreScore(want_state, pod, feasible);
    ASSERT_EQ(got.code(), want.code());
    if (!got.IsSuccess()) return;
    const auto* g = got_state.Read<PreScoreState>(kPreScoreStateKey);
    const auto* w = want_state.Read<PreScoreState>(kPreScoreStateKey);
    EXPECT_EQ(g->counts, w->counts);
    EXPECT_EQ(g->ignored_nodes, w->ignored_nodes);
    EXPECT_EQ(g->weights, w->weights);
    framework::NodeScoreList got_scores, want_scores;
    for (const framework::NodeInfo* node : feasible) {
      int64_t a = -1, b = -1;
      ASSERT_TRUE(memo_->Score(got_state, pod, *node, a).IsSuccess());
      ASSERT_TRUE(scratch_->Score(want_state, pod, *node, b).IsSuccess());
      EXPECT_EQ(a, b) << node->name();
      got_scores.push_back({node->name(), a});
      want_scores.push_back({node->name(), b});
    }
    ASSERT_TRUE(memo_->NormalizeScore(got_state, pod, got_scores).IsSuccess());
    ASSERT_TRUE(scratch_->NormalizeScore(want_state, pod, want_scores).IsSuccess());
    for (size_t i = 0; i < got_scores.size(); ++i) {
      EXPECT_EQ(got_scores[i].score, want_scores[i].score) << got_scores[i].name;
    }
  }

  SnapshotHandle handle_;
  std::unique_ptr<PodTopologySpread> memo_;
  std::unique_ptr<PodTopologySpread> scratch_;
};

TEST_F(MemoTest, AgreesWithARecomputationAcrossClusterChanges) {
  ExpectSameDecisions();
  const int64_t rescans = memo_->MemoFullRescansForTest();

  // Pod changes: taken from the change log, node by node.
  Add(Pod("q1", "n3", "web"));
  ExpectSameDecisions();
  ASSERT_TRUE(handle_.cache.RemovePod(*Pod("p1", "n2", "web")).ok());
  ExpectSameDecisions();
  ASSERT_TRUE(handle_.cache.UpdatePod(Pod("p2", "n3", "web"), Pod("p2", "n3", "db")).ok());
  ExpectSameDecisions();
  Add(Pod("q2", "n4", "web", "other"));
  Add(BuildPod()
          .Name("q3")
          .UID("q3")
          .Namespace("ns")
          .Node("n5")
          .Label("app", "web")
          .Terminating()
          .Obj());
  ExpectSameDecisions();
  EXPECT_EQ(memo_->MemoFullRescansForTest(), rescans);

  // Node changes in place: a constraint key's value (to one no node had; the node tree's zone
  // stays), a taint, a new label.
  handle_.cache.UpdateNode(nullptr,
                           ZoneNode("n2", "z4").Label(std::string(kLabelTopologyZone), "z1").Obj());
  ExpectSameDecisions();
  handle_.cache.UpdateNode(nullptr, Node("n1", "z1", true));
  ExpectSameDecisions();
  handle_.cache.UpdateNode(nullptr, Node("n5", "z3"));
  ExpectSameDecisions();
  EXPECT_EQ(memo_->MemoFullRescansForTest(), rescans);
  EXPECT_EQ(memo_->MemoInclusionsForTest(), 4u);

  // Nodes come and go: the list changes, and the memo starts over.
  handle_.cache.AddNode(Node("n7", "z2"));
  Add(Pod("q4", "n7", "web"));
  ExpectSameDecisions();
  handle_.cache.RemoveNode(*Node("n4", "z2"));
  ExpectSameDecisions();
  EXPECT_GT(memo_->MemoFullRescansForTest(), rescans);

  // Without the node that lacked the zone every node has every key, and the memo's per-domain
  // sums serve pods with several constraints too; they follow pod changes and a value turned
  // empty, node by node.
  ASSERT_TRUE(handle_.cache.RemovePod(*Pod("p5", "n6", "db")).ok());
  handle_.cache.RemoveNode(*ZoneNode("n6", "").Obj());
  ExpectSameDecisions();
  const int64_t after_removal = memo_->MemoFullRescansForTest();
  Add(Pod("q5", "n3", "web"));
  ASSERT_TRUE(handle_.cache.RemovePod(*Pod("q1", "n3", "web")).ok());
  ExpectSameDecisions();
  handle_.cache.UpdateNode(
      nullptr,
      ZoneNode("n5", "").Label(kZone, "").Label(std::string(kLabelTopologyZone), "z3").Obj());
  ExpectSameDecisions();
  Add(Pod("q6", "n5", "web"));
  ExpectSameDecisions();
  EXPECT_EQ(memo_->MemoFullRescansForTest(), after_removal);
  EXPECT_GT(memo_->MemoSumsForTest(), 0u);
}

// Pods of many templates: the memo holds a bounded number of columns, and reusing one for
// another query changes no decision.
TEST_F(MemoTest, StaysBoundedOverManyQueries) {
  ASSERT_TRUE(handle_.cache.UpdateSnapshot(handle_.snapshot).ok());
  const auto& nodes = handle_.snapshot.List();
  for (int round = 0; round < 2; ++round) {
    for (int t = 0; t < 40; ++t) {
      const std::string app = t % 2 ? "web" : "db";
      const auto pod =
          BuildPod()
              .Name("t" + std::to_string(t))
              .Namespace("ns")
              .SpreadConstraint(
                  1, t % 3 ? kZone : kHostname, kDoNot,
                  BuildLabelSelector().Label("app", app).NotIn("t", {std::to_string(t)}).Obj())
              .Obj();
      const framework::PodInfoPtr info = framework::NewPodInfo(pod);
      framework::CycleState got, want;
      framework::PreFilterResult result;
      ASSERT_TRUE(memo_->PreFilter(got, *info, nodes, result).IsSuccess());
      ASSERT_TRUE(scratch_->PreFilter(want, *info, nodes, result).IsSuccess());
      ExpectSameFilter(*info, got, want);
      EXPECT_LE(memo_->MemoColumnsForTest(), SpreadMemo::kMaxKeys + SpreadMemo::kMaxQueries);
    }
  }
}

// The memo's sum columns (over every node, and over the nodes a taint policy admits), their count
// of domains and their two values with the fewest pods, where PreFilter's critical paths start,
// followed through a long random run of pods added and removed and nodes moved between zones and
// tainted, over one-node domains where ties are everywhere: after every Sync they agree with a
// sum over the per-node columns, and the change log served every step.
TEST(SpreadMemoTest, KeepsSumsAndTheFewestThroughChanges) {
  SnapshotHandle handle;
  constexpr int kNodes = 16;
  auto zone_of = [](uint32_t r) { return "z" + std::to_string(r % 5); };
  for (int n = 0; n < kNodes; ++n) handle.cache.AddNode(Node("n" + std::to_string(n), zone_of(n)));
  Constraint by_taints;
  by_taints.selector = api::Selector::FromMap(stowage::testing::MakeStringMap({{"app", "web"}}));
  by_taints.honor_node_taints = true;
  const api::PodPtr incoming = BuildPod().Name("incoming").Namespace("ns").Obj();
  const auto required = helper::RequiredNodeAffinity::FromPod(*incoming);
  framework::Parallelizer& pool = handle.parallelizer();
  SpreadMemo memo;
  std::mt19937 rng(27);
  std::vector<api::PodPtr> placed;
  for (int step = 0; step < 600; ++step) {
    const uint32_t r = static_cast<uint32_t>(rng());
    const std::string node = "n" + std::to_string(r % kNodes);
    if (r % 7 == 0) {
      // The constraints' key moves and the taint comes or goes; the node tree's zone stays, so
      // the node list does too.
      auto moved = ZoneNode(node, zone_of(r / kNodes))
                       .Label(std::string(kLabelTopologyZone), zone_of(r % kNodes));
      if (r % 2 == 0) moved.Taint("dedicated", "x", "NoSchedule");
      handle.cache.UpdateNode(nullptr, moved.Obj());
    } else if (placed.empty() || r % 3 != 0) {
      placed.push_back(Pod("p" + std::to_string(step), node, r % 4 ? "web" : "db"));
      ASSERT_TRUE(handle.cache.AddPod(placed.back()).ok());
    } else {
      const size_t victim = r % placed.size();
      ASSERT_TRUE(handle.cache.RemovePod(*placed[victim]).ok());
      placed.erase(placed.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    ASSERT_TRUE(handle.cache.UpdateSnapshot(handle.snapshot).ok());
    memo.Sync(handle.snapshot);
    const SpreadMemo::CountColumn& counts = memo.Counts("ns", by_taints.selector, pool);
    for (int variant = 0; variant < 3; ++variant) {
      by_taints.topology_key = variant == 0 ? kHostname : kZone;
      const SpreadMemo::KeyColumn& column = memo.Key(by_taints.topology_key, pool);
      const SpreadMemo::InclusionColumn* included =
          variant == 2 ? &memo.Inclusion(by_taints, *incoming, required, false, pool) : nullptr;
      const SpreadMemo::SumColumn& sum = memo.Sums(column, counts, included);
      SCOPED_TRACE("step " + std::to_string(step) + ", variant " + std::to_string(variant));
      // The sums again, from the per-node columns.
      std::vector<int64_t> want_sum(column.values.size(), 0);
      std::vector<int> want_nodes(column.values.size(), 0);
      for (size_t n = 0; n < memo.nodes().size(); ++n) {
        if (column.at[n] < 0 || (included != nullptr && !included->at[n])) continue;
        want_sum[static_cast<size_t>(column.at[n])] += counts.at[n];
        ++want_nodes[static_cast<size_t>(column.at[n])];
      }
      std::vector<int64_t> held;
      for (size_t id = 0; id < column.values.size(); ++id) {
        ASSERT_EQ(sum.Sum(id), want_sum[id]) << column.values[id];
        ASSERT_EQ(sum.Held(id), want_nodes[id] > 0) << column.values[id];
        if (sum.Held(id)) held.push_back(sum.Sum(id));
      }
      std::sort(held.begin(), held.end());
      ASSERT_EQ(sum.held, held.size());
      for (size_t j = 0; j < 2; ++j) {
        const int32_t id = sum.min_ids[j];
        if (j >= held.size()) {
          EXPECT_EQ(id, -1) << "path " << j;
          continue;
        }
        ASSERT_GE(id, 0) << "path " << j;
        EXPECT_TRUE(sum.Held(static_cast<size_t>(id))) << "path " << j;
        EXPECT_EQ(sum.Sum(static_cast<size_t>(id)), held[j]) << "path " << j;
      }
      if (!held.empty()) {
        EXPECT_NE(sum.min_ids[0], sum.min_ids[1]);
      }
    }
  }
  EXPECT_EQ(memo.full_rescans_for_test(), 1);
}

}  // namespace
}  // namespace stowage::plugins::pod_topology_spread::testutil::memo_test
