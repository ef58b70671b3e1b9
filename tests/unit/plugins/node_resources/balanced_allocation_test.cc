// NodeResourcesBalancedAllocation with the 1.36 formula, mirroring upstream v1.36.3
// balanced_allocation_test.go (exact scores; the DRA-backed cases are not modelled).
#include "pkg/plugins/node_resources/balanced_allocation.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "stowage/plugin_config/args.h"
#include "tests/unit/plugins/node_resources/test_util.h"

namespace stowage::plugins::node_resources::balanced_allocation_test {
namespace {

using stowage::testing::BuildPod;
using testutil::MakeNode;
using testutil::RunScore;

const std::string kGpu = "nvidia.com/gpu";

api::PodPtr CpuMem2(const char* cpu1, const char* mem1, const char* cpu2, const char* mem2,
                    const char* node = "") {
  return BuildPod()
      .Name(std::string("p") + node)
      .Node(node)
      .Req({{"cpu", cpu1}, {"memory", mem1}})
      .Req({{"cpu", cpu2}, {"memory", mem2}})
      .Obj();
}
api::PodPtr CpuOnly2(const char* cpu1, const char* cpu2, const char* node = "") {
  return BuildPod()
      .Name(std::string("c") + node)
      .Node(node)
      .Req({{"cpu", cpu1}})
      .Req({{"cpu", cpu2}})
      .Obj();
}

std::vector<config::ResourceSpec> CpuMemGpu() { return {{"cpu", 1}, {"memory", 1}, {kGpu, 1}}; }

struct BalancedCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  std::vector<int64_t> want;
  std::vector<config::ResourceSpec> resources = {};  // empty: cpu and memory
};
void PrintTo(const BalancedCase& c, std::ostream* os) { *os << c.name; }

class BalancedAllocationTest : public ::testing::TestWithParam<BalancedCase> {};

TEST_P(BalancedAllocationTest, Score) {
  const BalancedCase& tc = GetParam();
  stowage::testing::FakeHandle handle;
  auto plugin =
      NewBalancedAllocation(config::NodeResourcesBalancedAllocationArgs{tc.resources}, handle, {});
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  for (bool pre_score : {true, false}) {
    testutil::ScoreRun run = RunScore(**plugin, tc.pod, tc.nodes, tc.existing, pre_score);
    ASSERT_TRUE(run.pre_score.IsSuccess()) << run.pre_score.Message();
    EXPECT_EQ(run.scores, tc.want) << (pre_score ? "with" : "without") << " PreScore";
    for (const auto& s : run.statuses) EXPECT_TRUE(s.IsSuccess());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, BalancedAllocationTest,
    ::testing::Values(
        // CPU 0 → 75%, memory 0 → 50%: 100 → 87, score 68; node2 100 → 100, score 75.
        BalancedCase{"nothing scheduled, resources requested, differently sized nodes",
                     CpuMem2("1000m", "2000", "2000m", "3000"),
                     {MakeNode("node1", 4000, 10000), MakeNode("node2", 6000, 10000)},
                     {},
                     {68, 75}},
        // node1 85 → 82 (73); node2 97 → 95 (74).
        BalancedCase{"resources requested, pods scheduled with resources",
                     CpuMem2("1000m", "2000", "2000m", "3000"),
                     {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 20000)},
                     {CpuOnly2("1000m", "2000m", "node1"),
                      CpuMem2("1000m", "2000", "2000m", "3000", "node2")},
                     {73, 74}},
        // node2 90 → 80 (70).
        BalancedCase{"resources requested, pods scheduled with resources, differently sized",
                     CpuMem2("1000m", "2000", "2000m", "3000"),
                     {MakeNode("node1", 10000, 20000), MakeNode("node2", 10000, 50000)},
                     {CpuOnly2("1000m", "2000m", "node1"),
                      CpuMem2("1000m", "2000", "2000m", "3000", "node2")},
                     {73, 70}},
        // node1 50 → 100 (100); node2 100 → 50 (50).
        BalancedCase{"nodes to reach min/max score",
                     BuildPod().Name("p").Req({{"memory", "2000"}}).Req({{"memory", "3000"}}).Obj(),
                     {MakeNode("node1", 3000, 5000), MakeNode("node2", 3000, 5000)},
                     {CpuOnly2("1000m", "2000m", "node1")},
                     {100, 50}},
        // node1 75 → 50 (62); node2 100 → 75 (62).
        BalancedCase{"requested resources at node capacity",
                     CpuOnly2("1000m", "2000m"),
                     {MakeNode("node1", 6000, 10000), MakeNode("node2", 6000, 10000)},
                     {CpuOnly2("1000m", "2000m", "node1"),
                      CpuMem2("1000m", "2000", "2000m", "3000", "node2")},
                     {62, 62}},
        // Three resources: population standard deviation. node1 69 → 70 (75); node2 62 → 65 (76).
        BalancedCase{"scalar resource is included if the pod requests it",
                     BuildPod().Name("p").Req({{"cpu", "0"}, {"memory", "0"}, {kGpu, "1"}}).Obj(),
                     {MakeNode("node1", 3500, 40000, {{kGpu, 8}}),
                      MakeNode("node2", 3500, 40000, {{kGpu, 8}})},
                     {BuildPod()
                          .Name("a")
                          .Node("node1")
                          .Req({{"cpu", "1000m"}, {"memory", "2000"}})
                          .Req({{"cpu", "2000m"}, {"memory", "3000"}, {kGpu, "3"}})
                          .Obj(),
                      CpuMem2("1000m", "2000", "2000m", "3000", "node2")},
                     {75, 76},
                     CpuMemGpu()},
        // 100 → 63 (56) on both: the gpu the pod does not request is left out.
        BalancedCase{"scalar resource is not included if the pod doesn't request it",
                     CpuMem2("1000m", "2000", "2000m", "3000"),
                     {MakeNode("node1", 3500, 40000, {{kGpu, 8}}), MakeNode("node2", 3500, 40000)},
                     {},
                     {56, 56},
                     CpuMemGpu()}),
    [](const ::testing::TestParamInfo<BalancedCase>& info) {
      return "Case" + std::to_string(info.index);
    });

TEST(BalancedAllocation, BestEffortPodIsSkippedAtPreScore) {
  BalancedAllocation plugin(DefaultResources());
  const std::vector<api::NodePtr> nodes = {MakeNode("node1", 4000, 10000),
                                           MakeNode("node2", 4000, 10000)};
  testutil::ScoreRun run = RunScore(plugin, BuildPod().Name("p").Obj(), nodes, {});
  EXPECT_EQ(run.pre_score.code(), framework::Code::kSkip);
  // Requests of explicit zero are best-effort too; containers without requests count as
  // nothing here (BalancedAllocation reads actual requests, not the non-zero defaults).
  run = RunScore(plugin, BuildPod().Name("p").Container("c").Req({{"cpu", "0"}}).Obj(),
                 {MakeNode("node1", 4000, 10000)}, {});
  EXPECT_EQ(run.pre_score.code(), framework::Code::kSkip);
  // Without PreScore the Score of a best-effort pod is 0.
  run = RunScore(plugin, BuildPod().Name("p").Obj(), {MakeNode("node1", 4000, 10000)}, {}, false);
  EXPECT_EQ(run.scores, std::vector<int64_t>{0});
}

TEST(BalancedAllocation, ResourceScoreFormula) {
  // Two resources: std = |f0 − f1| / 2; score = int64((1 − std) × 100), truncated.
  std::vector<int64_t> alloc = {10000, 20000};
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{6000, 5000}, alloc), 82);  // 82.5
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{3000, 0}, alloc), 85);
  // Fractions are capped at 1.
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{30000, 0}, alloc), 50);
  // One resource (or none) has no spread.
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{3000, 5}, std::vector<int64_t>{4000, 0}),
            100);
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{}, std::vector<int64_t>{}), 100);
  // Three resources: population standard deviation of (0.6, 0.25, 0.5): mean 0.45,
  // variance 0.021666…, std 0.14719… → 85.28 → 85.
  EXPECT_EQ(
      BalancedResourceScore(std::vector<int64_t>{6, 25, 5}, std::vector<int64_t>{10, 100, 10}), 85);
}

