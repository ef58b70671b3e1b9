// MostAllocated scores, mirroring upstream most_allocated_test.go.
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil::most_allocated_test {
namespace {

INSTANTIATE_TEST_SUITE_P(
    MostAllocated, FitScoreTest,
    ::testing::Values(
        ScoreCase{"nothing scheduled, nothing requested",
                  Args(kMost, CpuMem()),
                  BuildPod().Name("p").Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                  {},
                  {0, 0}},
        ScoreCase{"nothing scheduled, resources requested, differently sized nodes",
                  Args(kMost, CpuMem()),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {},
                  {62, 50}},
        ScoreCase{"no resources requested, pods scheduled with resources",
                  Args(kMost, CpuMem()),
                  BuildPod().Name("p").Obj(),
                  {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
                  {Existing("node1", "3000", "0"), Existing("node1", "3000", "0"),
                   Existing("node2", "3000", "0"), Existing("node2", "3000", "5000")},
                  {30, 42}},
        ScoreCase{"resources requested, pods scheduled with resources",
                  Args(kMost, CpuMem()),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
                  {Existing("node1", "3000", "0"), Existing("node2", "3000", "5000")},
                  {42, 55}},
        ScoreCase{"resources requested equal node capacity",
                  Args(kMost, CpuMem()),
                  Pod2("2000", "4000", "3000", "5000"),
                  {Node("node1", "5000", "10000"), Node("node2", "10000", "9000")},
                  {},
                  {95, 75}},
        ScoreCase{"different weight on CPU and memory",
                  Args(kMost, {{"memory", 2}, {"cpu", 1}}),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {},
                  {58, 50}},
        ScoreCase{"no resources requested, pods scheduled, nonzero request for resource",
                  Args(kMost, CpuMem()),
                  BuildPod().Name("p").Container("container").Obj(),
                  {Node("node1", "250m", "1000Mi"), Node("node2", "250m", "1000Mi")},
                  {BuildPod().Name("a").Node("node1").Container("container").Obj(),
                   BuildPod().Name("b").Node("node1").Container("container").Obj()},
                  {80, 30}},
        ScoreCase{
            "bypass extended resource if the pod does not request",
            Args(kMost, CpuMemXyz()),
            Pod2("1000", "2000", "2000", "3000"),
            {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", std::pair{kXyz, "4"})},
            {},
            {50, 50}},
        ScoreCase{
            "honor extended resource if the pod requests",
            Args(kMost, CpuMemXyz()),
            BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "5000"}, {kXyz, "2"}}).Obj(),
            {Node("node1", "6000", "10000", std::pair{kXyz, "4"}),
             Node("node2", "6000", "10000", std::pair{kXyz, "10"})},
            {},
            {50, 40}},
        ScoreCase{
            "if the node doesn't have a resource",
            Args(kMost, {{kXyz, 2}, {"cpu", 1}, {"memory", 1}}),
            BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "4000"}}).Obj(),
            {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", std::pair{kXyz, "4"})},
            {},
            {45, 45}}),
    CaseName);

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil::most_allocated_test
