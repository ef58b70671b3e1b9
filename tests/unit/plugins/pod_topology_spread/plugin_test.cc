// PodTopologySpread's factory, DefaultSelector over fake listers, and the queueing hints
// (the situations upstream's plugin_test.go and helper/spread_test.go cover).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "tests/unit/plugins/pod_topology_spread/test_util.h"

namespace stowage::plugins::pod_topology_spread::testutil::plugin_test {
namespace {

using framework::EventObject;
using framework::QueueingHint;
constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kSkip;

TEST(PodTopologySpreadTest, NameMatchesTheRegistry) { EXPECT_EQ(kName, names::kPodTopologySpread); }

// --- DefaultSelector

class DefaultSelectorTest : public ::testing::Test {
 protected:
  DefaultSelectorTest() {
    handle_.services_list.Add(Service("test", "svc", {{"app", "web"}}));
    handle_.services_list.Add(Service("test", "no-selector", {}));
    handle_.services_list.Add(Service("other", "svc2", {{"app", "web"}, {"other", "x"}}));
    handle_.replica_sets_list.Add(
        ReplicaSet("test", "rs", BuildLabelSelector().Label("rs", "a").Exists("tier").Obj()));
    handle_.replica_sets_list.Add(ReplicaSet("test", "rs-null", std::nullopt));
    api::StatefulSet ss;
    ss.metadata = {.name = "ss", .namespace_ = "test"};
    ss.selector = BuildLabelSelector().Label("ss", "b").Obj();
    handle_.stateful_sets_list.Add(ss);
    api::ReplicationController rc;
    rc.metadata = {.name = "rc", .namespace_ = "test"};
    rc.selector = stowage::testing::MakeStringMap({{"rc", "c"}});
    handle_.rcs_list.Add(rc);
  }
  std::string SelectorOf(const api::PodPtr& pod) {
    WorkloadListers listers{handle_.services(), handle_.replication_controllers(),
                            handle_.replica_sets(), handle_.stateful_sets()};
    return DefaultSelector(*pod, listers).String();
  }
  stowage::testing::PodWrapper Pod() {
    return BuildPod().Name("p").Namespace("test").Label("app", "web");
  }
  ListerHandle handle_;
};

TEST_F(DefaultSelectorTest, NothingSelectsThePod) {
  EXPECT_EQ(SelectorOf(BuildPod().Name("p").Namespace("test").Label("app", "db").Obj()), "");
}
TEST_F(DefaultSelectorTest, ServicesOfThePodsNamespaceOnly) {
  EXPECT_EQ(SelectorOf(Pod().Obj()), "app=web");
}
TEST_F(DefaultSelectorTest, ReplicaSetRequirementsAreAdded) {
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("rs", "ReplicaSet", "apps/v1").Obj()),
            "app=web,rs in (a),tier");
}
TEST_F(DefaultSelectorTest, ReplicaSetWithoutSelectorAddsNothing) {
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("rs-null", "ReplicaSet", "apps/v1").Obj()), "app=web");
}
TEST_F(DefaultSelectorTest, StatefulSetAndReplicationController) {
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("ss", "StatefulSet", "apps/v1").Obj()),
            "app=web,ss in (b)");
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("rc", "ReplicationController", "v1").Obj()),
            "app=web,rc=c");
}
TEST_F(DefaultSelectorTest, UnknownOrMissingOwnersAreIgnored) {
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("rs", "ReplicaSet", "extensions/v1beta1").Obj()),
            "app=web");
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("gone", "ReplicaSet", "apps/v1").Obj()), "app=web");
  EXPECT_EQ(SelectorOf(Pod().OwnerReference("d", "Deployment", "apps/v1").Obj()), "app=web");
}

// --- factory

