// DynamicResources: claims resolved and allocated per node, the in-flight allocation between
// Reserve and PreBind, and the claim status PreBind writes. Selectors go through the allocator
// tests' fake compiler; the CEL adapter has its own test beside this one.
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"
#include "tests/unit/plugins/dynamic_resources/dra_handle.h"

namespace stowage::plugins::dynamic_resources::dynamic_resources_test {
namespace {

using dra::testing::Claim;
using dra::testing::DeviceB;
using dra::testing::FirstAvailable;
using dra::testing::Request;
using dra::testing::SliceB;
using dra::testing::Sub;
using framework::Code;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;
using stowage::testing::FakeLister;

api::ResourceClaim OneGpuClaim(std::string name, std::string uid) {
  api::ResourceClaim c = *Claim(std::move(name), {Request("gpu")});
  c.metadata.uid = std::move(uid);
  c.metadata.resource_version = "1";
  return c;
}

api::PodPtr PodUsing(std::string name, std::string claim) {
  return BuildPod()
      .Name(name)
      .Namespace("default")
      .UID(name + "-uid")
      .ResourceClaims({{"gpu", std::move(claim), std::nullopt}})
      .Obj();
}

class DynamicResourcesTest : public ::testing::Test {
 protected:
  DynamicResourcesTest() {
    handle_.classes.Add(*dra::testing::Class(dra::testing::kClass));
    // One device, on n1 only.
    handle_.slices.Add(*SliceB("n1-gpus", "n1", "n1").Devices({DeviceB("gpu-0")}).Obj());
    n1_ = stowage::testing::MakeNodeInfo(BuildNode().Name("n1").Obj());
    n2_ = stowage::testing::MakeNodeInfo(BuildNode().Name("n2").Obj());
  }

  framework::Status PreFilter(framework::CycleState& state, const api::PodPtr& pod) {
    framework::PreFilterResult result;
    return pl_.PreFilter(state, *framework::NewPodInfo(pod), {}, result);
  }
  framework::Status Filter(framework::CycleState& state, const api::PodPtr& pod,
                           const framework::NodeInfo& node) {
    return pl_.Filter(state, *framework::NewPodInfo(pod), node);
  }

  // The pod's scheduling cycle up to Reserve on n1: its allocation is in flight from then on.
  void ReserveOnN1(framework::CycleState& state, const api::PodPtr& pod) {
    ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
    ASSERT_TRUE(Filter(state, pod, *n1_).IsSuccess());
    ASSERT_TRUE(pl_.Reserve(state, *pod, "n1").IsSuccess());
  }

  DraHandle handle_;
  dra::testing::FakeSelectorCompiler compiler_;
  DynamicResources pl_{handle_, compiler_};
  std::shared_ptr<framework::NodeInfo> n1_, n2_;
};

TEST_F(DynamicResourcesTest, PodsWithoutClaimsAreSkipped) {
  framework::CycleState state;
  EXPECT_EQ(PreFilter(state, BuildPod().Obj()).code(), Code::kSkip);
  EXPECT_EQ(pl_.PreBindPreFlight(state, *BuildPod().Obj(), "n1").code(), Code::kSkip);
  EXPECT_TRUE(pl_.PreEnqueue(*BuildPod().Obj()).IsSuccess());
  EXPECT_EQ(pl_.Name(), names::kDynamicResources);
}

TEST_F(DynamicResourcesTest, PreEnqueueWaitsForClaimsToExist) {
  api::PodPtr from_template = BuildPod()
                                  .Name("p")
                                  .Namespace("default")
                                  .ResourceClaims({{"gpu", std::nullopt, "gpu-template"}})
                                  .Obj();
  framework::Status s = pl_.PreEnqueue(*from_template);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "pod \"default/p\": ResourceClaim not created yet");

  s = pl_.PreEnqueue(*PodUsing("p", "missing"));
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "could not find ResourceClaim \"default/missing\"");

  // The controller created the claim, but not for this pod.
  api::Pod with_status = *from_template;
  with_status.status.resource_claim_statuses = {{"gpu", "p-gpu"}};
  handle_.claims.Add(OneGpuClaim("p-gpu", "c1"));
  s = pl_.PreEnqueue(with_status);
  EXPECT_EQ(s.Message(),
            "ResourceClaim default/p-gpu was not created for Pod default/p (Pod is not owner)");
}

