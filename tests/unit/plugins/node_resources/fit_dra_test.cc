// NodeResourcesFit and extended resources a DeviceClass provides: left to DynamicResources on a
// node whose allocatable lacks them, checked as usual where a device plugin advertises them, and
// the queueing hints that follow classes and nodes; scored by counting the class's devices when
// scoringStrategy.resources names them.
#include <gtest/gtest.h>

#include "pkg/dra/extended_devices_state.h"
#include "pkg/plugins/node_resources/balanced_allocation.h"
#include "pkg/plugins/node_resources/fit.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::node_resources::fit_dra_test {
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

// The class below has no selectors, so nothing is ever compiled.
struct NoSelectors : dra::SelectorCompiler {
  StatusOr<dra::DeviceSelectorPtr> Compile(std::string_view) const override {
    return InvalidArgumentError("no selectors in these tests");
  }
};

// Two nodes without example.com/gpu in their allocatable, four devices of the class each; three
// of n1's are held. What DynamicResources' PreFilter leaves in the cycle for such a pod.
class DraScoringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<dra::ResourceSlicePtr> slices;
    for (const char* node : {"n1", "n2"}) {
      auto slice = std::make_shared<api::ResourceSlice>();
      slice->metadata.name = std::string("slice-") + node;
      slice->driver = "gpu.example.com";
      slice->pool_name = node;
      slice->pool_generation = 1;
      slice->pool_resource_slice_count = 1;
      slice->node_name = node;
      for (int i = 0; i < 4; ++i) slice->devices.push_back({.name = "gpu-" + std::to_string(i)});
      slices.push_back(slice);
    }
    dra::AllocatedState held;
    for (int i = 0; i < 3; ++i)
      held.devices.insert({"gpu.example.com", "n1", "gpu-" + std::to_string(i)});
    const std::vector<dra::DeviceClassPtr> classes = {
        std::make_shared<const api::DeviceClass>(GpuClass())};
    auto devices = std::make_shared<dra::ExtendedDevices>();
    devices->allocator = std::make_shared<const dra::Allocator>(
        dra::Features{}, std::move(held),
        std::make_shared<const dra::Inventory>(classes, slices, compiler_));
    devices->resolver = dra::DeviceClassResolver(classes);
    devices_ = devices;
  }
  // The score of each node, with the DRA view in the cycle or without it.
  std::vector<int64_t> Scores(framework::ScorePlugin& plugin, framework::PreScorePlugin& pre,
                              bool with_view, const std::string& cpu = "1") {
    framework::CycleState state;
    if (with_view) {
      state.Write(dra::kExtendedDevicesKey, std::make_unique<dra::ExtendedDevicesState>(devices_));
    }
    framework::PodInfoPtr pod =
        framework::NewPodInfo(BuildPod().Res({{"cpu", cpu}, {kGpu, "1"}}).Obj());
    std::vector<int64_t> out;
    std::vector<stowage::testing::NodeInfoPtr> infos;
    std::vector<const framework::NodeInfo*> nodes;
    for (const char* name : {"n1", "n2"}) {
      infos.push_back(stowage::testing::MakeNodeInfo(
          BuildNode()
              .Name(name)
              .Allocatable({{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "10"}})
              .Obj()));
      nodes.push_back(infos.back().get());
    }
    EXPECT_TRUE(pre.PreScore(state, *pod, nodes).IsSuccess());
    for (const auto* node : nodes) {
      int64_t score = -1;
      EXPECT_TRUE(plugin.Score(state, *pod, *node, score).IsSuccess());
      out.push_back(score);
    }
    return out;
  }
  NoSelectors compiler_;
  std::shared_ptr<const dra::ExtendedDevices> devices_;
};

TEST_F(DraScoringTest, FitCountsTheClassDevicesOfANodeWithoutTheResource) {
  FitOptions options;
  options.resources = {{"cpu", 1}, {kGpu, 1}};
  Fit fit(options);
  // cpu: (4000 - 1000) * 100 / 4000 = 75 on both. gpu on n1: 3 held + 1 of 4 leaves 0; on n2:
  // (4 - 1) * 100 / 4 = 75.
  EXPECT_EQ(Scores(fit, fit, true), (std::vector<int64_t>{37, 75}));
  // Without DynamicResources' view the resource drops out, as where nothing provides it.
  EXPECT_EQ(Scores(fit, fit, false), (std::vector<int64_t>{75, 75}));
}

TEST_F(DraScoringTest, BalancedAllocationWeighsTheClassDevicesToo) {
  BalancedAllocation balanced({{"cpu", 1}, {kGpu, 1}});
  // Half the cpu and a quarter of the devices: n1 goes from (0, 3/4) to (1/2, 1), more balanced;
  // n2 from (0, 0) to (1/2, 1/4), less.
  const std::vector<int64_t> with = Scores(balanced, balanced, true, "2");
  EXPECT_GT(with[0], 75);
  EXPECT_LT(with[1], 75);
  // Without the view only cpu counts, alike on both.
  const std::vector<int64_t> without = Scores(balanced, balanced, false, "2");
  EXPECT_EQ(without[0], without[1]);
}

}  // namespace
}  // namespace stowage::plugins::node_resources::fit_dra_test