TEST(FactoryTest, SystemDefaultsApplyOnlyToPodsWithoutConstraints) {
  ListerHandle handle;
  handle.services_list.Add(Service("", "svc", {{"foo", ""}}));
  auto pl = MakePlugin(handle, SystemArgs());
  auto constraints = pl->GetConstraints(*BuildPod().Label("foo", "").Obj(), kAnyway);
  ASSERT_TRUE(constraints.ok());
  ASSERT_EQ(constraints->size(), 2u);
  EXPECT_EQ((*constraints)[0].selector.String(), "foo=");
  // Its own constraints replace the defaults.
  auto own = pl->GetConstraints(
      *BuildPod().Label("foo", "").SpreadConstraint(1, "rack", kDoNot, BarSelector()).Obj(),
      kAnyway);
  ASSERT_TRUE(own.ok());
  EXPECT_TRUE(own->empty());
}

TEST(FactoryTest, ListDefaultingWithoutConstraintsHasNoDefaults) {
  ListerHandle handle;
  handle.services_list.Add(Service("", "svc", {{"foo", ""}}));
  auto pl = MakePlugin(handle, ListArgs());
  auto constraints = pl->GetConstraints(*BuildPod().Label("foo", "").Obj(), kAnyway);
  ASSERT_TRUE(constraints.ok());
  EXPECT_TRUE(constraints->empty());
}

TEST(FactoryTest, ListDefaultsKeepTheirAction) {
  ListerHandle handle;
  handle.services_list.Add(Service("", "svc", {{"foo", ""}}));
  api::TopologySpreadConstraint rack;
  rack.max_skew = 2;
  rack.topology_key = "rack";
  rack.when_unsatisfiable = kDoNot;
  auto pl = MakePlugin(handle, ListArgs({rack}));
  auto hard = pl->GetConstraints(*BuildPod().Label("foo", "").Obj(), kDoNot);
  ASSERT_TRUE(hard.ok());
  ASSERT_EQ(hard->size(), 1u);
  EXPECT_EQ((*hard)[0].topology_key, "rack");
  EXPECT_TRUE(pl->GetConstraints(*BuildPod().Label("foo", "").Obj(), kAnyway)->empty());
}

// --- queueing hints

class HintTest : public ::testing::Test {
 protected:
  HintTest() : plugin_(MakePlugin(handle_, ListArgs())) {}
  ListerHandle handle_;
  std::unique_ptr<PodTopologySpread> plugin_;
};

// The pod waits on zone and node constraints over pods labelled foo.
api::PodPtr Waiting() {
  return BuildPod()
      .Name("p")
      .Label("foo", "")
      .SpreadConstraint(1, "zone", kDoNot, FooSelector())
      .SpreadConstraint(1, "node", kDoNot, FooSelector())
      .Obj();
}
EventObject N(api::NodePtr n) { return n; }
// A copy of a builder, to extend without changing the original.
template <typename W>
W Copy(const W& w) {
  return w;
}
EventObject P(api::PodPtr p) { return p; }

TEST_F(HintTest, EventsToRegister) {
  auto events = plugin_->EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.Label(), "AssignedPod");
  EXPECT_EQ(events[0].event.action,
            framework::kAdd | framework::kUpdatePodLabel | framework::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kTargetPod);
  EXPECT_EQ(events[1].event.action, framework::kUpdatePodToleration | framework::kUpdatePodLabel);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.action, framework::kAdd | framework::kDelete |
                                        framework::kUpdateNodeLabel | framework::kUpdateNodeTaint);
  for (const auto& e : events) EXPECT_TRUE(e.hint);
}

