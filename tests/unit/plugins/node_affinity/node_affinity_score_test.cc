// NodeAffinity PreScore, Score and NormalizeScore, mirroring upstream
// nodeaffinity/node_affinity_test.go TestNodeAffinityPriority, plus the factory's args checks.
#include <gtest/gtest.h>

#include <any>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/node_affinity/node_affinity.h"
#include "tests/unit/plugins/node_affinity/test_util.h"

namespace stowage::plugins::node_affinity::testutil::node_affinity_score_test {
namespace {

using framework::Code;

api::PreferredSchedulingTerm Pref(int32_t weight, std::vector<api::NodeSelectorRequirement> reqs) {
  return {weight, Expr(std::move(reqs))};
}

const stowage::testing::KeyValues kLabel1 = {{"foo", "bar"}};
const stowage::testing::KeyValues kLabel2 = {{"key", "value"}};
const stowage::testing::KeyValues kLabel3 = {{"az", "az1"}};
const stowage::testing::KeyValues kLabel4 = {{"abc", "az11"}, {"def", "az22"}};
const stowage::testing::KeyValues kLabel5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};

api::NodeAffinity Affinity1() { return Preferred({Pref(2, {R("foo", "In", {"bar"})})}); }
api::NodeAffinity Affinity2() {
  return Preferred(
      {Pref(2, {R("foo", "In", {"bar"})}), Pref(4, {R("key", "In", {"value"})}),
       Pref(5, {R("foo", "In", {"bar"}), R("key", "In", {"value"}), R("az", "In", {"az1"})})});
}

struct NodeSpec {
  std::string name;
  stowage::testing::KeyValues labels;
};

struct ScoreCase {
  std::string name;
  api::PodPtr pod;
  std::vector<NodeSpec> nodes;
  std::vector<int64_t> want;
  bool run_pre_score = true;
  std::optional<api::NodeAffinity> added = std::nullopt;
};
void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

class NodeAffinityScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(NodeAffinityScoreTest, NormalizedScores) {
  const ScoreCase& tc = GetParam();
  auto plugin = MakePlugin(tc.added);
  auto& na = dynamic_cast<NodeAffinity&>(*plugin);
  std::vector<api::NodePtr> nodes;
  for (const NodeSpec& n : tc.nodes) {
    auto b = BuildNode().Name(n.name);
    for (const auto& [k, v] : n.labels) b.Label(k, v);
    nodes.push_back(b.Obj());
  }
  auto infos = stowage::testing::MakeNodeInfos(nodes);
  framework::CycleState state;
  framework::PodInfoPtr info = framework::NewPodInfo(tc.pod);
  if (tc.run_pre_score) {
    framework::Status pre = na.PreScore(state, *info, stowage::testing::Pointers(infos));
    ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  }
  framework::NodeScoreList scores;
  for (const auto& ni : infos) {
    int64_t score = -1;
    EXPECT_TRUE(na.Score(state, *info, *ni, score).IsSuccess());
    scores.push_back({ni->name(), score});
  }
  framework::ScorePlugin& as_score = na;
  ASSERT_NE(as_score.Extensions(), nullptr);
  EXPECT_TRUE(as_score.Extensions()->NormalizeScore(state, *info, scores).IsSuccess());
  std::vector<int64_t> got;
  for (const auto& s : scores) got.push_back(s.score);
  EXPECT_EQ(got, tc.want);
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, NodeAffinityScoreTest,
    ::testing::Values(ScoreCase{"all nodes are same priority as NodeAffinity is nil",
                                BuildPod().Obj(),
                                {{"node1", kLabel1}, {"node2", kLabel2}, {"node3", kLabel3}},
                                {0, 0, 0},
                                false},
                      ScoreCase{"no node matches preferred terms",
                                BuildPod().NodeAffinity(Affinity1()).Obj(),
                                {{"node1", kLabel4}, {"node2", kLabel2}, {"node3", kLabel3}},
                                {0, 0, 0}},
                      ScoreCase{"only node1 matches",
                                BuildPod().NodeAffinity(Affinity1()).Obj(),
                                {{"node1", kLabel1}, {"node2", kLabel2}, {"node3", kLabel3}},
                                {100, 0, 0}},
                      ScoreCase{"all nodes match with different priorities",
                                BuildPod().NodeAffinity(Affinity2()).Obj(),
                                {{"node1", kLabel1}, {"node5", kLabel5}, {"node2", kLabel2}},
                                {18, 100, 36}},
                      ScoreCase{"added affinity",
                                BuildPod().Obj(),
                                {{"node1", kLabel1}, {"node2", kLabel2}},
                                {100, 0},
                                true,
                                Affinity1()},
                      ScoreCase{"added affinity and pod has default affinity",
                                BuildPod().NodeAffinity(Affinity1()).Obj(),
                                {{"node1", kLabel1}, {"node2", kLabel2}, {"node3", kLabel5}},
                                {40, 60, 100},
                                true,
                                Preferred({Pref(3, {R("key", "In", {"value"})})})},
                      ScoreCase{"priorities correct even if PreScore is not called",
                                BuildPod().NodeAffinity(Affinity2()).Obj(),
                                {{"node1", kLabel1}, {"node5", kLabel5}, {"node2", kLabel2}},
                                {18, 100, 36},
                                false},
                      // Terms of weight 0 and empty terms are dropped.
                      ScoreCase{"zero-weight and empty terms ignored",
                                BuildPod()
                                    .NodeAffinity(Preferred({Pref(0, {R("foo", "In", {"bar"})}),
                                                             api::PreferredSchedulingTerm{7, {}},
                                                             Pref(1, {R("key", "Exists")})}))
                                    .Obj(),
                                {{"node1", kLabel1}, {"node2", kLabel2}},
                                {0, 100}}),
    [](const ::testing::TestParamInfo<ScoreCase>& info) {
      return "Case" + std::to_string(info.index);
    });

TEST(NodeAffinityScore, PreScoreSkipsWithoutPreferredTerms) {
  auto plugin = MakePlugin(std::nullopt);
  auto& na = dynamic_cast<NodeAffinity&>(*plugin);
  framework::CycleState state;
  auto info = framework::NewPodInfo(BuildPod().Obj());
  EXPECT_EQ(na.PreScore(state, *info, {}).code(), Code::kSkip);
  // Required affinity alone does not make PreScore run.
  info = framework::NewPodInfo(PodRequiring({Expr({R("a", "Exists")})}));
  EXPECT_EQ(na.PreScore(state, *info, {}).code(), Code::kSkip);
  // addedAffinity's preferred terms do.
  auto with_added = MakePlugin(Affinity1());
  EXPECT_TRUE(dynamic_cast<NodeAffinity&>(*with_added).PreScore(state, *info, {}).IsSuccess());
}

TEST(NodeAffinityScore, PreScoreErrorOnBrokenPreferredTerm) {
  auto plugin = MakePlugin(std::nullopt);
  auto& na = dynamic_cast<NodeAffinity&>(*plugin);
  framework::CycleState state;
  auto info = framework::NewPodInfo(
      BuildPod().NodeAffinity(Preferred({Pref(2, {R("invalid key", "In", {"bar"})})})).Obj());
  framework::Status got = na.PreScore(state, *info, {});
  EXPECT_EQ(got.code(), Code::kError);
  EXPECT_NE(got.Message().find("invalid key"), std::string::npos) << got.Message();
}

TEST(NodeAffinityArgs, InvalidAddedAffinityFails) {
  stowage::testing::FakeHandle handle;
  auto bad_required =
      New(config::NodeAffinityArgs{Required({Expr({R("foo", "Bogus", {"x"})})})}, handle, {});
  ASSERT_FALSE(bad_required.ok());
  EXPECT_NE(std::string(bad_required.status().message())
                .find("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"),
            std::string::npos);
  auto bad_preferred =
      New(config::NodeAffinityArgs{Preferred({Pref(1, {R("bad key!", "Exists")})})}, handle, {});
  ASSERT_FALSE(bad_preferred.ok());
  EXPECT_NE(std::string(bad_preferred.status().message())
                .find("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"),
            std::string::npos);
  auto ok = New(config::NodeAffinityArgs{}, handle, {});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->Name(), "NodeAffinity");
}

}  // namespace
}  // namespace stowage::plugins::node_affinity::testutil::node_affinity_score_test
