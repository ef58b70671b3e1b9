// DynamicResources and extended resources that a DeviceClass provides: the claim kept in memory
// until PreBind creates it, per-node requests where no device plugin serves the resource, the
// pod status that names the claim, and the clean-up of a claim an attempt left behind.
#include <gtest/gtest.h>

#include "pkg/dra/extended_devices_state.h"
#include "pkg/dra/extended_resources.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "tests/testing/builders.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"
#include "tests/unit/plugins/dynamic_resources/dra_handle.h"

namespace stowage::plugins::dynamic_resources::extended_test {
namespace {

using dra::testing::DeviceB;
using dra::testing::SliceB;
using framework::Code;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

constexpr char kGpu[] = "example.com/gpu";

api::PodPtr GpuPod(std::string name, std::string count) {
  return BuildPod()
      .Name(name)
      .Namespace("default")
      .UID(name + "-uid")
      .Res({{"cpu", "100m"}, {kGpu, std::move(count)}})
      .Obj();
}

class ExtendedResourcesTest : public ::testing::Test {
 protected:
  ExtendedResourcesTest() {
    auto gpu = *dra::testing::Class(dra::testing::kClass);
    gpu.extended_resource_name = kGpu;
    handle_.classes.Add(gpu);
    // Two devices on n1; none on n2; n3's device plugin advertises the resource.
    handle_.slices.Add(
        *SliceB("n1-gpus", "n1", "n1").Devices({DeviceB("gpu-0"), DeviceB("gpu-1")}).Obj());
    n1_ = stowage::testing::MakeNodeInfo(BuildNode().Name("n1").Obj());
    n2_ = stowage::testing::MakeNodeInfo(BuildNode().Name("n2").Obj());
    n3_ = stowage::testing::MakeNodeInfo(
        BuildNode().Name("n3").Allocatable({{"cpu", "4"}, {kGpu, "4"}}).Obj());
  }

  framework::Status PreFilter(framework::CycleState& state, const api::PodPtr& pod) {
    framework::PreFilterResult result;
    return pl_.PreFilter(state, *framework::NewPodInfo(pod), {}, result);
  }
  framework::Status Filter(framework::CycleState& state, const api::PodPtr& pod,
                           const framework::NodeInfo& node) {
    return pl_.Filter(state, *framework::NewPodInfo(pod), node);
  }
  framework::Status PostFilter(framework::CycleState& state, const api::PodPtr& pod) {
    framework::NodeToStatus filtered;
    framework::NominatingInfo nominating;
    NoRunner runner;
    return pl_.PostFilter(state, *framework::NewPodInfo(pod), filtered, runner, nominating);
  }

