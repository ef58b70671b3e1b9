// The search half of a scheduling cycle (Algorithm): how many feasible nodes are enough, where
// each cycle starts looking, how ties among the best scores are broken, what a PreFilter result
// and a nominated node change, and what the FitError reports per node. The cases follow
// upstream's schedule_one_test.go (TestNumFeasibleNodesToFind, TestSchedulerSchedulePod,
// TestFindFitPredicateCallCounts, TestSelectHost).
#include "pkg/scheduler/algorithm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pkg/common/random.h"
#include "pkg/framework/runtime/runtime.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_extender.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler::algorithm_test {
namespace {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// Filter: asks decide about each node (all pass when unset) and records the nodes it saw.
struct RecordingFilter : framework::FilterPlugin {
  std::function<Status(const std::string&)> decide;
  std::vector<std::string> seen;
  std::string_view Name() const override { return "Recording"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) override {
    seen.push_back(node.name());
    return decide ? decide(node.name()) : Status();
  }
};

// Score: the score set for each node, 0 for the others.
struct FixedScore : framework::ScorePlugin {
  std::map<std::string, int64_t> scores;
  std::string_view Name() const override { return "Fixed"; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo& node, int64_t& score) override {
    auto it = scores.find(node.name());
    score = it == scores.end() ? 0 : it->second;
    return {};
  }
};

// PreFilter narrowing the search to the nodes given.
struct KeepOnly : framework::PreFilterPlugin {
  std::set<std::string> keep;
  std::string_view Name() const override { return "KeepOnly"; }
  Status PreFilter(CycleState&, const PodInfo&, const std::vector<const NodeInfo*>&,
                   framework::PreFilterResult& r) override {
    r.node_names = keep;
    return {};
  }
};

std::vector<std::string> NodeNames(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("n" + std::to_string(i));
  return out;
}

class AlgorithmTest : public ::testing::Test {
 protected:
  // Builds a profile with the recording Filter, and the fixed Score and KeepOnly PreFilter when
  // asked, over nodes with these names.
  void Build(const std::vector<std::string>& nodes, bool score = false, bool keep_only = false,
             std::optional<int32_t> profile_percentage = std::nullopt) {
    ASSERT_TRUE(stowage::testing::RegisterSortAndBind(registry_).ok());
    // Each factory hands its plugin over once; a plugin the profile does not use stays owned
    // by the fixture.
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Recording", [this] {
                  return owned_filter_.release();
                }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Fixed", [this] {
                  return owned_score_.release();
                }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "KeepOnly", [this] {
                  return owned_keep_.release();
                }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"Recording"}};
    if (score) spec.at(framework::ExtensionPoint::kScore) = {{"Fixed"}};
    if (keep_only) spec.at(framework::ExtensionPoint::kPreFilter) = {{"KeepOnly"}};
    spec.percentage_of_nodes_to_score = profile_percentage;
    auto fw = framework::Framework::New(registry_, spec, handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    std::vector<api::NodePtr> objs;
    for (const auto& n : nodes) objs.push_back(stowage::testing::BuildNode().Name(n).Obj());
    lister_.Set(stowage::testing::MakeNodeInfos(objs));
  }

  // One search for pod; the status, with result and fit filled.
  Status Schedule(Algorithm& algorithm, ScheduleResult& result, FitError& fit,
                  api::PodPtr pod = stowage::testing::BuildPod().Name("p").UID("p").Obj()) {
    CycleState state;
    framework::PodInfoPtr info = framework::NewPodInfo(std::move(pod));
    filter_->seen.clear();
    return algorithm.SchedulePod(*fw_, state, *info, {}, result, fit);
  }
  std::string ScheduleHost(Algorithm& algorithm) {
    ScheduleResult result;
    FitError fit;
    Status s = Schedule(algorithm, result, fit);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    return result.host;
  }

  // The framework owns the plugins it uses; the test keeps pointers to configure and inspect
  // them.
  std::unique_ptr<RecordingFilter> owned_filter_ = std::make_unique<RecordingFilter>();
  std::unique_ptr<FixedScore> owned_score_ = std::make_unique<FixedScore>();
  std::unique_ptr<KeepOnly> owned_keep_ = std::make_unique<KeepOnly>();
  RecordingFilter* filter_ = owned_filter_.get();
  FixedScore* score_ = owned_score_.get();
  KeepOnly* keep_ = owned_keep_.get();
  framework::Registry registry_;
  stowage::testing::FakeHandle handle_;
  stowage::testing::FakeNodeInfoLister lister_;
  stowage::testing::SequentialParallelizer pool_;
  std::unique_ptr<framework::Framework> fw_;
};

