// LeastAllocated scores, mirroring upstream least_allocated_test.go.
#include "tests/unit/plugins/node_resources/fit_score_cases.h"

namespace stowage::plugins::node_resources::testutil::least_allocated_test {
namespace {

INSTANTIATE_TEST_SUITE_P(
    LeastAllocated, FitScoreTest,
    ::testing::Values(
        ScoreCase{"nothing scheduled, nothing requested",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                  {},
                  {100, 100}},
        ScoreCase{"nothing scheduled, resources requested, differently sized nodes",
                  Args(kLeast, CpuMem()),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {},
                  {37, 50}},
        ScoreCase{
            "no resources requested, pods scheduled",
            Args(kLeast, CpuMem()),
            BuildPod().Name("p").Obj(),
            {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
            {BuildPod().Name("a").Node("node1").Obj(), BuildPod().Name("b").Node("node1").Obj(),
             BuildPod().Name("c").Node("node2").Obj(), BuildPod().Name("d").Node("node2").Obj()},
            {100, 100}},
        ScoreCase{"no resources requested, pods scheduled with resources",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Obj(),
                  {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
                  {Existing("node1", "3000", "0"), Existing("node1", "3000", "0"),
                   Existing("node2", "3000", "0"), Existing("node2", "3000", "5000")},
                  {70, 57}},
        ScoreCase{"resources requested, pods scheduled with resources",
                  Args(kLeast, CpuMem()),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "10000", "20000"), Node("node2", "10000", "20000")},
                  {Existing("node1", "3000", "0"), Existing("node2", "3000", "5000")},
                  {57, 45}},
        ScoreCase{"resources requested, pods scheduled with resources, differently sized nodes",
                  Args(kLeast, CpuMem()),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "10000", "20000"), Node("node2", "10000", "50000")},
                  {Existing("node1", "3000", "0"), Existing("node2", "3000", "5000")},
                  {57, 60}},
        ScoreCase{"requested resources exceed node capacity",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "0"}}).Obj(),
                  {Node("node1", "4000", "10000"), Node("node2", "4000", "10000")},
                  {Existing("node1", "3000", "0"), Existing("node2", "3000", "5000")},
                  {50, 25}},
        ScoreCase{"zero node resources, pods scheduled with resources",
                  Args(kLeast, CpuMem()),
                  BuildPod().Name("p").Obj(),
                  {BuildNode().Name("node1").Obj(), BuildNode().Name("node2").Obj()},
                  {Existing("node1", "3000", "0"), Existing("node2", "3000", "5000")},
                  {0, 0}},
        ScoreCase{"different weight on CPU and memory, differently sized nodes",
                  Args(kLeast, {{"memory", 2}, {"cpu", 1}}),
                  Pod2("1000", "2000", "2000", "3000"),
                  {Node("node1", "4000", "10000"), Node("node2", "6000", "10000")},
                  {},
                  {41, 50}},
        ScoreCase{
            "bypass extended resource if the pod does not request",
            Args(kLeast, CpuMemXyz()),
            Pod2("1000", "2000", "2000", "3000"),
            {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", std::pair{kXyz, "4"})},
            {},
            {50, 50}},
        ScoreCase{
            "honor extended resource if the pod requests",
            Args(kLeast, CpuMemXyz()),
            BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "5000"}, {kXyz, "2"}}).Obj(),
            {Node("node1", "6000", "10000", std::pair{kXyz, "4"}),
             Node("node2", "6000", "10000", std::pair{kXyz, "10"})},
            {},
            {50, 60}},
        ScoreCase{
            "if the node doesn't have a resource",
            Args(kLeast, {{kXyz, 2}, {"cpu", 1}, {"memory", 1}}),
            BuildPod().Name("p").Req({{"cpu", "3000"}, {"memory", "4000"}}).Obj(),
            {Node("node1", "6000", "10000"), Node("node2", "6000", "10000", std::pair{kXyz, "4"})},
            {},
            {55, 55}},
        // Ephemeral storage weighs its actual requests where the node has some; "pods" is no
        // request a scorer can weigh and drops out everywhere, as upstream's scalar lookup
        // finds nothing for it.
        ScoreCase{
            "ephemeral storage where the node has it, pods never",
            Args(kLeast, {{"cpu", 1}, {"memory", 1}, {"ephemeral-storage", 1}, {"pods", 1}}),
            BuildPod()
                .Name("p")
                .Req({{"cpu", "1000"}, {"memory", "2000"}, {"ephemeral-storage", "5000"}})
                .Obj(),
            {Node("node1", "4000", "10000", std::pair{"ephemeral-storage", "10000"}),
             Node("node2", "4000", "10000")},
            {},
            {68, 77}}),
    CaseName);

}  // namespace
}  // namespace stowage::plugins::node_resources::testutil::least_allocated_test