TEST_F(DynamicResourcesTest, AllocatesOnTheNodeWithTheDevice) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  EXPECT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  framework::Status s = Filter(state, pod, *n2_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot allocate all claims");
}

// Upstream's RetryOnConflict: a reservation that loses a race to another writer of a shared
// claim is written again on the newer copy, keeping the other writer's change.
TEST_F(DynamicResourcesTest, PreBindRetriesAConflictOnANewerCopy) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr first = PodUsing("p1", "c");
  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, first).IsSuccess());
  ASSERT_TRUE(Filter(s1, first, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(s1, *first, "n1").IsSuccess());
  ASSERT_TRUE(pl_.PreBind(s1, *first, "n1").IsSuccess());
  handle_.claims.Update(handle_.status_writes.back());  // the informer sees p1's write

  api::PodPtr second = PodUsing("p2", "c");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, second).IsSuccess());
  ASSERT_TRUE(Filter(s2, second, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(s2, *second, "n1").IsSuccess());
  handle_.conflicts = 1;
  handle_.on_conflict = [&] {
    api::ResourceClaim newer = handle_.status_writes.front();
    newer.reserved_for.push_back({.resource = "pods", .name = "p3", .uid = "p3-uid"});
    newer.metadata.resource_version = "500";
    handle_.claims.Update(newer);
  };
  ASSERT_TRUE(pl_.PreBind(s2, *second, "n1").IsSuccess());
  ASSERT_EQ(handle_.status_writes.size(), 3u);
  std::vector<std::string> consumers;
  for (const auto& r : handle_.status_writes.back().reserved_for) consumers.push_back(r.name);
  EXPECT_EQ(consumers, (std::vector<std::string>{"p1", "p3", "p2"}));
  EXPECT_EQ(handle_.status_writes.back().metadata.resource_version, "500");

  // A conflict on every attempt ends after five, with the apiserver's error.
  api::PodPtr third = PodUsing("p4", "c");
  framework::CycleState s3;
  ASSERT_TRUE(PreFilter(s3, third).IsSuccess());
  ASSERT_TRUE(Filter(s3, third, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(s3, *third, "n1").IsSuccess());
  int version = 600;
  handle_.conflicts = 100;
  handle_.on_conflict = [&] {
    api::ResourceClaim newer = *handle_.claims.Get("default", "c");
    newer.metadata.resource_version = std::to_string(version++);
    handle_.claims.Update(newer);
  };
  framework::Status s = pl_.PreBind(s3, *third, "n1");
  EXPECT_NE(s.Message().find("the object has been modified"), std::string::npos) << s.Message();
  EXPECT_EQ(handle_.conflicts, 95);
}

// Pods sharing an allocated claim whose cycles all read one copy: each PreBind writes on the
// answer to the one before (the apiserver would refuse the older resourceVersion), so the
// reservations come one after another without a conflict, none lost.
TEST_F(DynamicResourcesTest, PreBindsOfASharedClaimWriteOnEachOthersAnswer) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr owner = PodUsing("p0", "c");
  framework::CycleState s0;
  ReserveOnN1(s0, owner);
  ASSERT_TRUE(pl_.PreBind(s0, *owner, "n1").IsSuccess());
  // The informer sees p0's write as the apiserver answered it.
  api::ResourceClaim seen = handle_.status_writes.back();
  seen.metadata.resource_version = "102";  // the finalizer's answer was 101
  handle_.claims.Update(seen);
  std::vector<api::PodPtr> pods;
  std::vector<framework::CycleState> states(3);
  for (int i = 0; i < 3; ++i) {
    pods.push_back(PodUsing("p" + std::to_string(i + 1), "c"));
    ReserveOnN1(states[i], pods[i]);  // every cycle before any of their writes
  }
  const size_t before = handle_.status_writes.size();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pl_.PreBind(states[i], *pods[i], "n1").IsSuccess());
  ASSERT_EQ(handle_.status_writes.size(), before + 3) << "a write was repeated";
  for (size_t w = before; w < handle_.status_writes.size(); ++w) {
    // The fake answers each write with the next version: 103 to the first, and so on.
    EXPECT_EQ(handle_.status_writes[w].metadata.resource_version,
              std::to_string(102 + (w - before)))
        << "write " << w - before << " is not on the answer to the one before";
  }
  std::vector<std::string> consumers;
  for (const auto& r : handle_.status_writes.back().reserved_for) consumers.push_back(r.name);
  EXPECT_EQ(consumers, (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
}

// Upstream adds the finalizer only when the claim lacks it: a retry after a conflict is not
// written a second time.
TEST_F(DynamicResourcesTest, PreBindRetryDoesNotWriteTheFinalizerAgain) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ReserveOnN1(state, pod);
  handle_.conflicts = 1;
  handle_.on_conflict = [&] {  // the informer sees the claim as the finalizer patch left it
    api::ResourceClaim newer = *handle_.claims.Get("default", "c");
    newer.metadata.finalizers = {std::string(kClaimFinalizer)};
    newer.metadata.resource_version = "500";
    handle_.claims.Update(newer);
  };
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n1").IsSuccess());
  EXPECT_EQ(handle_.finalizers, std::vector<std::string>{std::string(kClaimFinalizer)});
  ASSERT_EQ(handle_.status_writes.size(), 2u);
  EXPECT_EQ(handle_.status_writes.back().metadata.resource_version, "500");
  EXPECT_TRUE(handle_.status_writes.back().allocation.has_value());
}

