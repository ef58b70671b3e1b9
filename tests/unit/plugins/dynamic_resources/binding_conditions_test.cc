// Devices with binding conditions: PreBind waits until the driver sets them True, fails on a
// failure condition or after bindingTimeout, and Filter lets PostFilter deallocate a claim whose
// binding failed; the event and the metrics of the wait.
#include "pkg/plugins/dynamic_resources/binding_conditions.h"

#include <gtest/gtest.h>

#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "stowage/api/time_format.h"
#include "tests/testing/builders.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"
#include "tests/unit/plugins/dynamic_resources/dra_handle.h"

namespace stowage::plugins::dynamic_resources::binding_conditions_test {
namespace {

using dra::testing::DeviceB;
using dra::testing::SliceB;
using framework::Code;
using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

// A claim of one allocated device waiting for "attached"; "failed" ends the wait.
api::ResourceClaim Allocated(std::vector<api::StatusCondition> conditions, bool with_status) {
  api::ResourceClaim c = *dra::testing::Claim("c", {dra::testing::Request("gpu")});
  c.metadata.namespace_ = "default";
  c.allocation = api::AllocationResult{.results = {{.request = "gpu",
                                                    .driver = dra::testing::kDriver,
                                                    .pool = "n1",
                                                    .device = "gpu-0",
                                                    .binding_conditions = {"attached"},
                                                    .binding_failure_conditions = {"failed"}}},
                                       .allocation_timestamp = "2026-11-30T10:00:00Z"};
  if (with_status) {
    c.device_status = {{.driver = dra::testing::kDriver,
                        .pool = "n1",
                        .device = "gpu-0",
                        .conditions = std::move(conditions)}};
  }
  return c;
}

TEST(BindingConditionsTest, ReadyOnlyWhenEveryConditionIsTrue) {
  EXPECT_FALSE(*ReadyForBinding(Allocated({}, false)));
  EXPECT_FALSE(*ReadyForBinding(Allocated({{.type = "attached", .status = "False"}}, true)));
  EXPECT_TRUE(*ReadyForBinding(Allocated({{.type = "attached", .status = "True"}}, true)));
  auto failed = ReadyForBinding(Allocated(
      {{.type = "failed", .status = "True", .reason = "NoPath", .message = "fabric \"down\""}},
      true));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "device binding failed: claim=c, reason=NoPath, message=\"fabric \\\"down\\\"\"");
  auto list = ListBindingConditions(Allocated({}, false));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].pending, (std::vector<std::string>{"attached"}));
}

TEST(BindingConditionsTest, TimedOutOnlyAfterTheTimeoutSinceAllocation) {
  api::ResourceClaim c = Allocated({}, false);
  const WallTime allocated = *api::ParseTime("2026-11-30T10:00:00Z");
  EXPECT_FALSE(BindingTimedOut(c, std::chrono::minutes(10), allocated + std::chrono::minutes(9)));
  EXPECT_TRUE(BindingTimedOut(c, std::chrono::minutes(10), allocated + std::chrono::minutes(11)));
  c.allocation->allocation_timestamp.reset();
  EXPECT_FALSE(BindingTimedOut(c, std::chrono::minutes(10), allocated + std::chrono::hours(1)));
}

// A clock whose every sleep runs a step of the test (the driver acting meanwhile).
class SteppingClock final : public FakeClock {
 public:
  std::function<void()> on_sleep;
  bool Sleep(Duration d, std::stop_token stop = {}) override {
    if (on_sleep) on_sleep();
    return FakeClock::Sleep(d, stop);
  }
};

class BindingWaitTest : public ::testing::Test {
 protected:
  BindingWaitTest() {
    handle_.classes.Add(*dra::testing::Class(dra::testing::kClass));
    api::Device gpu = DeviceB("gpu-0").BindingConditions({"attached"});
    gpu.binding_failure_conditions = {"failed"};
    handle_.slices.Add(*SliceB("n1-gpus", "n1", "n1").Devices({gpu}).Obj());
    api::ResourceClaim c = *dra::testing::Claim("c", {dra::testing::Request("gpu")});
    c.metadata.namespace_ = "default";
    c.metadata.uid = "c-uid";
    c.metadata.resource_version = "1";
    handle_.claims.Add(c);
    n1_ = stowage::testing::MakeNodeInfo(BuildNode().Name("n1").Obj());
    pod_ = BuildPod()
               .Name("p")
               .Namespace("default")
               .UID("p-uid")
               .SchedulerName("default-scheduler")
               .ResourceClaims({{"gpu", "c", std::nullopt}})
               .Obj();
  }

