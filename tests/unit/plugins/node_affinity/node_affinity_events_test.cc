// NodeAffinity EventsToRegister and its queueing hint, mirroring upstream
// nodeaffinity/node_affinity_test.go Test_isSchedulableAfterNodeChange.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/node_affinity/node_affinity.h"
#include "tests/unit/plugins/node_affinity/test_util.h"

namespace stowage::plugins::node_affinity::testutil::node_affinity_events_test {
namespace {

using framework::Code;

TEST(NodeAffinityEvents, Registration) {
  auto plugin = MakePlugin(std::nullopt);
  auto events = dynamic_cast<NodeAffinity&>(*plugin).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.action, framework::kAdd | framework::kUpdateNodeLabel);
  ASSERT_TRUE(events[0].hint);
  auto pod = BuildPod().NodeAffinityIn("foo", {"bar"}).Obj();
  EXPECT_EQ(events[0].hint(*pod, {}, BuildNode().Label("foo", "bar").Obj()),
            framework::QueueingHint::kQueue);
}

TEST(NodeAffinityEvents, IsSchedulableAfterNodeChange) {
  using framework::EventObject;
  using framework::QueueingHint;
  const api::PodPtr pod = BuildPod().NodeAffinityIn("foo", {"bar"}).Obj();
  const EventObject none;
  auto node = [](stowage::testing::KeyValues labels) -> EventObject {
    auto b = BuildNode();
    for (const auto& [k, v] : labels) b.Label(k, v);
    return b.Obj();
  };
  const api::NodeAffinity enforced = Required({Expr({R("foo", "In", {"bar"})})});
  struct Case {
    std::string name;
    std::optional<api::NodeAffinity> added;
    api::PodPtr pod;
    EventObject old_obj, new_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-new-object", std::nullopt, pod, none, EventObject(BuildPod().Obj()),
       QueueingHint::kQueue},
      {"backoff-wrong-old-object", std::nullopt, pod, EventObject(BuildPod().Obj()), node({}),
       QueueingHint::kQueue},
      {"skip-queue-on-add", std::nullopt, pod, none, node({}), QueueingHint::kSkip},
      {"queue-on-add", std::nullopt, pod, none, node({{"foo", "bar"}}), QueueingHint::kQueue},
      {"skip-unrelated-changes", std::nullopt, pod, node({}), node({}), QueueingHint::kSkip},
      {"skip-unrelated-changes-on-labels", std::nullopt, pod, node({}), node({{"k", "v"}}),
       QueueingHint::kSkip},
      {"skip-labels-changes-on-node-from-suitable-to-unsuitable", std::nullopt, pod,
       node({{"foo", "bar"}}), node({{"k", "v"}}), QueueingHint::kSkip},
      {"queue-on-labels-change-makes-pod-schedulable", std::nullopt, pod, node({}),
       node({{"foo", "bar"}}), QueueingHint::kQueue},
      {"skip-unrelated-change-that-keeps-pod-schedulable", std::nullopt, pod,
       node({{"foo", "bar"}}), node({{"foo", "bar"}}), QueueingHint::kSkip},
      {"skip-queue-on-add-scheduler-enforced-node-affinity", enforced, pod, none, node({}),
       QueueingHint::kSkip},
      {"queue-on-add-scheduler-enforced-node-affinity", enforced, pod, none, node({{"foo", "bar"}}),
       QueueingHint::kQueue},
      // An invalid required term makes upstream's Match error when nothing matched: Queue.
      {"queue-on-parse-error", std::nullopt,
       PodRequiring({Expr({R("foo", "In", {"invalid value: ___@#$%^"})})}), none, node({}),
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    auto plugin = MakePlugin(c.added);
    EXPECT_EQ(dynamic_cast<NodeAffinity&>(*plugin).IsSchedulableAfterNodeChange(*c.pod, c.old_obj,
                                                                                c.new_obj),
              c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace stowage::plugins::node_affinity::testutil::node_affinity_events_test