// Nor is the finalizer of a claim that an interrupted PreBind already marked.
TEST_F(DynamicResourcesTest, PreBindKeepsAFinalizerAlreadyThere) {
  api::ResourceClaim marked = OneGpuClaim("c", "c1");
  marked.metadata.finalizers = {std::string(kClaimFinalizer)};
  handle_.claims.Add(marked);
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ReserveOnN1(state, pod);
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n1").IsSuccess());
  EXPECT_TRUE(handle_.finalizers.empty());
  ASSERT_EQ(handle_.status_writes.size(), 1u);
  EXPECT_EQ(handle_.status_writes[0].metadata.finalizers,
            std::vector<std::string>{std::string(kClaimFinalizer)});
  EXPECT_TRUE(handle_.status_writes[0].allocation.has_value());
}

// The slices grouped by node are kept from cycle to cycle; a slice added or changed in between
// is seen by the next cycle.
TEST_F(DynamicResourcesTest, SlicesChangedBetweenCyclesAreSeen) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  {
    framework::CycleState state;
    ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
    EXPECT_FALSE(Filter(state, pod, *n2_).IsSuccess());
    EXPECT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  }
  {
    framework::CycleState state;
    ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
    EXPECT_EQ(handle_.slices.ListCallsForTest(), 1) << "nothing changed: the slices are kept";
  }
  handle_.slices.Add(*SliceB("n2-gpus", "n2", "n2").Devices({DeviceB("gpu-0")}).Obj());
  handle_.slices.Add(
      *SliceB("n1-gpus", "n1", "n1").Devices({DeviceB("gpu-0").Taint("k", "NoSchedule")}).Obj());
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  EXPECT_TRUE(Filter(state, pod, *n2_).IsSuccess());
  EXPECT_FALSE(Filter(state, pod, *n1_).IsSuccess());
}

// Upstream's prioritized-list score: the earlier the firstAvailable subrequest a node's allocation
// took, the higher (8 for the first, 7 for the second), each subrequest counted once however
// many devices it got.
TEST_F(DynamicResourcesTest, ScoreFavoursTheEarlierSubrequest) {
  handle_.slices.Add(
      *SliceB("n2-gpus", "n2", "n2").Devices({DeviceB("gpu-0"), DeviceB("gpu-1")}).Obj());
  api::ResourceClaim c = *Claim("c", {FirstAvailable("req", {Sub("two", 2), Sub("one", 1)})});
  c.metadata.uid = "c1";
  c.metadata.resource_version = "1";
  handle_.claims.Add(c);
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  ASSERT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  ASSERT_TRUE(Filter(state, pod, *n2_).IsSuccess());
  auto info = framework::NewPodInfo(pod);
  int64_t on_n1 = -1, on_n2 = -1;
  ASSERT_TRUE(pl_.Score(state, *info, *n1_, on_n1).IsSuccess());
  ASSERT_TRUE(pl_.Score(state, *info, *n2_, on_n2).IsSuccess());
  EXPECT_EQ(on_n1, 7);  // one device: the second subrequest
  EXPECT_EQ(on_n2, 8);  // two devices: the first, with two results
}