  DraHandle handle_;
  dra::testing::FakeSelectorCompiler compiler_;
  DynamicResources pl_{handle_, compiler_};
  std::shared_ptr<framework::NodeInfo> n1_, n2_, n3_;
};

TEST_F(ExtendedResourcesTest, ResourcesNoClassProvidesAreLeftToNodeResourcesFit) {
  api::PodPtr pod =
      BuildPod().Name("p").Namespace("default").Res({{"example.com/fpga", "1"}}).Obj();
  framework::CycleState state;
  EXPECT_EQ(PreFilter(state, pod).code(), Code::kSkip);
}

TEST_F(ExtendedResourcesTest, DevicesAreAllocatedWhereNoDevicePluginServesTheResource) {
  api::PodPtr pod = GpuPod("p", "2");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  EXPECT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  framework::Status on_n2 = Filter(state, pod, *n2_);
  EXPECT_EQ(on_n2.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(on_n2.Message(), "cannot allocate all claims");
  EXPECT_TRUE(Filter(state, pod, *n3_).IsSuccess()) << "the device plugin serves it on n3";

  ASSERT_TRUE(pl_.Reserve(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(pl_.PreBindPreFlight(state, *pod, "n1").code(), Code::kSuccess);
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n1").IsSuccess());

  // The claim: named from the pod, controlled by it, one request for the container.
  ASSERT_EQ(handle_.created.size(), 1u);
  const api::ResourceClaim& made = handle_.created[0];
  EXPECT_EQ(made.metadata.generate_name, "p-extended-resources-");
  EXPECT_TRUE(made.metadata.name.empty());
  EXPECT_FALSE(made.allocation.has_value());
  ASSERT_EQ(made.metadata.owner_references.size(), 1u);
  EXPECT_EQ(made.metadata.owner_references[0].uid, "p-uid");
  EXPECT_TRUE(made.metadata.owner_references[0].controller);
  EXPECT_EQ(*made.metadata.annotations.Get("resource.kubernetes.io/extended-resource-claim"),
            "true");
  ASSERT_EQ(made.devices.requests.size(), 1u);
  EXPECT_EQ(made.devices.requests[0].name, "container-0-request-1");  // cpu sorts first
  EXPECT_EQ(made.devices.requests[0].exactly->count, 2);

  // Its status: both devices, reserved for the pod.
  ASSERT_EQ(handle_.status_writes.size(), 1u);
  const api::ResourceClaim& written = handle_.status_writes[0];
  EXPECT_EQ(written.metadata.name, "p-extended-resources-x1");
  ASSERT_TRUE(written.allocation.has_value());
  EXPECT_EQ(written.allocation->results.size(), 2u);
  ASSERT_EQ(written.reserved_for.size(), 1u);
  EXPECT_EQ(written.reserved_for[0].uid, "p-uid");

  // The pod's status names the claim and which request serves the container.
  auto writes = handle_.write_calls();
  ASSERT_EQ(writes.size(), 1u);
  const auto& ext = writes[0].status.extended_resource_claim_status;
  ASSERT_TRUE(ext.has_value());
  EXPECT_EQ(ext->resource_claim_name, "p-extended-resources-x1");
  ASSERT_EQ(ext->request_mappings.size(), 1u);
  EXPECT_EQ(ext->request_mappings[0].container_name, "con0");
  EXPECT_EQ(ext->request_mappings[0].resource_name, kGpu);
  EXPECT_EQ(ext->request_mappings[0].request_name, "container-0-request-1");
}

TEST_F(ExtendedResourcesTest, PreFilterLeavesTheDevicesForTheResourceScorers) {
  api::PodPtr pod = GpuPod("p", "1");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  const auto* view = state.Read<dra::ExtendedDevicesState>(dra::kExtendedDevicesKey);
  ASSERT_NE(view, nullptr);
  ASSERT_NE(view->devices->allocator, nullptr);
  const api::DeviceClass* gpu = view->devices->resolver.Get(kGpu);
  ASSERT_NE(gpu, nullptr);
  const dra::Allocator& a = *view->devices->allocator;
  auto totals = dra::CountClassDevices(a.inventory(), a.allocated(), *n1_->node(), *gpu);
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ(totals->capacity, 2);
  EXPECT_EQ(totals->allocated, 0);

  // A pod without such resources leaves nothing for them.
  framework::CycleState plain;
  api::PodPtr other =
      BuildPod().Name("q").Namespace("default").Res({{"example.com/fpga", "1"}}).Obj();
  PreFilter(plain, other);
  EXPECT_EQ(plain.Read<dra::ExtendedDevicesState>(dra::kExtendedDevicesKey), nullptr);
}

// Scoring is over by Reserve: the view lets go of the cycle's Allocator, so a pod waiting in its
// binding cycle holds no copy of the tracker's device counts (which the next cycle would
// otherwise have to copy before changing them), and PreBind still writes the claim.
TEST_F(ExtendedResourcesTest, ReserveLetsGoOfTheScorersAllocator) {
  api::PodPtr pod = GpuPod("p", "1");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  const auto* view = state.Read<dra::ExtendedDevicesState>(dra::kExtendedDevicesKey);
  ASSERT_NE(view, nullptr);
  std::weak_ptr<const dra::Allocator> allocator = view->devices->allocator;
  ASSERT_FALSE(allocator.expired());
  // The scorers keep the view in their own states, as NodeResourcesFit's PreScore does.
  std::shared_ptr<const dra::ExtendedDevices> kept = view->devices;
  ASSERT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(state, *pod, "n1").IsSuccess());
  EXPECT_TRUE(allocator.expired()) << "the Allocator outlived Reserve";
  EXPECT_EQ(kept->allocator, nullptr);
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(handle_.created.size(), 1u);
}

TEST_F(ExtendedResourcesTest, DevicePluginNodesNeedNoClaim) {
  api::PodPtr pod = GpuPod("p", "1");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  ASSERT_TRUE(Filter(state, pod, *n3_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(state, *pod, "n3").IsSuccess());
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n3").IsSuccess());
  EXPECT_TRUE(handle_.created.empty());
  EXPECT_TRUE(handle_.status_writes.empty());
  EXPECT_TRUE(handle_.write_calls().empty());
}

// A pod with a claim of its own, on a node whose device plugin serves its extended resource:
// upstream v1.37.2 makes the node's variant of the extended claim without requests, allocates
// nothing for it, creates it in PreBind and then fails to name it in the pod's status, as
// here. The difference from a device-plugin node without user claims (above) is upstream's.
TEST_F(ExtendedResourcesTest, DevicePluginNodesBesideThePodsOwnClaimFailAsUpstream) {
  handle_.slices.Add(*SliceB("n3-gpus", "n3", "n3").Devices({DeviceB("gpu-0")}).Obj());
  api::ResourceClaim own = *dra::testing::Claim("own", {dra::testing::Request("gpu")});
  own.metadata.uid = "own-uid";
  own.metadata.resource_version = "1";
  handle_.claims.Add(own);
  api::PodPtr pod = BuildPod()
                        .Name("p")
                        .Namespace("default")
                        .UID("p-uid")
                        .Res({{"cpu", "100m"}, {kGpu, "1"}})
                        .ResourceClaims({{"gpu", "own", std::nullopt}})
                        .Obj();
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  ASSERT_TRUE(Filter(state, pod, *n3_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(state, *pod, "n3").IsSuccess());
  framework::Status bound = pl_.PreBind(state, *pod, "n3");
  EXPECT_EQ(bound.code(), Code::kError);
  EXPECT_EQ(
      bound.Message(),
      "nil or empty request mappings, no update of pod default/p ExtendedResourceClaimStatus");
  ASSERT_EQ(handle_.created.size(), 1u);
  EXPECT_TRUE(handle_.created[0].devices.requests.empty());
  EXPECT_TRUE(handle_.write_calls().empty()) << "the pod's status is not written";
}

TEST_F(ExtendedResourcesTest, AResourceNeitherAdvertisedNorProvidedDoesNotFit) {
  api::PodPtr pod =
      BuildPod().Name("p").Namespace("default").Res({{kGpu, "1"}, {"example.com/fpga", "1"}}).Obj();
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  framework::Status s = Filter(state, pod, *n1_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot fit resource");
}

TEST_F(ExtendedResourcesTest, ReservedDevicesAreTakenUntilUnreserveDeletesTheClaim) {
  api::PodPtr first = GpuPod("a", "2");
  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, first).IsSuccess());
  ASSERT_TRUE(Filter(s1, first, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(s1, *first, "n1").IsSuccess());

  api::PodPtr second = GpuPod("b", "1");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, second).IsSuccess());
  EXPECT_FALSE(Filter(s2, second, *n1_).IsSuccess()) << "a's devices are in flight";

  // PreBind created the claim, then binding failed: Unreserve deletes it, the devices are free.
  ASSERT_TRUE(pl_.PreBind(s1, *first, "n1").IsSuccess());
  pl_.Unreserve(s1, *first, "n1");
  EXPECT_EQ(handle_.deleted, (std::vector<std::string>{"default/a-extended-resources-x1"}));
  framework::CycleState s3;
  ASSERT_TRUE(PreFilter(s3, second).IsSuccess());
  EXPECT_TRUE(Filter(s3, second, *n1_).IsSuccess());
}

TEST_F(ExtendedResourcesTest, AClaimLeftByAnEarlierAttemptIsDeletedFirst) {
  api::PodPtr pod = GpuPod("p", "1");
  api::ResourceClaim left;
  left.metadata.namespace_ = "default";
  left.metadata.name = "p-extended-resources-old";
  left.metadata.uid = "old-uid";
  left.metadata.annotations = api::StringMap(std::vector<api::StringMap::Entry>{
      {"resource.kubernetes.io/extended-resource-claim", "true"}});
  left.metadata.owner_references = {
      {.api_version = "v1", .kind = "Pod", .name = "p", .uid = "p-uid", .controller = true}};
  left.devices.requests = {dra::testing::Request("container-0-request-1")};
  handle_.claims.Add(left);

  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  framework::Status s = Filter(state, pod, *n1_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot schedule extended resource claim");
  framework::Status post = PostFilter(state, pod);
  EXPECT_EQ(post.code(), Code::kUnschedulable);
  EXPECT_EQ(post.Message(), "deletion of ResourceClaim completed");
  EXPECT_EQ(handle_.deleted, (std::vector<std::string>{"default/p-extended-resources-old"}));

  // The next attempt starts afresh.
  framework::CycleState again;
  ASSERT_TRUE(PreFilter(again, pod).IsSuccess());
  EXPECT_TRUE(Filter(again, pod, *n1_).IsSuccess());
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::extended_test
