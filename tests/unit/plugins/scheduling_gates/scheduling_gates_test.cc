#include "pkg/plugins/scheduling_gates/scheduling_gates.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::plugins::scheduling_gates::scheduling_gates_test {
namespace {

using framework::Code;
using framework::EventObject;
using framework::QueueingHint;
using testing::BuildPod;

TEST(SchedulingGates, PreEnqueue) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    Code code;
    std::string message;
  } cases[] = {
      {"pod does not carry scheduling gates", BuildPod().Name("p").Obj(), Code::kSuccess, ""},
      {"pod carries scheduling gates", BuildPod().Name("p").SchedulingGates({"foo", "bar"}).Obj(),
       Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: [foo bar]"},
      {"one gate", BuildPod().Name("p").SchedulingGates({"example.com/gate"}).Obj(),
       Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: [example.com/gate]"},
  };
  SchedulingGates pl;
  for (const auto& c : cases) {
    framework::Status s = pl.PreEnqueue(*c.pod);
    EXPECT_EQ(s.code(), c.code) << c.name;
    EXPECT_EQ(s.Message(), c.message) << c.name;
  }
}

TEST(SchedulingGates, IsSchedulableAfterGatesEliminated) {
  struct Case {
    std::string name;
    api::PodPtr pod;
    EventObject old_obj, new_obj;
    QueueingHint want;
  } cases[] = {
      {"backoff-wrong-old-object", BuildPod().Obj(), testing::BuildNode().Obj(), BuildPod().Obj(),
       QueueingHint::kQueue},
      {"backoff-wrong-new-object", BuildPod().Obj(), EventObject{}, testing::BuildNode().Obj(),
       QueueingHint::kQueue},
      {"skip-queue-on-other-pod-updated",
       BuildPod().Name("p").SchedulingGates({"foo", "bar"}).UID("uid0").Obj(),
       BuildPod().Name("p1").SchedulingGates({"foo", "bar"}).UID("uid1").Obj(),
       BuildPod().Name("p1").SchedulingGates({"foo"}).UID("uid1").Obj(), QueueingHint::kSkip},
      {"queue-on-the-unsched-pod-updated", BuildPod().Name("p").SchedulingGates({"foo"}).Obj(),
       BuildPod().Name("p").SchedulingGates({"foo"}).Obj(),
       BuildPod().Name("p").SchedulingGates({}).Obj(), QueueingHint::kQueue},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsSchedulableAfterGatesEliminated(*c.pod, c.old_obj, c.new_obj), c.want) << c.name;
  }
}

TEST(SchedulingGates, EventsToRegister) {
  SchedulingGates pl;
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kTargetPod);
  EXPECT_EQ(events[0].event.action, framework::kUpdatePodSchedulingGatesEliminated);
  ASSERT_TRUE(events[0].hint);
  auto pod = BuildPod().UID("u").Obj();
  EXPECT_EQ(events[0].hint(*pod, pod, BuildPod().UID("u").Obj()), QueueingHint::kQueue);
}

TEST(SchedulingGates, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kSchedulingGates);
  EXPECT_NE(dynamic_cast<framework::PreEnqueuePlugin*>(p->get()), nullptr);
}

// The message is upstream's, as generated into tests/fixtures/failure_messages.tsv.
TEST(SchedulingGates, MessageMatchesUpstream) {
  SchedulingGates pl;
  auto s = pl.PreEnqueue(*BuildPod().Name("p").SchedulingGates({"a", "b"}).Obj());
  EXPECT_EQ(s.Message(), testing::UpstreamFailureReason("SchedulingGates.PreEnqueue"));
}

}  // namespace
}  // namespace stowage::plugins::scheduling_gates::scheduling_gates_test