// The framework normalizes a score only through the plugin's Extensions(), as upstream's
// runtime calls ScoreExtensions().NormalizeScore: the raw 8 and 7 become 100 and 87, so the
// plugin's weight (2) moves the total by up to 200, not 16.
TEST_F(DynamicResourcesTest, ScoreIsNormalizedThroughExtensions) {
  framework::ScorePlugin& as_score = pl_;
  framework::ScoreExtensions* ext = as_score.Extensions();
  ASSERT_NE(ext, nullptr);
  framework::CycleState state;
  auto info = framework::NewPodInfo(PodUsing("p", "c"));
  framework::NodeScoreList scores = {{"n1", 7}, {"n2", 8}, {"n3", 6}};
  ASSERT_TRUE(ext->NormalizeScore(state, *info, scores).IsSuccess());
  EXPECT_EQ(scores[0].score, 87);
  EXPECT_EQ(scores[1].score, 100);
  EXPECT_EQ(scores[2].score, 75);
}

TEST_F(DynamicResourcesTest, FilterTimeoutEndsTheSearch) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  // A nanosecond has passed before the search takes its first step.
  DynamicResources hasty(handle_, compiler_, {}, std::chrono::nanoseconds(1));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(hasty.PreFilter(state, *framework::NewPodInfo(pod), {}, result).IsSuccess());
  framework::Status s = hasty.Filter(state, *framework::NewPodInfo(pod), *n1_);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "node n1: timed out trying to allocate devices");
}

TEST_F(DynamicResourcesTest, MissingClassIsUnresolvable) {
  api::ResourceClaim c = OneGpuClaim("c", "c1");
  c.devices.requests[0].exactly->device_class_name = "nope";
  handle_.claims.Add(c);
  framework::CycleState state;
  framework::Status s = PreFilter(state, PodUsing("p", "c"));
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "request gpu: device class nope does not exist");
}

TEST_F(DynamicResourcesTest, AllocatedClaimFitsOnlyItsNodes) {
  api::ResourceClaim c = OneGpuClaim("c", "c1");
  api::NodeSelector on_n1;
  on_n1.terms.push_back({.match_expressions = {},
                         .match_fields = {{.key = "metadata.name", .op = "In", .values = {"n1"}}}});
  c.allocation = api::AllocationResult{.results = {{.request = "gpu",
                                                    .driver = dra::testing::kDriver,
                                                    .pool = "n1",
                                                    .device = "gpu-0"}},
                                       .node_selector = on_n1};
  handle_.claims.Add(c);
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  EXPECT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  framework::Status s = Filter(state, pod, *n2_);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resourceclaim not available on the node");
}

TEST_F(DynamicResourcesTest, PostFilterDeallocatesAClaimReservedForNobody) {
  api::ResourceClaim c = OneGpuClaim("c", "c1");
  api::NodeSelector on_n1;
  on_n1.terms.push_back({.match_expressions = {},
                         .match_fields = {{.key = "metadata.name", .op = "In", .values = {"n1"}}}});
  c.allocation = api::AllocationResult{.results = {{.request = "gpu",
                                                    .driver = dra::testing::kDriver,
                                                    .pool = "n1",
                                                    .device = "gpu-0"}},
                                       .node_selector = on_n1};
  handle_.claims.Add(c);
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  ASSERT_FALSE(Filter(state, pod, *n2_).IsSuccess());
  framework::NodeToStatus filtered;
  framework::NominatingInfo nominating;
  NoRunner runner;
  framework::Status s =
      pl_.PostFilter(state, *framework::NewPodInfo(pod), filtered, runner, nominating);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "deallocation of ResourceClaim completed");
  ASSERT_EQ(handle_.status_writes.size(), 1u);
  EXPECT_FALSE(handle_.status_writes[0].allocation.has_value());
  EXPECT_TRUE(handle_.status_writes[0].reserved_for.empty());
}

TEST_F(DynamicResourcesTest, InFlightAllocationHoldsTheDeviceUntilUnreserve) {
  handle_.claims.Add(OneGpuClaim("c1", "u1"));
  handle_.claims.Add(OneGpuClaim("c2", "u2"));
  api::PodPtr first = PodUsing("p1", "c1");
  api::PodPtr second = PodUsing("p2", "c2");

  framework::CycleState s1;
  ASSERT_TRUE(PreFilter(s1, first).IsSuccess());
  ASSERT_TRUE(Filter(s1, first, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(s1, *first, "n1").IsSuccess());

  // The second pod's cycle sees the first's allocation in flight: no device is left.
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, second).IsSuccess());
  EXPECT_EQ(Filter(s2, second, *n1_).Message(), "cannot allocate all claims");

  // Once the first pod is unreserved the device is free again.
  pl_.Unreserve(s1, *first, "n1");
  framework::CycleState s3;
  ASSERT_TRUE(PreFilter(s3, second).IsSuccess());
  EXPECT_TRUE(Filter(s3, second, *n1_).IsSuccess());
}