TEST_F(AlgorithmTest, NumFeasibleNodesToFindFollowsTheAdaptivePercentage) {
  Build({}, /*score=*/true);
  struct Case {
    size_t nodes;
    std::optional<int32_t> global;
    size_t want;
  };
  const std::vector<Case> cases = {
      {10, std::nullopt, 10},     // fewer than 100 nodes: all of them
      {10, 40, 10},               // whatever the percentage
      {100, std::nullopt, 100},   // 50% of 100 is raised to the minimum of 100
      {1000, std::nullopt, 420},  // 50 - 1000/125 = 42%
      {1000, 40, 400},
      {5000, std::nullopt, 500},  // 50 - 40 = 10%
      {6000, std::nullopt, 300},  // 50 - 48 = 2%, raised to the 5% floor
      {10000, std::nullopt, 500},
      {6000, 20, 1200},
      {1000, 1, 100},  // 10 nodes raised to the minimum of 100
      {1000, 100, 1000},
  };
  for (const Case& c : cases) {
    Algorithm algorithm(lister_, pool_, c.global);
    EXPECT_EQ(algorithm.NumFeasibleNodesToFind(*fw_, c.nodes), c.want)
        << c.nodes << " nodes, global " << c.global.value_or(0);
  }
}

TEST_F(AlgorithmTest, TheProfilesPercentageWinsOverTheGlobalOne) {
  Build({}, /*score=*/true, /*keep_only=*/false, /*profile_percentage=*/60);
  Algorithm with_global(lister_, pool_, 40);
  EXPECT_EQ(with_global.NumFeasibleNodesToFind(*fw_, 1000), 600u);
  Algorithm without_global(lister_, pool_, std::nullopt);
  EXPECT_EQ(without_global.NumFeasibleNodesToFind(*fw_, 1000), 600u);
}

TEST_F(AlgorithmTest, TheSearchStopsAtTheFeasibleNodesItNeedsAndTheNextStartsAfterThem) {
  Build(NodeNames(200), /*score=*/true);  // 49% of 200 is raised to 100
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  ASSERT_TRUE(Schedule(algorithm, result, fit).IsSuccess());
  EXPECT_EQ(result.feasible, 100);
  EXPECT_EQ(result.evaluated, 100);
  ASSERT_EQ(filter_->seen.size(), 100u);
  EXPECT_EQ(filter_->seen.front(), "n0");
  EXPECT_EQ(filter_->seen.back(), "n99");

  ScheduleResult second;
  FitError fit2;
  ASSERT_TRUE(Schedule(algorithm, second, fit2).IsSuccess());
  EXPECT_EQ(filter_->seen.front(), "n100");
  EXPECT_EQ(filter_->seen.back(), "n199");
  ASSERT_TRUE(Schedule(algorithm, second, fit2).IsSuccess());
  EXPECT_EQ(filter_->seen.front(), "n0") << "the start index wraps around";
}

