// Cluster events: upstream's matching rule (a registration covers an observed event of its
// resource whose action is one of, or more specific than, its own), labels, and the
// classification of pod and node updates.
#include "stowage/framework/events.h"

#include <gtest/gtest.h>

#include "tests/testing/builders.h"

namespace stowage::framework::events_test {
namespace {

using testing::BuildNode;
using testing::BuildPod;

std::vector<std::string> Labels(const std::vector<ClusterEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.Label());
  return out;
}

TEST(ClusterEventMatches, AGeneralUpdateDoesNotReachASpecificRegistration) {
  const ClusterEvent toleration{EventResource::kTargetPod, kUpdatePodToleration};
  EXPECT_FALSE(toleration.Matches({EventResource::kTargetPod, kUpdate}));
  EXPECT_TRUE(toleration.Matches({EventResource::kTargetPod, kUpdatePodToleration}));
  const ClusterEvent scale_down{EventResource::kAssignedPod, kDelete | kUpdatePodScaleDown};
  EXPECT_FALSE(scale_down.Matches({EventResource::kAssignedPod, kUpdate}));
  EXPECT_TRUE(scale_down.Matches({EventResource::kAssignedPod, kDelete}));
}

TEST(ClusterEventMatches, PodCoversItsThreeRolesAndRolesStayApart) {
  const ClusterEvent any_update{EventResource::kPod, kUpdate};
  EXPECT_TRUE(any_update.Matches({EventResource::kTargetPod, kUpdate}));
  EXPECT_TRUE(any_update.Matches({EventResource::kUnscheduledPod, kUpdatePodLabel}));
  EXPECT_TRUE(any_update.Matches({EventResource::kAssignedPod, kUpdatePodScaleDown}));
  EXPECT_FALSE(any_update.Matches({EventResource::kAssignedPod, kDelete}));
  const ClusterEvent target{EventResource::kTargetPod, kUpdate};
  EXPECT_FALSE(target.Matches({EventResource::kUnscheduledPod, kUpdatePodLabel}));
  EXPECT_FALSE(ClusterEvent({EventResource::kNode, kAdd}).Matches({EventResource::kPod, kAdd}));
  EXPECT_TRUE(ClusterEvent{}.Matches({EventResource::kNode, kUpdateNodeLabel}));
}

TEST(ClusterEventLabel, ResourceAndActionAsUpstreamSpellsThem) {
  EXPECT_EQ(kEventUnscheduledPodAdd.Label(), "UnscheduledPodAdd");
  EXPECT_EQ(kEventAssignedPodDelete.Label(), "AssignedPodDelete");
  EXPECT_EQ(ClusterEvent({EventResource::kTargetPod, kUpdatePodLabel}).Label(),
            "TargetPodUpdatePodLabel");
  EXPECT_EQ(ClusterEvent({EventResource::kNode, kAdd | kUpdateNodeTaint}).Label(), "Node");
  EXPECT_EQ(ClusterEvent({EventResource::kCSINode, kAdd}).Label(), "storage.k8s.io/CSINodeAdd");
  EXPECT_EQ(kEventUnschedulableTimeout.Label(), "UnschedulableTimeout");
}

TEST(PodSchedulingPropertiesChange, AStatusWriteIsTheGeneralUpdateOfTheTargetPod) {
  auto pod = BuildPod().Name("p").Obj();
  auto written = std::make_shared<api::Pod>(*pod);
  written->status.conditions.push_back({"PodScheduled", "False", "Unschedulable", "m", ""});
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(*written, *pod, true)),
            std::vector<std::string>{"TargetPodUpdate"});
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(*written, *pod, false)),
            std::vector<std::string>{"UnscheduledPodUpdate"});
}

TEST(PodSchedulingPropertiesChange, OneEventPerChangeInUpstreamOrder) {
  auto before = BuildPod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj();
  auto after = BuildPod()
                   .Name("p")
                   .Label("app", "x")
                   .Req({{"cpu", "2"}, {"memory", "1Gi"}})
                   .Toleration("k")
                   .Obj();
  EXPECT_EQ(
      Labels(PodSchedulingPropertiesChange(*after, *before, true)),
      (std::vector<std::string>{"TargetPodUpdatePodLabel", "TargetPodUpdatePodScaleDown",
                                "TargetPodUpdatePodScaleUp", "TargetPodUpdatePodToleration"}));
  auto bound = BuildPod().Name("p").Node("n1").Label("app", "x").Obj();
  auto bound_before = BuildPod().Name("p").Node("n1").Obj();
  EXPECT_EQ(Labels(PodSchedulingPropertiesChange(*bound, *bound_before, true)),
            std::vector<std::string>{"AssignedPodUpdatePodLabel"});
}

TEST(NodeSchedulingPropertiesChange, OnlyANodeBecomingSchedulableCountsAsTaintChange) {
  auto schedulable = BuildNode().Name("n").Obj();
  auto cordoned = std::make_shared<api::Node>(*schedulable);
  cordoned->spec.unschedulable = true;
  EXPECT_TRUE(NodeSchedulingPropertiesChange(*cordoned, *schedulable).empty());
  EXPECT_EQ(Labels(NodeSchedulingPropertiesChange(*schedulable, *cordoned)),
            std::vector<std::string>{"NodeUpdateNodeTaint"});
}

}  // namespace
}  // namespace stowage::framework::events_test