// Every profile's DynamicResources on one scheduler shares the allocations in flight, as
// upstream's one DRA manager does: another profile neither gives the device out again nor lets
// a pod sharing the claim through, and its held pod is activated when the allocation ends.
TEST_F(DynamicResourcesTest, AnotherProfileSeesTheAllocationsInFlight) {
  DynamicResources other{handle_, compiler_};
  handle_.claims.Add(OneGpuClaim("c1", "u1"));
  handle_.claims.Add(OneGpuClaim("c2", "u2"));
  api::PodPtr first = PodUsing("p1", "c1");
  framework::CycleState s1;
  ReserveOnN1(s1, first);

  api::PodPtr second = PodUsing("p2", "c2");
  framework::CycleState s2;
  framework::PreFilterResult result;
  ASSERT_TRUE(other.PreFilter(s2, *framework::NewPodInfo(second), {}, result).IsSuccess());
  EXPECT_EQ(other.Filter(s2, *framework::NewPodInfo(second), *n1_).Message(),
            "cannot allocate all claims");
  EXPECT_FALSE(other.PreEnqueue(*PodUsing("p3", "c1")).IsSuccess());

  pl_.Unreserve(s1, *first, "n1");
  EXPECT_EQ(handle_.activated(), std::vector<std::string>{"default/p3"});
  framework::CycleState s3;
  ASSERT_TRUE(other.PreFilter(s3, *framework::NewPodInfo(second), {}, result).IsSuccess());
  EXPECT_TRUE(other.Filter(s3, *framework::NewPodInfo(second), *n1_).IsSuccess());
}

// A pod sharing a claim that another pod's cycle has allocated and not yet written is held by
// PreEnqueue, not failed by PreFilter, and activated once the allocation is written or dropped.
TEST_F(DynamicResourcesTest, APodSharingAClaimInFlightIsHeldAndActivatedWhenItIsWritten) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr first = PodUsing("p1", "c");
  api::PodPtr second = PodUsing("p2", "c");
  api::PodPtr third = PodUsing("p3", "c");
  ASSERT_TRUE(pl_.PreEnqueue(*second).IsSuccess());  // nothing in flight yet

  framework::CycleState s1;
  ReserveOnN1(s1, first);
  framework::Status held = pl_.PreEnqueue(*second);
  EXPECT_EQ(held.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(held.Message(), "resource claim default/c is in the process of being allocated");
  EXPECT_FALSE(pl_.PreEnqueue(*third).IsSuccess());
  EXPECT_FALSE(pl_.PreEnqueue(*second).IsSuccess());  // asked again: still one registration
  EXPECT_TRUE(handle_.activated().empty());

  ASSERT_TRUE(pl_.PreBind(s1, *first, "n1").IsSuccess());
  EXPECT_EQ(handle_.activated(), (std::vector<std::string>{"default/p2", "default/p3"}));
  // Written: the claim is allocated now, so the held pods pass and go to the allocation's node.
  EXPECT_TRUE(pl_.PreEnqueue(*second).IsSuccess());
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, second).IsSuccess());
  EXPECT_TRUE(Filter(s2, second, *n1_).IsSuccess());
  EXPECT_EQ(Filter(s2, second, *n2_).Message(), "resourceclaim not available on the node");
}

TEST_F(DynamicResourcesTest, APodHeldForAClaimInFlightIsActivatedWhenTheAllocationIsDropped) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr first = PodUsing("p1", "c");
  api::PodPtr second = PodUsing("p2", "c");
  framework::CycleState s1;
  ReserveOnN1(s1, first);
  ASSERT_FALSE(pl_.PreEnqueue(*second).IsSuccess());

  // The first pod's binding fails before the write: no claim event will come, so the plugin
  // itself must wake the held pod.
  pl_.Unreserve(s1, *first, "n1");
  EXPECT_EQ(handle_.activated(), std::vector<std::string>{"default/p2"});
  EXPECT_TRUE(pl_.PreEnqueue(*second).IsSuccess());
  EXPECT_TRUE(handle_.status_writes.empty());
}