TEST_F(AlgorithmTest, RejectedNodesCountTowardsWhereTheNextCycleStarts) {
  Build(NodeNames(5));  // without Score plugins one feasible node is enough
  filter_->decide = [](const std::string& n) {
    return n == "n0" || n == "n1" ? Status::Unschedulable("no") : Status();
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  EXPECT_EQ(ScheduleHost(algorithm), "n2");
  EXPECT_THAT(filter_->seen, ElementsAre("n0", "n1", "n2"));
  EXPECT_EQ(ScheduleHost(algorithm), "n3");
  EXPECT_THAT(filter_->seen, ElementsAre("n3"));
  EXPECT_EQ(ScheduleHost(algorithm), "n4");
  EXPECT_EQ(ScheduleHost(algorithm), "n2") << "n0 and n1 are tried again, and rejected";
  EXPECT_THAT(filter_->seen, ElementsAre("n0", "n1", "n2"));
}

// A search that found its node counts the nodes it rejected, including those a PreFilter result
// left out, but keeps no status for them: only a failed search's FitError is read.
TEST_F(AlgorithmTest, ASearchThatFoundANodeCountsTheRejectedOnesWithoutKeepingThem) {
  Build(NodeNames(5), /*score=*/true, /*keep_only=*/true);
  keep_->keep = {"n0", "n1", "n3"};
  filter_->decide = [](const std::string& n) {
    return n == "n3" ? Status() : Status::Unschedulable("no");
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  ASSERT_TRUE(Schedule(algorithm, result, fit).IsSuccess());
  EXPECT_EQ(result.host, "n3");
  EXPECT_EQ(result.evaluated, 5) << "two rejected by Filter, two left out by PreFilter";
  EXPECT_EQ(result.feasible, 1);
  EXPECT_TRUE(fit.node_statuses.empty());

  filter_->decide = [](const std::string&) { return Status::Unschedulable("no"); };
  FitError failed;
  EXPECT_TRUE(Schedule(algorithm, result, failed).IsRejected());
  EXPECT_EQ(result.evaluated, 5);
  EXPECT_EQ(failed.node_statuses.size(), 5u) << "a failed search keeps every node's status";
}

TEST_F(AlgorithmTest, TiesAmongTheBestScoresAreBrokenAmongAllOfThemOnly) {
  Build({"a", "b", "c", "low"}, /*score=*/true);
  score_->scores = {{"a", 10}, {"b", 10}, {"c", 10}, {"low", 5}};
  Algorithm algorithm(lister_, pool_, std::nullopt);
  std::set<std::string> chosen;
  // Each tied node is picked with probability 1/3 a cycle: missing one in 1000 cycles has a
  // probability below 1e-170, so the loop ends long before its bound.
  for (int i = 0; i < 1000 && chosen.size() < 3; ++i) {
    std::string host = ScheduleHost(algorithm);
    ASSERT_NE(host, "low");
    chosen.insert(host);
  }
  EXPECT_THAT(chosen, UnorderedElementsAre("a", "b", "c"));
}

// Runs the work in reverse, as threads finishing out of order would.
class ReversedParallelizer : public framework::Parallelizer {
 public:
  void Until(size_t n, const std::function<void(size_t)>& fn,
             const std::function<bool()>& stop = {}) override {
    for (size_t i = n; i-- > 0;) {
      if (stop && stop()) return;
      fn(i);
    }
  }
  int parallelism() const override { return 2; }
};

TEST_F(AlgorithmTest, OneSeedBreaksTiesAlikeWhateverOrderTheFiltersFinishIn) {
  Build(NodeNames(8), /*score=*/true);
  filter_->decide = [](const std::string& n) {
    return n == "n3" ? Status::Unschedulable("no") : Status();
  };
  ReversedParallelizer reversed;
  SetRandomSeed(20261126);
  Algorithm in_order(lister_, pool_, std::nullopt);
  Algorithm out_of_order(lister_, reversed, std::nullopt);
  std::vector<std::string> a, b;
  for (int i = 0; i < 20; ++i) a.push_back(ScheduleHost(in_order));
  for (int i = 0; i < 20; ++i) b.push_back(ScheduleHost(out_of_order));
  EXPECT_EQ(a, b);
  EXPECT_GT(std::set<std::string>(a.begin(), a.end()).size(), 1u) << "all seven nodes tie";
}

TEST_F(AlgorithmTest, TheHighestScoreWins) {
  Build({"a", "b", "c"}, /*score=*/true);
  score_->scores = {{"a", 10}, {"b", 90}, {"c", 50}};
  Algorithm algorithm(lister_, pool_, std::nullopt);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ScheduleHost(algorithm), "b");  // from every start
}

TEST_F(AlgorithmTest, APreFilterResultRestrictsTheNodesFiltered) {
  Build(NodeNames(5), /*score=*/true, /*keep_only=*/true);
  keep_->keep = {"n1", "n3"};
  filter_->decide = [](const std::string& n) {
    return n == "n1" ? Status::Unschedulable("no") : Status();
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  ASSERT_TRUE(Schedule(algorithm, result, fit).IsSuccess());
  EXPECT_EQ(result.host, "n3");
  EXPECT_THAT(filter_->seen, UnorderedElementsAre("n1", "n3"));
}

TEST_F(AlgorithmTest, ANominatedNodeThatFitsIsTheOnlyNodeTried) {
  Build(NodeNames(5), /*score=*/true);
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  auto pod = stowage::testing::BuildPod().Name("p").UID("p").NominatedNodeName("n3").Obj();
  ASSERT_TRUE(Schedule(algorithm, result, fit, pod).IsSuccess());
  EXPECT_EQ(result.host, "n3");
  EXPECT_THAT(filter_->seen, ElementsAre("n3"));
}

TEST_F(AlgorithmTest, ANominatedNodeThatNoLongerFitsFallsBackToAllNodes) {
  Build(NodeNames(3), /*score=*/true);
  filter_->decide = [](const std::string& n) {
    return n == "n2" ? Status::Unschedulable("no") : Status();
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  auto pod = stowage::testing::BuildPod().Name("p").UID("p").NominatedNodeName("n2").Obj();
  ASSERT_TRUE(Schedule(algorithm, result, fit, pod).IsSuccess());
  EXPECT_NE(result.host, "n2");
  EXPECT_THAT(filter_->seen, ElementsAre("n2", "n0", "n1", "n2"));
}

TEST_F(AlgorithmTest, TheFitErrorHoldsEveryNodesStatusAndTheRejectingPlugins) {
  Build({"small", "tainted", "full"});
  filter_->decide = [](const std::string& n) {
    if (n == "tainted") return Status::Unresolvable("node(s) had untolerated taint");
    return Status::Unschedulable("Insufficient cpu");
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  Status s = Schedule(algorithm, result, fit);
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(fit.num_all_nodes, 3);
  EXPECT_EQ(result.feasible, 0);
  EXPECT_EQ(result.evaluated, 3);
  EXPECT_EQ(fit.unschedulable_plugins, (std::set<std::string>{"Recording"}));
  std::map<std::string, std::pair<framework::Code, std::string>> by_node;
  for (const auto& [node, st] : fit.node_statuses) {
    EXPECT_EQ(st.plugin(), "Recording");
    by_node[node] = {st.code(), st.Message()};
  }
  EXPECT_THAT(by_node, UnorderedElementsAre(
                           Pair("small", Pair(framework::Code::kUnschedulable, "Insufficient cpu")),
                           Pair("full", Pair(framework::Code::kUnschedulable, "Insufficient cpu")),
                           Pair("tainted", Pair(framework::Code::kUnschedulableAndUnresolvable,
                                                "node(s) had untolerated taint"))));
}

TEST_F(AlgorithmTest, AFilterErrorEndsTheSearchWithThatError) {
  Build(NodeNames(3));
  filter_->decide = [](const std::string& n) {
    return n == "n0" ? Status::Error("plugin broke") : Status::Unschedulable("no");
  };
  Algorithm algorithm(lister_, pool_, std::nullopt);
  ScheduleResult result;
  FitError fit;
  Status s = Schedule(algorithm, result, fit);
  EXPECT_TRUE(s.IsError());
  EXPECT_THAT(s.Message(), ::testing::HasSubstr("plugin broke"));
}

TEST_F(AlgorithmTest, AFilterExtenderRejectsNodesWithItsReasonsAndIsNamedAmongThePlugins) {
  Build({"a", "b", "c"}, /*score=*/true);
  stowage::testing::FakeExtender ext;
  ext.reject = {{"a", "no gpu"}};
  ext.reject_unresolvable = {{"b", "wrong rack"}};
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext});
  ScheduleResult result;
  FitError fit;
  ASSERT_TRUE(Schedule(algorithm, result, fit).IsSuccess());
  EXPECT_EQ(result.host, "c");
  EXPECT_EQ(fit.unschedulable_plugins.count("Extender"), 1u);
  ext.reject["c"] = "no gpu";
  FitError none;
  EXPECT_TRUE(Schedule(algorithm, result, none).IsRejected());
  EXPECT_EQ(FitErrorMessage(none.num_all_nodes, none.node_statuses, "", ""),
            "0/3 nodes are available: 1 wrong rack, 2 no gpu.");
  std::map<std::string, framework::Code> codes;
  for (const auto& [node, st] : none.node_statuses) codes[node] = st.code();
  EXPECT_EQ(codes["b"], framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(codes["a"], framework::Code::kUnschedulable);
}

TEST_F(AlgorithmTest, AFilterExtenderMakesTheSearchLookForMoreThanOneNode) {
  Build(NodeNames(5));  // no Score plugins: without extenders one feasible node is enough
  stowage::testing::FakeExtender ext;
  ext.reject = {{"n0", "no"}};
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext});
  EXPECT_NE(ScheduleHost(algorithm), "n0");
  EXPECT_EQ(filter_->seen.size(), 5u) << "every node is filtered before the extender is asked";
}

TEST_F(AlgorithmTest, AFailingExtenderFailsTheCycleUnlessIgnorable) {
  Build({"a", "b"}, /*score=*/true);
  stowage::testing::FakeExtender ext;
  ext.fail = "Post \"http://fake/filter\": connection refused";
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext});
  ScheduleResult result;
  FitError fit;
  Status s = Schedule(algorithm, result, fit);
  EXPECT_TRUE(s.IsError());
  EXPECT_EQ(s.Message(), "Post \"http://fake/filter\": connection refused");
  ext.ignorable = true;
  FitError fit2;
  EXPECT_TRUE(Schedule(algorithm, result, fit2).IsSuccess());
}

