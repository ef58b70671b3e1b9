// NodeResourcesFitArgs as NewFit reads them. Defaulting and validation happen once, in
// pkg/config (tests/unit/config/validation_args_test.cc), so these cases check only the
// translation into FitOptions and the factory's handling of args of the wrong kind.
#include <string>

#include "pkg/plugins/node_resources/fit.h"
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil::fit_args_test {
namespace {

TEST(FitArgs, StrategyAndResourcesAreTakenAsGiven) {
  FitOptions got = FitOptionsFromArgs(Args(kMost, {{"memory", 3}, {"cpu", 1}}));
  EXPECT_EQ(got.strategy, ScoringStrategyType::kMostAllocated);
  EXPECT_EQ(got.resources, (std::vector<ResourceSpec>{{"memory", 3}, {"cpu", 1}}));
  EXPECT_TRUE(got.shape.empty());
}

TEST(FitArgs, RatioShapeIsCopied) {
  FitOptions got = FitOptionsFromArgs(Args(kRatio, CpuMem(), {{0, 0}, {100, 10}}));
  EXPECT_EQ(got.strategy, ScoringStrategyType::kRequestedToCapacityRatio);
  ASSERT_EQ(got.shape.size(), 2u);
  EXPECT_EQ(got.shape[1].utilization, 100);
  EXPECT_EQ(got.shape[1].score, 10);
}

TEST(FitArgs, IgnoredResourcesAreKept) {
  config::NodeResourcesFitArgs args = Args(kLeast, CpuMem());
  args.ignored_resources = {"example.com/aaa"};
  args.ignored_resource_groups = {"example.com"};
  FitOptions got = FitOptionsFromArgs(args);
  EXPECT_EQ(got.ignored_resources, args.ignored_resources);
  EXPECT_EQ(got.ignored_resource_groups, args.ignored_resource_groups);
  EXPECT_EQ(got.strategy, ScoringStrategyType::kLeastAllocated);
}

TEST(FitArgs, WrongArgsKindIsUpstreamsError) {
  stowage::testing::FakeHandle handle;
  auto factory = framework::WithArgs<config::NodeResourcesFitArgs>(NewFit);
  auto got = factory(config::NodeAffinityArgs{}, handle, {});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "want args to be of type NodeResourcesFitArgs, got NodeAffinityArgs");
  EXPECT_TRUE(factory(Args(kLeast, CpuMem()), handle, {}).ok());
}

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil::fit_args_test
