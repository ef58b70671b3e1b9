// RequestedToCapacityRatio scores, mirroring upstream requested_to_capacity_ratio_test.go
// (TestRequestedToCapacityRatioScoringStrategy, TestResourceBinPacking*Extended).
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil::requested_to_capacity_ratio_test {
namespace {

INSTANTIATE_TEST_SUITE_P(
    RequestedToCapacityRatio, FitScoreTest,
    ::testing::Values(
        ScoreCase{
            "nothing scheduled, nothing requested",
            Args(kRatio, CpuMem(), kLeastShape),
            BuildPod().Name("p").Obj(),
            {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
            {BuildPod().Name("a").Node("node1").Obj(), BuildPod().Name("b").Node("node1").Obj()},
            {100, 100}},
        ScoreCase{
            "nothing scheduled, resources requested, differently sized nodes",
            Args(kRatio, CpuMem(), kLeastShape),
            Pod2("1000", "2000", "2000", "3000"),
            {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
            {BuildPod().Name("a").Node("node1").Obj(), BuildPod().Name("b").Node("node1").Obj()},
            {38, 50}},
        ScoreCase{"no resources requested, pods scheduled with resources",
                  Args(kRatio, CpuMem(), kLeastShape),
                  BuildPod().Name("p").Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {Existing("node1", "3000", "5000"), Existing("node2", "3000", "5000")},
                  {38, 50}},
        // TestResourceBinPackingSingleExtended.
        ScoreCase{"single extended: nothing requested",
                  Args(kRatio, {{"intel.com/foo", 1}}, kBinPack),
                  BuildPod().Name("p").Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4)},
                  {},
                  {0, 0}},
        ScoreCase{"single extended: less resources",
                  Args(kRatio, {{"intel.com/foo", 1}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "2"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4)},
                  {BuildPod().Name("a").Obj()},
                  {2, 5}},
        ScoreCase{"single extended: existing pod running",
                  Args(kRatio, {{"intel.com/foo", 1}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "2"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4)},
                  {BuildPod().Name("a").Req({{"intel.com/foo", "2"}}).Node("node2").Obj()},
                  {2, 10}},
        ScoreCase{"single extended: more resources",
                  Args(kRatio, {{"intel.com/foo", 1}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "4"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4)},
                  {BuildPod().Name("a").Obj()},
                  {5, 10}},
        // TestResourceBinPackingMultipleExtended.
        ScoreCase{"multiple extended: nothing requested",
                  Args(kRatio, {{"intel.com/foo", 3}, {"intel.com/bar", 5}}, kBinPack),
                  BuildPod().Name("p").Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8Bar4),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4Bar8)},
                  {},
                  {0, 0}},
        ScoreCase{"multiple extended: less resources",
                  Args(kRatio, {{"intel.com/foo", 3}, {"intel.com/bar", 5}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8Bar4),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4Bar8)},
                  {BuildPod().Name("a").Obj()},
                  {4, 3}},
        ScoreCase{"multiple extended: existing pod running",
                  Args(kRatio, {{"intel.com/foo", 3}, {"intel.com/bar", 5}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8Bar4),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4Bar8)},
                  {BuildPod()
                       .Name("a")
                       .Req({{"intel.com/foo", "4"}, {"intel.com/bar", "2"}})
                       .Node("node2")
                       .Obj()},
                  {4, 7}},
        ScoreCase{"multiple extended: more resources",
                  Args(kRatio, {{"intel.com/foo", 3}, {"intel.com/bar", 5}}, kBinPack),
                  BuildPod().Name("p").Req({{"intel.com/foo", "4"}, {"intel.com/bar", "2"}}).Obj(),
                  {MakeNode("node1", 4000, kTenThousandMi, kFoo8Bar4),
                   MakeNode("node2", 4000, kTenThousandMi, kFoo4Bar8)},
                  {BuildPod().Name("a").Obj()},
                  {5, 5}}),
    CaseName);

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil::requested_to_capacity_ratio_test
