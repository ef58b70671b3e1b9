// InterPodAffinity PreScore, Score and NormalizeScore, from the cases of upstream's
// interpodaffinity/scoring_test.go (TestPreferredAffinity,
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight).
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/plugins/inter_pod_affinity/test_util.h"

namespace stowage::plugins::inter_pod_affinity::testutil::score_test {
namespace {

api::WeightedPodAffinityTerm W(int32_t weight, std::string value, std::string topology,
                               std::optional<api::LabelSelector> ns_selector = std::nullopt) {
  api::WeightedPodAffinityTerm t{weight, TermIn("security", {std::move(value)}, topology)};
  t.term.namespace_selector = std::move(ns_selector);
  return t;
}
api::PodAffinity Preferred(std::vector<api::WeightedPodAffinityTerm> terms) {
  return Terms({}, std::move(terms));
}

api::PodPtr Pod(std::string security, std::string node = "", std::string ns = "default",
                std::optional<api::PodAffinity> affinity = std::nullopt,
                std::optional<api::PodAffinity> anti = std::nullopt) {
  auto p = BuildPod().Name("p-" + security + node).Namespace(ns).Label("security", security);
  if (!node.empty()) p.Node(node);
  return WithAffinity(p, std::move(affinity), std::move(anti));
}

// machine1 and machine3 in region China, machine2 in India, machine4 without labels.
std::vector<api::NodePtr> Nodes() {
  return {BuildNode().Name("machine1").Label("region", "China").Obj(),
          BuildNode().Name("machine2").Label("region", "India").Obj(),
          BuildNode().Name("machine3").Label("region", "China").Obj(),
          BuildNode().Name("machine4").Obj()};
}

struct ScoreCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::PodPtr> pods;
  std::vector<int64_t> want;  // normalized, per node; empty: PreScore skips
  config::InterPodAffinityArgs args = {};
};
void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

std::vector<ScoreCase> Cases() {
  const api::PodPtr s1_on_1 = Pod("S1", "machine1");
  config::InterPodAffinityArgs hard0;
  hard0.hard_pod_affinity_weight = 0;
  config::InterPodAffinityArgs hard5;
  hard5.hard_pod_affinity_weight = 5;
  config::InterPodAffinityArgs ignore;
  ignore.ignore_preferred_terms_of_existing_pods = true;
  auto required_s2 = Terms({TermIn("security", {"S2"}, "region")});
  return {
      {"no terms anywhere: skip", Pod("S2"), {s1_on_1}, {}},
      {"preferred affinity scores the matching pod's region",
       Pod("S2", "", "default", Preferred({W(5, "S1", "region")})),
       {s1_on_1},
       {100, 0, 100, 0}},
      {"preferred anti-affinity penalises it",
       Pod("S2", "", "default", std::nullopt, Preferred({W(5, "S1", "region")})),
       {s1_on_1},
       {0, 100, 0, 100}},
      {"weights add up over pods and terms",
       Pod("S2", "", "default", Preferred({W(8, "S1", "region"), W(2, "S3", "region")})),
       {s1_on_1, Pod("S3", "machine2")},
       {100, 25, 100, 0}},
      {"affinity and anti-affinity cancel in one domain",
       Pod("S2", "", "default", Preferred({W(5, "S1", "region")}),
           Preferred({W(5, "S3", "region")})),
       {s1_on_1, Pod("S3", "machine3"), Pod("S1", "machine2")},
       {0, 100, 0, 0}},
      {"a matching pod in another namespace does not count",
       Pod("S2", "", "default", Preferred({W(5, "S1", "region")})),
       {Pod("S1", "machine1", "ns2")},
       {}},
      {"an existing pod's required affinity scores with hardPodAffinityWeight",
       Pod("S2"),
       {Pod("S1", "machine1", "default", required_s2)},
       {100, 0, 100, 0}},
      {"hardPodAffinityWeight 0 ignores it",
       Pod("S2"),
       {Pod("S1", "machine1", "default", required_s2)},
       {},
       hard0},
      {"hardPodAffinityWeight weighs against preferred terms",
       Pod("S2", "", "default", Preferred({W(10, "S9", "region")})),
       {Pod("S1", "machine1", "default", required_s2), Pod("S9", "machine2")},
       {50, 100, 50, 0},
       hard5},
      {"an existing pod's preferred anti-affinity repels the pod",
       Pod("S2"),
       {Pod("S1", "machine2", "default", std::nullopt, Preferred({W(7, "S2", "region")}))},
       {100, 0, 100, 100}},
      {"ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
       Pod("S2"),
       {Pod("S1", "machine1", "default", Preferred({W(7, "S2", "region")}))},
       {},
       ignore},
      {"ignorePreferredTermsOfExistingPods keeps the pod's own terms",
       Pod("S2", "", "default", Preferred({W(5, "S1", "region")})),
       {s1_on_1},
       {100, 0, 100, 0},
       ignore},
      {"a node without the topology label gets no share",
       Pod("S2", "", "default", Preferred({W(5, "S1", "region")})),
       {Pod("S1", "machine4")},
       {}},
  };
}

class ScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(ScoreTest, NormalizedScores) {
  const ScoreCase& tc = GetParam();
  Handle handle;
  auto plugin = MakePlugin(handle, tc.args);
  handle.SetNodes(Nodes(), tc.pods);
  framework::CycleState state;
  auto info = framework::NewPodInfo(tc.pod);
  const auto& nodes = handle.SnapshotSharedLister().List();
  framework::Status pre = plugin->PreScore(state, *info, nodes);
  if (tc.want.empty()) {
    EXPECT_TRUE(pre.IsSkip()) << pre.Message();
    return;
  }
  ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  framework::NodeScoreList scores;
  for (const framework::NodeInfo* n : nodes) {
    int64_t score = 0;
    ASSERT_TRUE(plugin->Score(state, *info, *n, score).IsSuccess());
    scores.push_back({n->name(), score});
  }
  ASSERT_TRUE(plugin->NormalizeScore(state, *info, scores).IsSuccess());
  std::vector<int64_t> got;
  for (const auto& s : scores) got.push_back(s.score);
  EXPECT_EQ(got, tc.want);
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, ScoreTest, ::testing::ValuesIn(Cases()));

TEST(InterPodAffinityScore, NamespaceSelectorOfPreferredTerms) {
  Handle handle;
  handle.AddNamespace("team-a", {{"team", "a"}});
  handle.AddNamespace("default", {});
  auto plugin = MakePlugin(handle);
  handle.SetNodes(Nodes(), {Pod("S1", "machine2", "team-a")});
  auto pod = Pod("S2", "", "default",
                 Preferred({W(5, "S1", "region", BuildLabelSelector().Label("team", "a").Obj())}));
  auto info = framework::NewPodInfo(pod);
  framework::CycleState state;
  ASSERT_TRUE(plugin->PreScore(state, *info, handle.SnapshotSharedLister().List()).IsSuccess());
  int64_t score = 0;
  ASSERT_TRUE(plugin->Score(state, *info, *handle.SnapshotSharedLister().Get("machine2"), score)
                  .IsSuccess());
  EXPECT_EQ(score, 5);
}

TEST(InterPodAffinityScore, WithoutPreScoreStateIsAnError) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto info = framework::NewPodInfo(Pod("S1"));
  auto node = stowage::testing::MakeNodeInfo(Nodes()[0]);
  int64_t score = 0;
  framework::Status s = plugin->Score(state, *info, *node, score);
  EXPECT_EQ(s.Message(), "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::testutil::score_test
