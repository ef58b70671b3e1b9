// The "0/N nodes are available: ..." message, byte for byte as upstream's FitError.Error().
#include <gtest/gtest.h>

#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler::fit_error_test {
namespace {

using framework::Status;

TEST(FitErrorMessage, SortsTheCountedReasonsAsText) {
  framework::NodeToStatus statuses;
  statuses.emplace_back("n1", Status::Unschedulable("Insufficient cpu"));
  statuses.emplace_back("n2", Status::Unresolvable("node(s) had untolerated taint(s)"));
  statuses.emplace_back("n3", Status::Unresolvable("node(s) had untolerated taint(s)"));
  statuses.emplace_back(
      "n4", Status(framework::Code::kUnschedulable,
                   std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
  statuses.emplace_back("n5",
                        Status::Unresolvable("node(s) didn't match Pod's node affinity/selector"));
  // Upstream sorts "<count> <reason>", so the counts lead the order.
  EXPECT_EQ(FitErrorMessage(5, statuses, "", ""),
            "0/5 nodes are available: 1 Insufficient memory, "
            "1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu, "
            "2 node(s) had untolerated taint(s).");
}

TEST(FitErrorMessage, AFewTaintedNodesComeBeforeManyUnmatchedOnes) {
  // The case the differential run against upstream found (issue: reversed in 70 of 156 pods).
  framework::NodeToStatus statuses;
  statuses.emplace_back("t", Status::Unresolvable("node(s) had untolerated taint(s)"));
  for (const char* n : {"a", "b", "c", "d"}) {
    statuses.emplace_back(
        n, Status::Unresolvable("node(s) didn't match Pod's node affinity/selector"));
  }
  EXPECT_EQ(FitErrorMessage(5, statuses, "", ""),
            "0/5 nodes are available: 1 node(s) had untolerated taint(s), "
            "4 node(s) didn't match Pod's node affinity/selector.");
}

TEST(FitErrorMessage, PreFilterRejectionReplacesTheHistogram) {
  EXPECT_EQ(FitErrorMessage(3, {}, "pod affinity terms conflict", ""),
            "0/3 nodes are available: pod affinity terms conflict.");
}

TEST(FitErrorMessage, PostFilterMessageIsAppended) {
  framework::NodeToStatus statuses;
  statuses.emplace_back("n1", Status::Unschedulable("Insufficient cpu"));
  EXPECT_EQ(FitErrorMessage(1, statuses, "",
                            "preemption: 0/1 nodes are available: 1 No preemption victims found "
                            "for incoming pod."),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.");
}

}  // namespace
}  // namespace stowage::scheduler::fit_error_test
