// NodeResourcesFit scoring: the table runner shared with least_allocated_test.cc,
// most_allocated_test.cc and requested_to_capacity_ratio_test.cc, upstream fit_test.go
// TestFitScore, and the scorer helpers (broken-linear shape, rounding).

#include "pkg/plugins/node_resources/fit.h"
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil::fit_score_test {
namespace {

TEST_P(FitScoreTest, WithAndWithoutPreScore) {
  const ScoreCase& tc = GetParam();
  stowage::testing::FakeHandle handle;
  auto plugin = NewFit(tc.args, handle, {});
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  for (bool pre_score : {true, false}) {
    ScoreRun run = RunScore(**plugin, tc.pod, tc.nodes, tc.existing, pre_score);
    ASSERT_TRUE(run.pre_score.IsSuccess());
    EXPECT_EQ(run.scores, tc.want) << (pre_score ? "with" : "without") << " PreScore";
    for (const auto& s : run.statuses) EXPECT_TRUE(s.IsSuccess()) << s.Message();
  }
}

// fit_test.go TestFitScore.
INSTANTIATE_TEST_SUITE_P(
    TestFitScore, FitScoreTest,
    ::testing::Values(
        ScoreCase{"RequestedToCapacityRatio case1",
                  Args(kRatio, CpuMem(), kLeastShape),
                  BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "5000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "2000", "4000"), Existing("node2", "1000", "2000")},
                  {10, 32}},
        ScoreCase{"RequestedToCapacityRatio case2",
                  Args(kRatio, CpuMem(), kMostShape),
                  BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "5000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "2000", "4000"), Existing("node2", "1000", "2000")},
                  {95, 68}},
        ScoreCase{"MostAllocated",
                  Args(kMost, CpuMem()),
                  BuildPod().Name("p").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "2000", "4000"), Existing("node2", "1000", "2000")},
                  {67, 36}},
        ScoreCase{"LeastAllocated",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "2000", "4000"), Existing("node2", "1000", "2000")},
                  {32, 63}},
        ScoreCase{"MostAllocated with sidecar container",
                  Args(kMost, CpuMem()),
                  BuildPod().Name("p").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                  {BuildPod()
                       .Name("a")
                       .Node("node1")
                       .Req({{"cpu", "1000"}, {"memory", "2000"}})
                       .SidecarReq({{"cpu", "1000"}, {"memory", "2000"}})
                       .Obj(),
                   Existing("node2", "1000", "2000")},
                  {67, 45}},
        ScoreCase{"LeastAllocated with sidecar container",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                  {BuildPod()
                       .Name("a")
                       .Node("node1")
                       .Req({{"cpu", "1000"}, {"memory", "2000"}})
                       .SidecarReq({{"cpu", "1000"}, {"memory", "2000"}})
                       .Obj(),
                   Existing("node2", "1000", "2000")},
                  {32, 55}},
        // Args without a scoring strategy are LeastAllocated on cpu and memory.
        ScoreCase{"default args",
                  config::NodeResourcesFitArgs{},
                  BuildPod().Name("p").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "2000", "4000"), Existing("node2", "1000", "2000")},
                  {32, 63}}),
    CaseName);

TEST(FitScore, ResourcesNotSetIsAnError) {
  // "Resources not set, pods scheduled with error": only reachable with options built in code,
  // since the factory defaults empty resources to cpu and memory.
  FitOptions options;
  options.resources.clear();
  Fit fit(options);
  const std::vector<api::NodePtr> nodes = {Node("node1", "4000", "10000"),
                                           Node("node2", "6000", "10000")};
  ScoreRun run = RunScore(fit, Pod2("1000", "2000", "2000", "3000"), nodes, {});
  ASSERT_EQ(run.statuses.size(), 2u);
  for (const auto& s : run.statuses) {
    EXPECT_EQ(s.code(), framework::Code::kError);
    EXPECT_EQ(s.Message(), "resources not found");
  }
  EXPECT_EQ(run.scores, (std::vector<int64_t>{0, 0}));
}

TEST(FitScore, EmptyArgsAreUpstreamDefaults) {
  stowage::testing::FakeHandle handle;
  auto plugin = NewFit({}, handle, {});
  ASSERT_TRUE(plugin.ok());
  const auto& fit = dynamic_cast<const Fit&>(**plugin);
  EXPECT_EQ(fit.scorer().resources(), DefaultResources());
  EXPECT_EQ(fit.Name(), "NodeResourcesFit");
}

TEST(FitScore, BrokenLinearFunction) {
  struct Assertion {
    int64_t p;
    int64_t want;
  };
  const std::vector<std::pair<std::vector<ShapePoint>, std::vector<Assertion>>> cases = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (const auto& [shape, assertions] : cases) {
    auto f = BuildBrokenLinearFunction(shape);
    for (const auto& a : assertions) EXPECT_EQ(f(a.p), a.want) << "p=" << a.p;
  }
}

TEST(FitScore, RequestedToCapacityRatioRoundsHalfAwayFromZero) {
  // Two resources scoring 50 (weight 1) and 25 (weight 2): (50 + 50) / 3 = 33.3 → 33; with
  // weights 1 and 1: 75 / 2 = 37.5 → 38.
  ScorerFn even = RequestedToCapacityRatioScorer({{"a/x", 1}, {"a/y", 1}}, {{0, 0}, {100, 10}});
  std::vector<int64_t> requested = {50, 25}, allocated = {0, 0}, allocatable = {100, 100};
  EXPECT_EQ(even(requested, allocated, allocatable), 38);
  ScorerFn weighted = RequestedToCapacityRatioScorer({{"a/x", 1}, {"a/y", 2}}, {{0, 0}, {100, 10}});
  EXPECT_EQ(weighted(requested, allocated, allocatable), 33);
  // A resource scoring 0 counts in neither the sum nor the weights.
  std::vector<int64_t> one_zero = {0, 50};
  EXPECT_EQ(even(one_zero, allocated, allocatable), 50);
}

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil::fit_score_test
