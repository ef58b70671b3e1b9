// NodeResourcesFit and extended resources a DeviceClass provides: left to DynamicResources on a
// node whose allocatable lacks them, checked as usual where a device plugin advertises them, and
// the queueing hints that follow classes and nodes.
#include <gtest/gtest.h>

#include "pkg/plugins/node_resources/fit.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::node_resources {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

constexpr char kGpu[] = "example.com/gpu";

api::DeviceClass GpuClass(std::optional<std::string> extended = kGpu) {
  api::DeviceClass c;
  c.metadata.name = "gpu";
  c.extended_resource_name = std::move(extended);
  return c;
}

framework::Status RunFilter(Fit& fit, const api::PodPtr& pod, const api::NodePtr& node) {
  framework::CycleState state;
  framework::PreFilterResult result;
  framework::PodInfoPtr info = framework::NewPodInfo(pod);
  EXPECT_TRUE(fit.PreFilter(state, *info, {}, result).IsSuccess());
  return fit.Filter(state, *info, *stowage::testing::MakeNodeInfo(node));
}

TEST(FitDraTest, AClassProvidedResourceIsLeftToDynamicResourcesWhereNoDevicePluginIs) {
  stowage::testing::FakeLister<api::DeviceClass> classes({GpuClass()});
  Fit fit(FitOptions{}, classes);
  api::PodPtr pod = BuildPod().Res({{"cpu", "1"}, {kGpu, "2"}}).Obj();
  api::NodePtr plain = BuildNode().Name("n1").Allocatable({{"cpu", "4"}, {"pods", "10"}}).Obj();
  EXPECT_TRUE(RunFilter(fit, pod, plain).IsSuccess());
  // A device plugin advertises too few: the usual verdict.
  api::NodePtr small =
      BuildNode().Name("n2").Allocatable({{"cpu", "4"}, {"pods", "10"}, {kGpu, "1"}}).Obj();
  framework::Status s = RunFilter(fit, pod, small);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "Insufficient example.com/gpu");
  // The implicit name of a class is served the same way.
  api::PodPtr implicit = BuildPod().Res({{"deviceclass.resource.kubernetes.io/gpu", "1"}}).Obj();
  EXPECT_TRUE(RunFilter(fit, implicit, plain).IsSuccess());
}

TEST(FitDraTest, WithoutAClassTheResourceIsInsufficient) {
  Fit fit{FitOptions{}};
  api::PodPtr pod = BuildPod().Res({{kGpu, "1"}}).Obj();
  api::NodePtr plain = BuildNode().Name("n1").Allocatable({{"cpu", "4"}, {"pods", "10"}}).Obj();
  framework::Status s = RunFilter(fit, pod, plain);
  EXPECT_EQ(s.Message(), "Insufficient example.com/gpu");
}

TEST(FitDraTest, DeviceClassEventsQueueOnlyPodsTheClassMayServe) {
  api::PodPtr pod = BuildPod().Res({{kGpu, "1"}}).Obj();
  auto cls = [](api::DeviceClass c) {
    return EventObject(std::make_shared<const api::DeviceClass>(c));
  };
  const EventObject none;
  EXPECT_EQ(IsSchedulableAfterDeviceClassEvent(*pod, none, cls(GpuClass())), QueueingHint::kQueue);
  EXPECT_EQ(IsSchedulableAfterDeviceClassEvent(*pod, none, cls(GpuClass("example.com/nic"))),
            QueueingHint::kSkip);
  // An update that keeps the extended resource name changes nothing for the pod.
  EXPECT_EQ(IsSchedulableAfterDeviceClassEvent(*pod, cls(GpuClass()), cls(GpuClass())),
            QueueingHint::kSkip);
  EXPECT_EQ(IsSchedulableAfterDeviceClassEvent(*pod, cls(GpuClass(std::nullopt)), cls(GpuClass())),
            QueueingHint::kQueue);
  // A new class serves its implicit name.
  api::PodPtr implicit = BuildPod().Res({{"deviceclass.resource.kubernetes.io/gpu", "1"}}).Obj();
  EXPECT_EQ(IsSchedulableAfterDeviceClassEvent(*implicit, none, cls(GpuClass(std::nullopt))),
            QueueingHint::kQueue);
}

TEST(FitDraTest, ANodeWithoutThePluginResourceMayNowServeThroughDra) {
  api::PodPtr pod = BuildPod().Res({{"cpu", "1"}, {kGpu, "1"}}).Obj();
  api::NodePtr before = BuildNode().Name("n1").Allocatable({{"cpu", "4"}, {"pods", "10"}}).Obj();
  api::NodePtr after = BuildNode()
                           .Name("n1")
                           .Label("changed", "yes")
                           .Allocatable({{"cpu", "4"}, {"pods", "10"}})
                           .Obj();
  stowage::testing::FakeLister<api::DeviceClass> classes({GpuClass()});
  EXPECT_EQ(IsSchedulableAfterNodeChange(*pod, EventObject(before), EventObject(after), classes),
            QueueingHint::kQueue);
  // Without a class the pod never fits such a node.
  EXPECT_EQ(IsSchedulableAfterNodeChange(*pod, EventObject(before), EventObject(after)),
            QueueingHint::kSkip);
}

}  // namespace
}  // namespace stowage::plugins::node_resources
