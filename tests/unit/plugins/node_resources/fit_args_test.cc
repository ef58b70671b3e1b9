// NodeResourcesFitArgs defaulting and validation as NewFit applies them (upstream
// SetDefaults_NodeResourcesFitArgs and ValidateNodeResourcesFitArgs).
#include <any>
#include <string>

#include "pkg/plugins/node_resources/fit.h"
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil {
namespace {

struct ArgsCase {
  std::string name;
  config::NodeResourcesFitArgs args;
  std::string want_error;  // substring; empty: valid
};
void PrintTo(const ArgsCase& c, std::ostream* os) { *os << c.name; }

class FitArgsTest : public ::testing::TestWithParam<ArgsCase> {};

TEST_P(FitArgsTest, Validation) {
  const ArgsCase& tc = GetParam();
  StatusOr<FitOptions> got = FitOptionsFromArgs(std::any(tc.args));
  if (tc.want_error.empty()) {
    EXPECT_TRUE(got.ok()) << got.status().message();
  } else {
    ASSERT_FALSE(got.ok());
    EXPECT_NE(std::string(got.status().message()).find(tc.want_error), std::string::npos)
        << got.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, FitArgsTest,
    ::testing::Values(
        ArgsCase{"negative weight", Args(kLeast, {{"memory", -1}, {"cpu", 1}}),
                 "scoringStrategy.resources[0].weight"},
        ArgsCase{"zero weight defaults to 1", Args(kLeast, {{"memory", 1}, {"cpu", 0}}), ""},
        ArgsCase{"weight above MaxNodeScore", Args(kMost, {{"memory", 1}, {"cpu", 101}}),
                 "scoringStrategy.resources[1].weight"},
        ArgsCase{"unknown strategy", Args("Nope", CpuMem()), "scoringStrategy.type"},
        ArgsCase{"ratio without shape", Args(kRatio, CpuMem()),
                 "requestedToCapacityRatio.shape: Required value"},
        ArgsCase{"shape not increasing", Args(kRatio, CpuMem(), {{50, 1}, {50, 2}}),
                 "values must be sorted in increasing order"},
        ArgsCase{"shape score out of range", Args(kRatio, CpuMem(), {{0, 11}}),
                 "shape[0].score"},
        ArgsCase{"shape utilization out of range", Args(kRatio, CpuMem(), {{101, 1}}),
                 "shape[0].utilization"},
        ArgsCase{"ignored resource group with slash",
                 config::NodeResourcesFitArgs{{}, {"example.com/x"}, std::nullopt},
                 "resource group name can't contain '/'"},
        ArgsCase{"ignored resource not a qualified name",
                 config::NodeResourcesFitArgs{{"-bad-"}, {}, std::nullopt}, "ignoredResources[0]"},
        ArgsCase{"valid ignores", config::NodeResourcesFitArgs{{"example.com/aaa"},
                                                              {"example.com"}, std::nullopt},
                 ""}),
    [](const ::testing::TestParamInfo<ArgsCase>& info) {
      return "Case" + std::to_string(info.index);
    });

TEST(FitArgs, RatioShapeForbiddenForOtherTypes) {
  config::NodeResourcesFitArgs args = Args(kLeast, CpuMem());
  args.scoring_strategy->requested_to_capacity_ratio =
      config::RequestedToCapacityRatioParam{{{0, 0}, {100, 10}}};
  EXPECT_FALSE(FitOptionsFromArgs(std::any(args)).ok());
}

TEST(FitArgs, WrongArgsType) {
  stowage::testing::FakeHandle handle;
  EXPECT_FALSE(NewFit(std::any(42), handle).ok());
}

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil
