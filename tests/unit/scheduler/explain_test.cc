// Algorithm::Explain and its renderers (explain.h): every node judged, none sampled; verdicts
// kept per node and grouped in the table; raw, normalised and weighted scores; ranks and ties;
// the PreFilter rejection and narrowing; the FitError text the scheduler would write.
#include "pkg/scheduler/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/framework/runtime/runtime.h"
#include "pkg/scheduler/algorithm.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_extender.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler::explain_test {
namespace {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Rejects the nodes named in reject with their message; unresolvable for names starting "u".
struct TableFilter : framework::FilterPlugin {
  std::map<std::string, std::string> reject;
  std::string_view Name() const override { return "Table"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) override {
    auto it = reject.find(node.name());
    if (it == reject.end()) return {};
    return node.name()[0] == 'u' ? Status::Unresolvable(it->second)
                                 : Status::Unschedulable(it->second);
  }
};

// Raw score: the number in the node's name (modulo 20) times ten; NormalizeScore halves it, so
// the raw and normalised columns differ.
struct HalvingScore : framework::ScorePlugin, framework::ScoreExtensions {
  std::string_view Name() const override { return "Halving"; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo& node, int64_t& score) override {
    score = std::stoi(node.name().substr(1)) % 20 * 10;
    return {};
  }
  framework::ScoreExtensions* Extensions() override { return this; }
  Status NormalizeScore(const CycleState&, const PodInfo&,
                        framework::NodeScoreList& scores) override {
    for (auto& s : scores) s.score /= 2;
    return {};
  }
};

// Every node scores 7.
struct FlatScore : framework::ScorePlugin {
  std::string_view Name() const override { return "Flat"; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo&, int64_t& score) override {
    score = 7;
    return {};
  }
};

// A PreFilter that keeps only keep, or rejects the pod when reject is set.
struct Narrow : framework::PreFilterPlugin {
  std::optional<std::set<std::string>> keep;
  std::string reject;
  std::string_view Name() const override { return "Narrow"; }
  Status PreFilter(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&,
                   framework::PreFilterResult& r) override {
    if (!reject.empty()) return Status::Unresolvable(reject);
    if (keep) r.node_names = *keep;
    return {};
  }
};

// A PostFilter that would nominate n1: explain must not run it, as it knows no dry run.
struct NominateN1 : framework::PostFilterPlugin {
  int calls = 0;
  std::string_view Name() const override { return "NominateN1"; }
  Status PostFilter(CycleState&, const PodInfo&, const framework::NodeToStatus&,
                    framework::PluginsRunner&, framework::NominatingInfo& result) override {
    ++calls;
    result = {framework::NominatingInfo::Mode::kOverride, "n1"};
    return {};
  }
};

class ExplainTest : public ::testing::Test {
 protected:
  void Build(const std::vector<std::string>& nodes, bool score = true) {
    ASSERT_TRUE(stowage::testing::RegisterSortAndBind(registry_).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Table", [this] {
                  return filter_.release();
                }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Halving", [this] {
                  return halving_.release();
                }).ok());
    ASSERT_TRUE(
        stowage::testing::RegisterStub(registry_, "Flat", [this] { return flat_.release(); }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Narrow", [this] {
                  return narrow_.release();
                }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "NominateN1", [this] {
                  return post_filter_.release();
                }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kPreFilter) = {{"Narrow"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"Table"}};
    if (score) spec.at(framework::ExtensionPoint::kScore) = {{"Halving", 2}, {"Flat", 3}};
    if (post_filter_in_profile_) spec.at(framework::ExtensionPoint::kPostFilter) = {{"NominateN1"}};
    auto fw = framework::Framework::New(registry_, spec, handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    std::vector<api::NodePtr> objs;
    for (const auto& n : nodes) objs.push_back(stowage::testing::BuildNode().Name(n).Obj());
    lister_.Set(stowage::testing::MakeNodeInfos(objs));
  }

  Explanation Run() {
    Algorithm algorithm(lister_, pool_, std::nullopt, extenders_);
    Explanation e;
    CycleState state;
    auto info = framework::NewPodInfo(stowage::testing::BuildPod().Name("p").UID("p").Obj());
    algorithm.Explain(*fw_, state, *info, {}, e);
    return e;
  }

  std::unique_ptr<TableFilter> filter_ = std::make_unique<TableFilter>();
  std::unique_ptr<HalvingScore> halving_ = std::make_unique<HalvingScore>();
  std::unique_ptr<FlatScore> flat_ = std::make_unique<FlatScore>();
  std::unique_ptr<Narrow> narrow_ = std::make_unique<Narrow>();
  std::unique_ptr<NominateN1> post_filter_ = std::make_unique<NominateN1>();
  NominateN1* nominator_ = post_filter_.get();
  bool post_filter_in_profile_ = false;
  std::vector<framework::Extender*> extenders_;
  TableFilter* table_ = filter_.get();
  Narrow* narrowing_ = narrow_.get();
  framework::Registry registry_;
  stowage::testing::FakeHandle handle_;
  stowage::testing::FakeNodeInfoLister lister_;
  stowage::testing::SequentialParallelizer pool_;
  std::unique_ptr<framework::Framework> fw_;
};