TEST(BalancedAllocation, Scorer136Formula) {
  // score = 50 + (50 + with − without) / 2 with int64 (truncating) division.
  std::vector<int64_t> alloc = {10000, 20000};
  // with 82, without 85 → 50 + 47 / 2 = 73.
  EXPECT_EQ(BalancedResourceScorer(std::vector<int64_t>{6000, 5000}, std::vector<int64_t>{3000, 0},
                                   alloc),
            73);
  // Unchanged balance → 75.
  EXPECT_EQ(BalancedResourceScorer(std::vector<int64_t>{2000, 4000},
                                   std::vector<int64_t>{1000, 2000}, alloc),
            75);
  // Balanced → most unbalanced: 50 + (50 + 50 − 100) / 2 = 50; the reverse: 100.
  EXPECT_EQ(
      BalancedResourceScorer(std::vector<int64_t>{10000, 0}, std::vector<int64_t>{0, 0}, alloc),
      50);
  EXPECT_EQ(BalancedResourceScorer(std::vector<int64_t>{10000, 20000},
                                   std::vector<int64_t>{10000, 0}, alloc),
            100);
  // with 87, without 100: 50 + 37 / 2 = 68 (upstream's node1 of the first case).
  EXPECT_EQ(BalancedResourceScorer(std::vector<int64_t>{3000, 5000}, std::vector<int64_t>{0, 0},
                                   std::vector<int64_t>{4000, 10000}),
            68);
}

// Args arrive defaulted and validated (pkg/config's tests cover both); the plugin only reads
// them, falling back to cpu and memory when built without a configuration.
TEST(BalancedAllocation, Args) {
  EXPECT_EQ(BalancedAllocationResources({}), DefaultResources());
  EXPECT_EQ(BalancedAllocationResources(
                config::NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {kGpu, 1}}}),
            (std::vector<ResourceSpec>{{"cpu", 1}, {kGpu, 1}}));
  stowage::testing::FakeHandle handle;
  auto factory =
      framework::WithArgs<config::NodeResourcesBalancedAllocationArgs>(NewBalancedAllocation);
  auto wrong = factory(config::NodeResourcesFitArgs{}, handle, {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "want args to be of type NodeResourcesBalancedAllocationArgs, got "
            "NodeResourcesFitArgs");
  auto plugin = factory({}, handle, {});
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "NodeResourcesBalancedAllocation");
}

}  // namespace
}  // namespace stowage::plugins::node_resources::balanced_allocation_test