TEST_F(DynamicResourcesTest, PreBindWritesAllocationAndReservation) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  framework::CycleState state;
  ASSERT_TRUE(PreFilter(state, pod).IsSuccess());
  ASSERT_TRUE(Filter(state, pod, *n1_).IsSuccess());
  ASSERT_TRUE(pl_.Reserve(state, *pod, "n1").IsSuccess());
  // Claims to write: the scheduler is to nominate n1 before PreBind, as upstream does.
  EXPECT_EQ(pl_.PreBindPreFlight(state, *pod, "n1").code(), Code::kSuccess);
  ASSERT_TRUE(pl_.PreBind(state, *pod, "n1").IsSuccess());

  EXPECT_EQ(handle_.finalizers, std::vector<std::string>{std::string(kClaimFinalizer)});
  ASSERT_EQ(handle_.status_writes.size(), 1u);
  const api::ResourceClaim& written = handle_.status_writes[0];
  ASSERT_TRUE(written.allocation.has_value());
  ASSERT_EQ(written.allocation->results.size(), 1u);
  EXPECT_EQ(written.allocation->results[0].device, "gpu-0");
  EXPECT_EQ(written.allocation->results[0].pool, "n1");
  EXPECT_TRUE(written.allocation->allocation_timestamp.has_value());
  ASSERT_EQ(written.reserved_for.size(), 1u);
  EXPECT_EQ(written.reserved_for[0].resource, "pods");
  EXPECT_EQ(written.reserved_for[0].name, "p");
  EXPECT_EQ(written.reserved_for[0].uid, "p-uid");

  // The in-flight entry is gone, but the written claim still holds the device while the
  // informer has not seen it.
  EXPECT_EQ(pl_.tracker().GetPendingAllocation("c1"), nullptr);
  handle_.claims.Add(OneGpuClaim("c2", "u2"));
  api::PodPtr other = PodUsing("p2", "c2");
  framework::CycleState s2;
  ASSERT_TRUE(PreFilter(s2, other).IsSuccess());
  EXPECT_EQ(Filter(s2, other, *n1_).Message(), "cannot allocate all claims");

  // A pod already in reservedFor needs no second write.
  handle_.claims.Update(written);
  framework::CycleState again;
  ASSERT_TRUE(PreFilter(again, pod).IsSuccess());
  EXPECT_TRUE(pl_.PreBind(again, *pod, "n1").IsSuccess());
  EXPECT_EQ(handle_.status_writes.size(), 1u);
}

TEST_F(DynamicResourcesTest, PostFilterNeedsPreFilter) {
  framework::NodeToStatus filtered;
  framework::NominatingInfo nominating;
  NoRunner runner;
  auto pod = framework::NewPodInfo(BuildPod().Obj());
  framework::CycleState skipped;
  framework::Status s = pl_.PostFilter(skipped, *pod, filtered, runner, nominating);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "not found");
  framework::CycleState ran;
  framework::PreFilterResult result;
  EXPECT_EQ(pl_.PreFilter(ran, *pod, {}, result).code(), Code::kSkip);
  s = pl_.PostFilter(ran, *pod, filtered, runner, nominating);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_TRUE(s.reasons().empty());
}

TEST_F(DynamicResourcesTest, ClaimEventsQueueOnlyPodsTheyConcern) {
  handle_.claims.Add(OneGpuClaim("c", "c1"));
  api::PodPtr pod = PodUsing("p", "c");
  framework::QueueingHintFn hint;
  for (const auto& e : pl_.EventsToRegister()) {
    if (e.event.resource == framework::EventResource::kResourceClaim) hint = e.hint;
  }
  ASSERT_TRUE(hint);
  auto mine = std::make_shared<const api::ResourceClaim>(OneGpuClaim("c", "c1"));
  auto other = std::make_shared<const api::ResourceClaim>(OneGpuClaim("o", "o1"));
  EXPECT_EQ(hint(*pod, {}, mine), framework::QueueingHint::kQueue);
  EXPECT_EQ(hint(*pod, {}, other), framework::QueueingHint::kSkip);
  // Another claim deallocated: its devices are free for everyone.
  api::ResourceClaim allocated = OneGpuClaim("o", "o1");
  allocated.allocation = api::AllocationResult{};
  EXPECT_EQ(hint(*pod, std::make_shared<const api::ResourceClaim>(allocated), other),
            framework::QueueingHint::kQueue);
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::dynamic_resources_test