TEST_F(HintTest, NodeChanges) {
  auto both = BuildNode().Name("n").Label("zone", "z1").Label("node", "n");
  auto zone_only = BuildNode().Name("n").Label("zone", "z1");
  auto pod = Waiting();
  auto hint = [&](EventObject o, EventObject n) {
    return plugin_->IsSchedulableAfterNodeChange(*pod, o, n);
  };
  EXPECT_EQ(hint({}, N(both.Obj())), kQueue);
  EXPECT_EQ(hint({}, N(zone_only.Obj())), kSkip);  // only one of the keys
  EXPECT_EQ(hint(N(both.Obj()), {}), kQueue);
  EXPECT_EQ(hint(N(zone_only.Obj()), {}), kSkip);
  EXPECT_EQ(hint(N(zone_only.Obj()), N(both.Obj())), kQueue);  // gains the missing key
  EXPECT_EQ(
      hint(N(both.Obj()), N(BuildNode().Name("n").Label("zone", "z2").Label("node", "n").Obj())),
      kQueue);  // moves zone
  // Copies: the builders change in place and arguments are evaluated in any order.
  EXPECT_EQ(hint(N(both.Obj()), N(Copy(both).Label("other", "x").Obj())), kSkip);
  EXPECT_EQ(hint(N(both.Obj()), N(Copy(both).Taint("t", "", "NoSchedule").Obj())), kQueue);
  EXPECT_EQ(hint(N(zone_only.Obj()), N(Copy(zone_only).Taint("t", "", "NoSchedule").Obj())), kSkip);
}

TEST_F(HintTest, AssignedPodChanges) {
  auto pod = Waiting();
  auto hint = [&](EventObject o, EventObject n) {
    return plugin_->IsSchedulableAfterAssignedPodChange(*pod, o, n);
  };
  EXPECT_EQ(hint({}, P(FooPod("q", "node-a"))), kQueue);
  EXPECT_EQ(hint({}, P(BuildPod().Name("q").Node("node-a").Label("bar", "").Obj())), kSkip);
  EXPECT_EQ(hint({}, P(BuildPod().Name("q").Label("foo", "").Obj())), kSkip);  // unscheduled
  EXPECT_EQ(hint({}, P(BuildPod().Name("q").Namespace("ns1").Node("a").Label("foo", "").Obj())),
            kSkip);
  EXPECT_EQ(hint(P(FooPod("q", "node-a")), {}), kQueue);
  EXPECT_EQ(hint(P(BuildPod().Name("q").NominatedNodeName("a").Label("foo", "").Obj()), {}),
            kQueue);
  EXPECT_EQ(hint(P(BuildPod().Name("q").NominatedNodeName("a").Label("bar", "").Obj()), {}), kSkip);
  auto before = BuildPod().Name("q").Node("node-a").Label("foo", "");
  EXPECT_EQ(hint(P(before.Obj()), P(Copy(before).Label("unrelated", "x").Obj())), kSkip);
  EXPECT_EQ(hint(P(BuildPod().Name("q").Node("a").Label("bar", "").Obj()),
                 P(BuildPod().Name("q").Node("a").Label("foo", "").Obj())),
            kQueue);
}

TEST_F(HintTest, TargetPodChanges) {
  auto honor = BuildPod().Name("p").Label("foo", "").SpreadConstraint(
      1, "node", kDoNot, FooSelector(), std::nullopt, std::nullopt, "Honor");
  auto plain =
      BuildPod().Name("p").Label("foo", "").SpreadConstraint(1, "node", kDoNot, BarSelector());
  auto target = [&](const api::PodPtr& o, const api::PodPtr& n) {
    return plugin_->IsSchedulableAfterTargetPodChange(*o, P(o), P(n));
  };
  EXPECT_EQ(target(honor.Obj(), Copy(honor).Toleration("t").Obj()), kQueue);
  EXPECT_EQ(target(plain.Obj(), Copy(plain).Toleration("t").Obj()), kSkip);
  EXPECT_EQ(target(plain.Obj(), Copy(plain).Label("bar", "").Obj()), kQueue);
  EXPECT_EQ(target(plain.Obj(), Copy(plain).Label("unrelated", "").Obj()), kSkip);
}

}  // namespace
}  // namespace stowage::plugins::pod_topology_spread::testutil::plugin_test