  // Schedules the pod to n1 up to PreBind, which it returns.
  framework::Status ScheduleAndPreBind(framework::CycleState& state) {
    framework::PreFilterResult result;
    EXPECT_TRUE(pl_.PreFilter(state, *framework::NewPodInfo(pod_), {}, result).IsSuccess());
    EXPECT_TRUE(pl_.Filter(state, *framework::NewPodInfo(pod_), *n1_).IsSuccess());
    EXPECT_TRUE(pl_.Reserve(state, *pod_, "n1").IsSuccess());
    return pl_.PreBind(state, *pod_, "n1");
  }

  // The driver's view: the claim as PreBind wrote it, with the device's condition set.
  void DriverSets(std::string type) {
    api::ResourceClaim c = handle_.status_writes.back();
    c.metadata.resource_version = std::to_string(500 + ++writes_);
    c.device_status = {{.driver = dra::testing::kDriver,
                        .pool = "n1",
                        .device = "gpu-0",
                        .conditions = {{.type = std::move(type), .status = "True"}}}};
    handle_.claims.Update(c);
  }

  DraHandle handle_;
  dra::testing::FakeSelectorCompiler compiler_;
  SteppingClock clock_;
  DynamicResources pl_{
      handle_, compiler_, dra::Features{}, std::chrono::nanoseconds(0), std::chrono::seconds(60),
      clock_};
  std::shared_ptr<framework::NodeInfo> n1_;
  api::PodPtr pod_;
  int writes_ = 0;
};

TEST_F(BindingWaitTest, PreBindWaitsUntilTheDriverSetsTheCondition) {
  int sleeps = 0;
  clock_.on_sleep = [&] {
    if (++sleeps == 2) DriverSets("attached");
  };
  framework::CycleState state;
  ASSERT_TRUE(ScheduleAndPreBind(state).IsSuccess());
  EXPECT_EQ(sleeps, 2);
  auto events = handle_.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, "BindingConditionsPending");
  EXPECT_EQ(events[0].note, "waiting for binding conditions for device on node n1");
  EXPECT_EQ(handle_.metrics.seen,
            (std::vector<std::string>{"default-scheduler/driver.example.com/success wait",
                                      "default-scheduler/driver.example.com/success"}));
}

TEST_F(BindingWaitTest, AFailureConditionEndsTheWaitAndTheClaimIsDeallocated) {
  clock_.on_sleep = [&] { DriverSets("failed"); };
  framework::CycleState state;
  framework::Status s = ScheduleAndPreBind(state);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "device binding failed: claim=c, reason=, message=\"\"");
  EXPECT_EQ(handle_.metrics.seen.front(), "default-scheduler/driver.example.com/failed wait");
  pl_.Unreserve(state, *pod_, "n1");

  // The next attempt: the claim's binding failed, so n1 does not fit and PostFilter deallocates.
  framework::CycleState again;
  framework::PreFilterResult result;
  ASSERT_TRUE(pl_.PreFilter(again, *framework::NewPodInfo(pod_), {}, result).IsSuccess());
  framework::Status on_n1 = pl_.Filter(again, *framework::NewPodInfo(pod_), *n1_);
  EXPECT_EQ(on_n1.Message(), "resourceclaim not available on the node");
  framework::NodeToStatus filtered;
  framework::NominatingInfo nominating;
  NoRunner runner;
  framework::Status post =
      pl_.PostFilter(again, *framework::NewPodInfo(pod_), filtered, runner, nominating);
  EXPECT_EQ(post.Message(), "deallocation of ResourceClaim completed");
  EXPECT_FALSE(handle_.status_writes.back().allocation.has_value());
}

TEST_F(BindingWaitTest, TheWaitEndsAtBindingTimeout) {
  framework::CycleState state;
  framework::Status s = ScheduleAndPreBind(state);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message().rfind("device binding timeout", 0), 0u) << s.Message();
  EXPECT_EQ(handle_.metrics.seen.front(), "default-scheduler/driver.example.com/timeout wait");
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::binding_conditions_test