TEST_F(AlgorithmTest, AnExtenderNotInterestedInThePodIsNotAsked) {
  Build({"a", "b"}, /*score=*/true);
  stowage::testing::FakeExtender ext;
  ext.interested_in = "example.com/gpu";
  ext.reject = {{"a", "no"}, {"b", "no"}};
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext});
  ScheduleResult result;
  FitError fit;
  EXPECT_TRUE(Schedule(algorithm, result, fit).IsSuccess());
  EXPECT_EQ(ext.calls, 0);
  auto gpu = stowage::testing::BuildPod().Name("g").UID("g").Req({{"example.com/gpu", "1"}}).Obj();
  EXPECT_TRUE(Schedule(algorithm, result, fit, gpu).IsRejected());
  EXPECT_EQ(ext.calls, 1);
}

TEST_F(AlgorithmTest, ExtenderScoresAreScaledByWeightAndAddedToThePlugins) {
  Build({"a", "b"}, /*score=*/true);
  score_->scores = {{"a", 100}, {"b", 0}};
  stowage::testing::FakeExtender ext;
  ext.filter = false;
  ext.weight_value = 2;
  ext.scores = {{"b", 6}};  // 6 * 2 * 10 = 120 beats a's 100
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ScheduleHost(algorithm), "b");
  ext.scores = {{"b", 4}};  // 80 does not
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ScheduleHost(algorithm), "a");
}

TEST_F(AlgorithmTest, APrioritizeErrorIsIgnored) {
  Build({"a", "b"}, /*score=*/true);
  score_->scores = {{"a", 100}};
  stowage::testing::FakeExtender ext, broken;
  ext.filter = broken.filter = false;
  ext.scores = {{"b", 10}};
  ext.weight_value = 2;
  broken.scores = {{"a", 10}};
  broken.weight_value = 5;
  broken.fail = "down";
  Algorithm algorithm(lister_, pool_, std::nullopt, {&ext, &broken});
  EXPECT_EQ(ScheduleHost(algorithm), "b");
  EXPECT_EQ(broken.calls, 1);
}

}  // namespace
}  // namespace stowage::scheduler::algorithm_test
