// SelectVictimsOnNode checked against PreFilter state recomputed from scratch: the incremental
// removals and additions (PreFilter extensions) must leave the preemptor fitting exactly when a
// fresh PreFilter over the cluster without the victims says it fits, and each victim must be
// needed (putting it back alone makes the preemptor not fit). After upstream's
// TestSelectNodesForPreemption and TestDryRunPreemption.
#include "pkg/plugins/default_preemption/victims.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/plugins/default_preemption/test_util.h"

namespace stowage::plugins::default_preemption::victims_test {
namespace {

using stowage::testing::PodAffinityKind;
using testutil::Node;
using testutil::Pod;

struct Case {
  std::string name;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> pods;
  api::PodPtr preemptor;
  std::string node;  // where victims are selected
  std::vector<std::string> want_victims;
};
std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

// Whether the preemptor fits on node_name when the cluster holds only pods, with every
// PreFilter run from scratch.
bool FitsFromScratch(const Case& tc, const std::vector<api::PodPtr>& pods) {
  testutil::Cluster cluster(tc.nodes, pods);
  auto pod = framework::NewPodInfo(tc.preemptor);
  const auto& lister = cluster.handle.SnapshotSharedLister();
  auto state = cluster.runner.PreFilter(*pod, lister.List());
  return cluster.runner.Filter(*state, *pod, *lister.Get(tc.node)).IsSuccess();
}

class SelectVictimsTest : public ::testing::TestWithParam<Case> {};

TEST_P(SelectVictimsTest, MatchesAFreshPreFilter) {
  const Case& tc = GetParam();
  testutil::Cluster cluster(tc.nodes, tc.pods);
  auto pod = framework::NewPodInfo(tc.preemptor);
  const auto& lister = cluster.handle.SnapshotSharedLister();
  auto state = cluster.runner.PreFilter(*pod, lister.List());
  framework::NodeInfo node = *lister.Get(tc.node);
  NodeVictims victims;
  ASSERT_TRUE(cluster.runner.Filter(*state, *pod, node).IsRejected()) << "must not fit yet";
  framework::Status s = SelectVictimsOnNode(cluster.runner, *state, *pod, node, {}, victims);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  std::vector<std::string> got;
  for (const auto& v : victims.pods) got.push_back(v->pod->metadata.name);
  EXPECT_EQ(got, tc.want_victims);

  auto without = [&](const std::vector<std::string>& names) {
    std::vector<api::PodPtr> kept;
    for (const auto& p : tc.pods) {
      if (std::find(names.begin(), names.end(), p->metadata.name) == names.end()) {
        kept.push_back(p);
      }
    }
    return kept;
  };
  EXPECT_TRUE(FitsFromScratch(tc, without(got))) << "fits once the victims are gone";
  for (size_t i = 0; i < got.size(); ++i) {
    std::vector<std::string> all_but_one = got;
    all_but_one.erase(all_but_one.begin() + static_cast<long>(i));
    EXPECT_FALSE(FitsFromScratch(tc, without(all_but_one))) << got[i] << " is needed";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SelectVictimsTest,
    ::testing::Values(
        Case{"resources: the least important pods go",
             {Node("n1", "4")},
             {Pod("a", 1, "1", "n1").Obj(), Pod("b", 2, "1", "n1").Obj(),
              Pod("c", 3, "1", "n1").Obj(), Pod("d", 4, "1", "n1").Obj()},
             Pod("p", 10, "2").Obj(),
             "n1",
             {"b", "a"}},
        Case{"resources: an equal priority is never a victim",
             {Node("n1", "4")},
             {Pod("same", 10, "2", "n1").Obj(), Pod("low", 1, "2", "n1").Obj()},
             Pod("p", 10, "2").Obj(),
             "n1",
             {"low"}},
        Case{"the preemptor's anti-affinity: the matching pod goes, the bigger one stays",
             {Node("n1", "8")},
             {Pod("web", 1, "1", "n1").Label("app", "web").Obj(), Pod("big", 1, "4", "n1").Obj()},
             Pod("p", 10, "1")
                 .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"web"},
                                    PodAffinityKind::kRequired)
                 .Obj(),
             "n1",
             {"web"}},
        Case{"an existing pod's anti-affinity against the preemptor",
             {Node("n1", "8")},
             {Pod("guard", 1, "1", "n1")
                  .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"p"},
                                     PodAffinityKind::kRequired)
                  .Obj(),
              Pod("other", 1, "1", "n1").Obj()},
             Pod("p", 10, "1").Label("app", "p").Obj(),
             "n1",
             {"guard"}},
        Case{"both resources and anti-affinity",
             {Node("n1", "3")},
             {Pod("web", 5, "1", "n1").Label("app", "web").Obj(), Pod("x", 1, "1", "n1").Obj(),
              Pod("y", 2, "1", "n1").Obj()},
             Pod("p", 10, "2")
                 .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"web"},
                                    PodAffinityKind::kRequired)
                 .Obj(),
             "n1",
             {"web", "x"}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(SelectVictims, NoLowerPriorityPodIsUnresolvable) {
  testutil::Cluster cluster({Node("n1", "2")}, {Pod("a", 10, "2", "n1").Obj()});
  auto pod = framework::NewPodInfo(Pod("p", 10, "1").Obj());
  const auto& lister = cluster.handle.SnapshotSharedLister();
  auto state = cluster.runner.PreFilter(*pod, lister.List());
  framework::NodeInfo node = *lister.Get("n1");
  NodeVictims victims;
  framework::Status s = SelectVictimsOnNode(cluster.runner, *state, *pod, node, {}, victims);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "No preemption victims found for incoming pod");
}

TEST(MoreImportantPod, PriorityThenEarlierStart) {
  auto a = Pod("a", 5, "1").StartTime("2026-01-01T00:00:00Z").Obj();
  auto b = Pod("b", 5, "1").StartTime("2026-02-01T00:00:00Z").Obj();
  auto c = Pod("c", 5, "1").Obj();  // not started: now
  auto d = Pod("d", 6, "1").Obj();
  EXPECT_TRUE(MoreImportantPod(*a, *b));
  EXPECT_FALSE(MoreImportantPod(*b, *a));
  EXPECT_TRUE(MoreImportantPod(*b, *c));
  EXPECT_FALSE(MoreImportantPod(*c, *b));
  EXPECT_TRUE(MoreImportantPod(*d, *a));
}

}  // namespace
}  // namespace stowage::plugins::default_preemption::victims_test