TEST_F(ExplainTest, EveryNodeGetsItsVerdictAndTheFeasibleOnesTheirScores) {
  Build({"n1", "n2", "n3", "n4", "u5"});
  table_->reject = {{"n2", "Insufficient cpu"}, {"u5", "node(s) had untolerated taint(s)"}};
  Explanation e = Run();
  ASSERT_EQ(e.verdicts.size(), 5u);
  EXPECT_EQ(e.verdicts[1].node, "n2");
  EXPECT_EQ(e.verdicts[1].code, Code::kUnschedulable);
  EXPECT_EQ(e.verdicts[1].plugin, "Table");
  EXPECT_EQ(e.verdicts[1].message, "Insufficient cpu");
  EXPECT_EQ(e.verdicts[4].code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(e.verdicts[0].code, Code::kSuccess);
  EXPECT_THAT(e.score_plugins, ElementsAre("Halving", "Flat"));
  EXPECT_THAT(e.score_weights, ElementsAre(2, 3));
  // n4: raw 40, normalised 20, weighted 40; Flat 7 * 3 = 21; total 61.
  ASSERT_EQ(e.scored.size(), 3u);
  EXPECT_EQ(e.scored[0].node, "n4");
  EXPECT_THAT(e.scored[0].raw, ElementsAre(40, 7));
  EXPECT_THAT(e.scored[0].normalized, ElementsAre(20, 7));
  EXPECT_EQ(e.scored[0].total, 61);
  EXPECT_EQ(e.scored[2].node, "n1");
  EXPECT_EQ(e.scored[2].total, 5 * 2 + 21);
  EXPECT_THAT(e.best, ElementsAre("n4"));
  EXPECT_TRUE(e.fit_error.empty());
}

TEST_F(ExplainTest, EqualTotalsShareARank) {
  // n01 and n1 both score raw 10 with Halving; n3 and n2 score more.
  Build({"n1", "n01", "n2", "n3"});
  Explanation e = Run();
  ASSERT_EQ(e.scored.size(), 4u);
  std::vector<std::pair<std::string, int>> ranks;
  for (const auto& s : e.scored) ranks.emplace_back(s.node, s.rank);
  EXPECT_THAT(
      ranks,
      ElementsAre(std::pair<std::string, int>{"n3", 1}, std::pair<std::string, int>{"n2", 2},
                  std::pair<std::string, int>{"n01", 3}, std::pair<std::string, int>{"n1", 3}));
  EXPECT_THAT(e.best, ElementsAre("n3"));
  EXPECT_THAT(RenderExplanationText(e), HasSubstr("Pick: n3\n"));
}

TEST_F(ExplainTest, TiesWithOnlyAFlatScore) {
  Build({"n1", "n2", "n3"}, /*score=*/false);
  Explanation e = Run();
  // No Score plugin: every feasible node scores 1, as in a cycle, so all three tie.
  ASSERT_EQ(e.scored.size(), 3u);
  for (const auto& s : e.scored) EXPECT_EQ(s.rank, 1);
  EXPECT_THAT(e.best, ElementsAre("n1", "n2", "n3"));
  EXPECT_THAT(RenderExplanationText(e), HasSubstr("Pick: one of 3 tied nodes, n1, n2, n3 (the"));
}

TEST_F(ExplainTest, EveryNodeIsJudgedEvenPastTheSampleACycleWouldScore) {
  std::vector<std::string> nodes;
  for (int i = 1; i <= 300; ++i) nodes.push_back("n" + std::to_string(i));
  Build(nodes);
  Explanation e = Run();
  EXPECT_EQ(e.verdicts.size(), 300u);
  EXPECT_EQ(e.scored.size(), 300u);
  EXPECT_EQ(e.nodes_to_score, 144u);  // 48% of 300, as a cycle would find (50 - 300/125)
  EXPECT_THAT(RenderExplanationText(e), HasSubstr("percentageOfNodesToScore"));
}

TEST_F(ExplainTest, NoFeasibleNodeGivesTheSchedulersMessage) {
  Build({"n1", "n2", "u3"});
  table_->reject = {{"n1", "Insufficient cpu"},
                    {"n2", "Insufficient cpu"},
                    {"u3", "node(s) didn't match Pod's node affinity/selector"}};
  Explanation e = Run();
  EXPECT_TRUE(e.scored.empty());
  EXPECT_EQ(e.fit_error,
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
            "2 Insufficient cpu.");
  const std::string text = RenderExplanationText(e);
  // One line per distinct verdict, the larger group first.
  EXPECT_THAT(text, HasSubstr("Filter: 0 of 3 nodes feasible"));
  EXPECT_LT(text.find("Insufficient cpu"), text.find("node affinity"));
  EXPECT_THAT(text, HasSubstr("n1, n2"));
  EXPECT_THAT(text, HasSubstr("Unschedulable: 0/3 nodes are available"));
}

// A filter extender's rejections are verdicts of their own, and a prioritizing extender's
// scaled score is part of each total, shown beside the plugins' scores.
TEST_F(ExplainTest, ExtendersRejectNodesAndAddTheirScores) {
  Build({"n1", "n2", "n3", "u4"});
  stowage::testing::FakeExtender ext;
  ext.reject = {{"n3", "no gpu here"}};
  ext.reject_unresolvable = {{"u4", "wrong rack"}};
  ext.scores = {{"n1", 10}, {"n2", 0}};
  ext.weight_value = 2;
  extenders_ = {&ext};
  Explanation e = Run();
  std::map<std::string, NodeVerdict> by_node;
  for (const auto& v : e.verdicts) by_node[v.node] = v;
  EXPECT_EQ(by_node["n3"].code, Code::kUnschedulable);
  EXPECT_EQ(by_node["n3"].message, "no gpu here");
  EXPECT_EQ(by_node["u4"].code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(by_node["u4"].message, "wrong rack");
  ASSERT_EQ(e.scored.size(), 2u);
  // n1: Halving 10/2*2 = 10, Flat 7*3 = 21, the extender 10*2*(100/10) = 200.
  EXPECT_EQ(e.scored[0].node, "n1");
  EXPECT_EQ(e.scored[0].extenders, 200);
  EXPECT_EQ(e.scored[0].total, 231);
  EXPECT_EQ(e.scored[1].node, "n2");
  EXPECT_EQ(e.scored[1].extenders, 0);
  EXPECT_EQ(e.scored[1].total, 41);
  EXPECT_THAT(e.best, ElementsAre("n1"));
  EXPECT_THAT(RenderExplanationJson(e), HasSubstr("\"extenders\": 200"));
  // With every node rejected, the message counts the extender's reasons as a cycle's would.
  ext.reject = {{"n1", "no gpu here"}, {"n2", "no gpu here"}, {"n3", "no gpu here"}};
  Explanation none = Run();
  EXPECT_TRUE(none.scored.empty());
  EXPECT_EQ(none.fit_error, "0/4 nodes are available: 1 wrong rack, 3 no gpu here.");
}

// The dry run's candidates (filled by DefaultPreemption; its own test checks which): the table
// names the node it would nominate and its victims, lists every candidate with its PDB
// violations, and the JSON holds them all.
TEST(ExplainRenderTest, PreemptionCandidatesAndTheChosenNode) {
  Explanation e;
  e.pod = "default/p";
  e.fit_error = "0/2 nodes are available: 2 Insufficient cpu.";
  e.preemption_ran = true;
  e.preemption_node = "n2";
  e.preemption_candidates = {{"n1", {"default/a"}, 1}, {"n2", {"default/b", "default/c"}, 0}};
  const std::string text = RenderExplanationText(e);
  EXPECT_THAT(text, HasSubstr("Preemption (dry run): would nominate n2 and evict default/b"));
  EXPECT_THAT(text, HasSubstr("CANDIDATE"));
  EXPECT_LT(text.find("n1"), text.find("default/a"));
  const std::string json = RenderExplanationJson(e);
  EXPECT_THAT(json, HasSubstr("\"node\": \"n2\""));
  EXPECT_THAT(json, HasSubstr("\"pdbViolations\": 1"));
  EXPECT_THAT(json, HasSubstr("\"default/c\""));
  // No candidate at all: said in one line.
  e.preemption_node.clear();
  e.preemption_candidates.clear();
  EXPECT_THAT(RenderExplanationText(e),
              HasSubstr("Preemption (dry run): no node where evicting lower-priority pods would "
                        "make room"));
}

TEST_F(ExplainTest, APostFilterWithoutADryRunIsNotRunAndSaysSo) {
  post_filter_in_profile_ = true;
  Build({"n1"});
  table_->reject = {{"n1", "Insufficient cpu"}};
  Explanation e = Run();
  EXPECT_EQ(nominator_->calls, 0);
  EXPECT_FALSE(e.preemption_ran);
  EXPECT_THAT(e.preemption_skipped, HasSubstr("NominateN1"));
  EXPECT_EQ(e.fit_error, "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_THAT(RenderExplanationText(e), HasSubstr("Preemption: PostFilter plugins NominateN1"));
  EXPECT_THAT(RenderExplanationJson(e), HasSubstr("\"skipped\""));
}

TEST_F(ExplainTest, APreFilterRejectionAppliesToEveryNode) {
  Build({"n1", "n2"});
  narrowing_->reject = "pod has unbound immediate PersistentVolumeClaims";
  Explanation e = Run();
  EXPECT_EQ(e.pre_filter_code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(e.pre_filter_plugin, "Narrow");
  ASSERT_EQ(e.verdicts.size(), 2u);
  EXPECT_EQ(e.verdicts[1].message, "pod has unbound immediate PersistentVolumeClaims");
  EXPECT_EQ(e.fit_error,
            "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.");
}

TEST_F(ExplainTest, NodesLeftOutByAPreFilterResultSayWhichPluginLeftThemOut) {
  Build({"n1", "n2", "n3"});
  narrowing_->keep = std::set<std::string>{"n2", "n3"};
  Explanation e = Run();
  EXPECT_TRUE(e.pre_filter_narrowed);
  EXPECT_THAT(e.pre_filter_nodes, ElementsAre("n2", "n3"));
  EXPECT_THAT(e.narrowing_plugins, ElementsAre("Narrow"));
  EXPECT_EQ(e.verdicts[0].code, Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(e.verdicts[0].message,
            framework::PreFilterExcludedMessage(std::set<std::string>{"Narrow"}));
  EXPECT_EQ(e.scored.size(), 2u);
}

TEST_F(ExplainTest, ASingleFeasibleNodeIsTakenUnscored) {
  Build({"n1", "n2"});
  table_->reject = {{"n1", "Insufficient memory"}};
  Explanation e = Run();
  ASSERT_EQ(e.scored.size(), 1u);
  EXPECT_TRUE(e.scored[0].normalized.empty());
  EXPECT_THAT(e.best, ElementsAre("n2"));
  EXPECT_THAT(RenderExplanationText(e), HasSubstr("not scored, n2 is the only feasible node"));
}

TEST_F(ExplainTest, JsonHoldsEveryNodeAndEachPluginsThreeScores) {
  Build({"n1", "n2", "n3"});
  table_->reject = {{"n3", "Insufficient cpu"}};
  Explanation e = Run();
  e.pod = "default/p";
  e.profile = "default-scheduler";
  const std::string j = RenderExplanationJson(e);
  EXPECT_THAT(j, HasSubstr("\"pod\": \"default/p\""));
  EXPECT_THAT(j, HasSubstr("\"node\": \"n3\",\n      \"code\": \"Unschedulable\""));
  EXPECT_THAT(j, HasSubstr("\"plugin\": \"Halving\",\n          \"raw\": 20,\n          "
                           "\"normalized\": 10,\n          \"weighted\": 20"));
  EXPECT_THAT(j, HasSubstr("\"best\": [\n    \"n2\"\n  ]"));
}

TEST_F(ExplainTest, HtmlIsOnePageWithEveryFeasibleNodeAndEscapedMessages) {
  Build({"n1", "n2", "n3"});
  table_->reject = {{"n3", "<script>alert(1)</script> & more"}};
  Explanation e = Run();
  e.pod = "default/p";
  const std::string html = RenderExplanationHtml(e);
  EXPECT_THAT(html, ::testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<table class=\"sortable\" id=\"scores\">"));
  EXPECT_THAT(html, HasSubstr("<td>n1</td>"));
  EXPECT_THAT(html, HasSubstr("<td>n2</td>"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  // Nothing is fetched: no external script, style or image.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
}

}  // namespace
}  // namespace stowage::scheduler::explain_test
