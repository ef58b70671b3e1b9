// InterPodAffinity's registered events and queueing hints (upstream plugin_test.go
// Test_isSchedulableAfterPodChange / Test_isSchedulableAfterNodeChange).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/unit/plugins/inter_pod_affinity/test_util.h"

namespace stowage::plugins::inter_pod_affinity::testutil::events_test {
namespace {

using framework::EventObject;
using framework::QueueingHint;

api::PodAffinityTerm T(std::string value, std::string topology) {
  return TermIn("service", {std::move(value)}, std::move(topology));
}
api::PodPtr Pod(std::string name, std::string node, std::string service) {
  auto p = BuildPod().Name(name).Namespace("ns").Label("service", service);
  if (!node.empty()) p.Node(node);
  return p.Obj();
}
api::NodePtr Node(stowage::testing::KeyValues labels) {
  auto b = BuildNode().Name("n");
  for (const auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}
EventObject E(api::PodPtr p) { return p; }
EventObject E(api::NodePtr n) { return n; }

class HintTest : public ::testing::Test {
 protected:
  Handle handle_;
  std::unique_ptr<InterPodAffinity> plugin_ = MakePlugin(handle_);
  // Wants a service=web pod in its zone, and no service=db pod on its host.
  api::PodPtr target_ = WithAffinity(BuildPod().Name("t").Namespace("ns").Label("service", "x"),
                                     Terms({T("web", "zone")}), Terms({T("db", "hostname")}));

  QueueingHint PodHint(EventObject old_obj, EventObject new_obj) {
    return plugin_->IsSchedulableAfterAssignedPodChange(*target_, old_obj, new_obj);
  }
  QueueingHint NodeHint(EventObject old_obj, EventObject new_obj) {
    return plugin_->IsSchedulableAfterNodeChange(*target_, old_obj, new_obj);
  }
};

TEST_F(HintTest, Registrations) {
  auto events = plugin_->EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.Label(), "AssignedPod");  // Add|UpdatePodLabel|Delete has no name
  EXPECT_EQ(events[0].event.action,
            framework::kAdd | framework::kUpdatePodLabel | framework::kDelete);
  EXPECT_EQ(events[1].event.Label(), "TargetPodUpdatePodLabel");
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.action, framework::kAdd | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[1].hint(*target_, {}, E(target_)), QueueingHint::kQueue);
}

TEST_F(HintTest, AssignedPodAdded) {
  EXPECT_EQ(PodHint({}, E(Pod("a", "n1", "web"))), QueueingHint::kQueue);
  EXPECT_EQ(PodHint({}, E(Pod("a", "n1", "other"))), QueueingHint::kSkip);
  // An unscheduled pod changes nothing for the target.
  EXPECT_EQ(PodHint({}, E(Pod("a", "", "web"))), QueueingHint::kSkip);
  // A pod in another namespace does not match the terms.
  EXPECT_EQ(
      PodHint({}, E(BuildPod().Name("a").Namespace("x").Node("n1").Label("service", "web").Obj())),
      QueueingHint::kSkip);
}

TEST_F(HintTest, AssignedPodLabelsUpdated) {
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "other")), E(Pod("a", "n1", "web"))), QueueingHint::kQueue);
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "web")), E(Pod("a", "n1", "web"))), QueueingHint::kSkip);
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "db")), E(Pod("a", "n1", "other"))), QueueingHint::kQueue);
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "other")), E(Pod("a", "n1", "db"))), QueueingHint::kSkip);
}

TEST_F(HintTest, AssignedPodDeleted) {
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "db")), {}), QueueingHint::kQueue);
  EXPECT_EQ(PodHint(E(Pod("a", "n1", "web")), {}), QueueingHint::kSkip);
  // The deleted pod's own anti-affinity rejected the target.
  auto repelling = WithAffinity(BuildPod().Name("a").Namespace("ns").Node("n1"), std::nullopt,
                                Terms({T("x", "zone")}));
  EXPECT_EQ(PodHint(E(repelling), {}), QueueingHint::kQueue);
}

TEST_F(HintTest, NodeChanges) {
  EXPECT_EQ(NodeHint({}, E(Node({{"zone", "z1"}}))), QueueingHint::kQueue);
  // The target has anti-affinity terms: any added node may help.
  EXPECT_EQ(NodeHint({}, E(Node({}))), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(E(Node({})), E(Node({{"zone", "z1"}}))), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(E(Node({{"zone", "z1"}})), E(Node({{"zone", "z2"}}))), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(E(Node({{"hostname", "h"}})), E(Node({}))), QueueingHint::kQueue);
  EXPECT_EQ(NodeHint(E(Node({{"zone", "z1"}})), E(Node({{"zone", "z1"}, {"other", "v"}}))),
            QueueingHint::kSkip);
  EXPECT_EQ(NodeHint(E(Node({{"zone", "z1"}})), E(Node({}))), QueueingHint::kSkip);
}

TEST(InterPodAffinityHints, NodeAddedWithoutTheAffinityKey) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  auto pod = WithAffinity(BuildPod().Name("t"), Terms({T("web", "zone")}));
  EXPECT_EQ(plugin->IsSchedulableAfterNodeChange(*pod, {}, E(Node({{"region", "r"}}))),
            QueueingHint::kSkip);
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::testutil::events_test
