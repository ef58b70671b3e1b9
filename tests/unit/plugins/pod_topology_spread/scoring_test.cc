// PodTopologySpread PreScore, Score and NormalizeScore: the final scores of the feasible nodes
// for the situations upstream's scoring_test.go covers (hostname and zone constraints, nodes
// that failed Filter, nodes missing a key, different selectors, namespaces, terminating pods,
// inclusion policies, matchLabelKeys, system defaults), and the PreScore state itself.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/plugins/pod_topology_spread/test_util.h"

namespace stowage::plugins::pod_topology_spread::testutil::scoring_test {
namespace {

using Scores = std::vector<std::pair<std::string, int64_t>>;

struct ScoreCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;   // feasible
  std::vector<api::NodePtr> failed;  // in the snapshot, not feasible
  std::vector<api::PodPtr> existing;
  Scores want;
  std::vector<api::Service> services = {};
};
void PrintTo(const ScoreCase& c, std::ostream* os) { *os << c.name; }

class ScoreTest : public ::testing::TestWithParam<ScoreCase> {};

TEST_P(ScoreTest, NormalizedScores) {
  const ScoreCase& tc = GetParam();
  ListerHandle handle;
  for (const api::Service& s : tc.services) handle.services_list.Add(s);
  std::vector<api::NodePtr> all = tc.nodes;
  all.insert(all.end(), tc.failed.begin(), tc.failed.end());
  handle.SetNodes(all, tc.existing);
  auto pl = MakePlugin(handle, SystemArgs());

  std::vector<const framework::NodeInfo*> feasible;
  for (const api::NodePtr& n : tc.nodes) {
    feasible.push_back(handle.SnapshotSharedLister().Get(n->metadata.name));
  }
  framework::CycleState state;
  framework::PodInfoPtr pod = framework::NewPodInfo(tc.pod);
  framework::Status pre = pl->PreScore(state, *pod, feasible);
  ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  framework::NodeScoreList scores;
  for (const framework::NodeInfo* node : feasible) {
    int64_t score = 0;
    framework::Status s = pl->Score(state, *pod, *node, score);
    ASSERT_TRUE(s.IsSuccess()) << s.Message();
    scores.push_back({node->name(), score});
  }
  ASSERT_TRUE(pl->NormalizeScore(state, *pod, scores).IsSuccess());
  Scores got;
  for (const framework::NodeScore& s : scores) got.emplace_back(std::string(s.name), s.score);
  EXPECT_EQ(got, tc.want);
}

api::NodePtr Host(const std::string& name) {
  return BuildNode().Name(name).Label(kHostname, name).Obj();
}
api::NodePtr HostZone(const std::string& name, const std::string& zone) {
  return BuildNode().Name(name).Label(kHostname, name).Label("zone", zone).Obj();
}
api::NodePtr NodeLabel(const std::string& name) {
  return BuildNode().Name(name).Label("node", name).Obj();
}
stowage::testing::PodWrapper Foo() { return BuildPod().Name("p").Label("foo", ""); }
api::PodPtr HostFoo(int32_t max_skew = 1) {
  return Foo().SpreadConstraint(max_skew, kHostname, kAnyway, FooSelector()).Obj();
}
// n matching pods named prefix<i> on node.
std::vector<api::PodPtr> Pods(const std::string& node, int n) {
  std::vector<api::PodPtr> out;
  for (int i = 0; i < n; ++i) out.push_back(FooPod(node + "-p" + std::to_string(i), node));
  return out;
}
std::vector<api::PodPtr> Concat(std::vector<std::vector<api::PodPtr>> parts) {
  std::vector<api::PodPtr> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
api::PodPtr Labelled(const std::string& name, const std::string& node,
                     stowage::testing::KeyValues labels) {
  return BuildPod().Name(name).Node(node).Labels(labels).Obj();
}
const std::vector<api::Taint> kTaint = {{"taint", "", "NoSchedule"}};

INSTANTIATE_TEST_SUITE_P(
    Upstream, ScoreTest,
    ::testing::Values(
        ScoreCase{"hostname, no pods: all equal",
                  HostFoo(),
                  {Host("node-a"), Host("node-b")},
                  {},
                  {},
                  {{"node-a", 100}, {"node-b", 100}}},
        ScoreCase{"a single candidate scores 100",
                  HostFoo(),
                  {Host("node-a")},
                  {Host("node-b")},
                  Concat({Pods("node-a", 2), Pods("node-b", 1)}),
                  {{"node-a", 100}}},
        ScoreCase{"hostname 2/1/0/3",
                  HostFoo(),
                  {Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")},
                  {},
                  Concat({Pods("node-a", 2), Pods("node-b", 1), Pods("node-d", 3)}),
                  {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
        ScoreCase{"a null selector counts nothing",
                  Foo().SpreadConstraint(1, kHostname, kAnyway, std::nullopt).Obj(),
                  {Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")},
                  {},
                  Concat({Pods("node-a", 2), Pods("node-b", 1), Pods("node-d", 3)}),
                  {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}}},
        ScoreCase{"hostname 2/1/0/3, maxSkew 2",
                  HostFoo(2),
                  {Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")},
                  {},
                  Concat({Pods("node-a", 2), Pods("node-b", 1), Pods("node-d", 3)}),
                  {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
        ScoreCase{
            "hostname 4/3/2/1, maxSkew 3",
            HostFoo(3),
            {Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")},
            {},
            Concat({Pods("node-a", 4), Pods("node-b", 3), Pods("node-c", 2), Pods("node-d", 1)}),
            {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
        ScoreCase{
            "system defaults over a service, nodes without zones",
            Foo().Obj(),
            {Host("node-a"), Host("node-b"), Host("node-c"), Host("node-d")},
            {},
            Concat({Pods("node-a", 4), Pods("node-b", 3), Pods("node-c", 2), Pods("node-d", 1)}),
            {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}},
            {Service("", "svc", {{"foo", ""}})}},
        ScoreCase{
            "hostname 4/2/1 with a failed node",
            HostFoo(),
            {Host("node-a"), Host("node-b"), Host("node-x")},
            {Host("node-y")},
            Concat({Pods("node-a", 4), Pods("node-b", 2), Pods("node-x", 1), Pods("node-y", 3)}),
            {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
        ScoreCase{
            "a feasible node without the key is ignored",
            HostFoo(),
            {Host("node-a"), BuildNode().Name("node-b").Label("n", "node-b").Obj(), Host("node-x")},
            {Host("node-y")},
            Concat({Pods("node-a", 4), Pods("node-b", 2), Pods("node-x", 1), Pods("node-y", 3)}),
            {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
        ScoreCase{
            "zone, 3 of 4 nodes feasible",
            Foo().SpreadConstraint(1, "zone", kAnyway, FooSelector()).Obj(),
            {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-x", "zone2")},
            {HostZone("node-y", "zone2")},
            Concat({Pods("node-a", 4), Pods("node-b", 2), Pods("node-x", 1), Pods("node-y", 3)}),
            {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
        ScoreCase{
            "zone and hostname, 2 of 4 nodes feasible",
            Foo()
                .SpreadConstraint(1, "zone", kAnyway, FooSelector())
                .SpreadConstraint(1, kHostname, kAnyway, FooSelector())
                .Obj(),
            {HostZone("node-a", "zone1"), HostZone("node-x", "zone2")},
            {HostZone("node-b", "zone1"), HostZone("node-y", "zone2")},
            Concat({Pods("node-a", 2), Pods("node-b", 1), Pods("node-x", 2), Pods("node-y", 4)}),
            {{"node-a", 100}, {"node-x", 63}}},
        ScoreCase{
            "zone and hostname with different selectors",
            Foo()
                .Label("bar", "")
                .SpreadConstraint(1, "zone", kAnyway, FooSelector())
                .SpreadConstraint(1, kHostname, kAnyway, BarSelector())
                .Obj(),
            {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-x", "zone2"),
             HostZone("node-y", "zone2")},
            {},
            {Labelled("p-a1", "node-a", {{"foo", ""}}),
             Labelled("p-b1", "node-b", {{"foo", ""}, {"bar", ""}}),
             Labelled("p-y1", "node-y", {{"foo", ""}}), Labelled("p-y2", "node-y", {{"bar", ""}})},
            {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
        ScoreCase{
            "different selectors, some nodes empty",
            Foo()
                .Label("bar", "")
                .SpreadConstraint(1, "zone", kAnyway, FooSelector())
                .SpreadConstraint(1, kHostname, kAnyway, BarSelector())
                .Obj(),
            {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-x", "zone2"),
             HostZone("node-y", "zone2")},
            {},
            {Labelled("p-b1", "node-b", {{"bar", ""}}), Labelled("p-x1", "node-x", {{"foo", ""}}),
             Labelled("p-y1", "node-y", {{"foo", ""}, {"bar", ""}})},
            {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
        ScoreCase{"pods of other namespaces do not count",
                  HostFoo(),
                  {Host("node-a"), Host("node-b")},
                  {},
                  {BuildPod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
                   FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b")},
                  {{"node-a", 100}, {"node-b", 33}}},
        ScoreCase{"terminating pods do not count",
                  HostFoo(),
                  {Host("node-a"), Host("node-b")},
                  {},
                  {BuildPod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
                   FooPod("p-b", "node-b")},
                  {{"node-a", 100}, {"node-b", 0}}},
        ScoreCase{"minDomains does not affect scoring",
                  Foo().SpreadConstraint(2, "node", kAnyway, FooSelector(), 10).Obj(),
                  {NodeLabel("node-a"), NodeLabel("node-b"), NodeLabel("node-c")},
                  {},
                  Concat({Pods("node-a", 2), Pods("node-b", 2), Pods("node-c", 1)}),
                  {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
        ScoreCase{"nodeTaintsPolicy Honor: the untolerated node's pods do not count",
                  Foo()
                      .SpreadConstraint(1, "node", kAnyway, FooSelector(), std::nullopt,
                                        std::nullopt, "Honor")
                      .Obj(),
                  {NodeLabel("node-a"), NodeLabel("node-b"),
                   BuildNode().Name("node-c").Label("node", "node-c").Taints(kTaint).Obj()},
                  {},
                  Concat({Pods("node-a", 2), Pods("node-b", 1), Pods("node-c", 1)}),
                  {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
        ScoreCase{
            "matchLabelKeys narrows the hostname selector",
            Foo()
                .Label("bar", "")
                .Label("baz", "")
                .SpreadConstraint(1, "zone", kAnyway, FooSelector())
                .SpreadConstraint(1, kHostname, kAnyway, BarSelector(), std::nullopt, std::nullopt,
                                  std::nullopt, {"baz"})
                .Obj(),
            {HostZone("node-a", "zone1"), HostZone("node-b", "zone1"), HostZone("node-c", "zone2"),
             HostZone("node-d", "zone2")},
            {},
            {Labelled("p-a1", "node-a", {{"foo", ""}}),
             Labelled("p-b1", "node-b", {{"foo", ""}, {"bar", ""}, {"baz", ""}}),
             Labelled("p-c1", "node-c", {{"foo", ""}}), Labelled("p-c2", "node-c", {{"bar", ""}}),
             Labelled("p-d3", "node-c", {{"bar", ""}, {"baz", ""}})},
            {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}}));

TEST(PreScoreTest, SystemDefaultsFromAReplicaSetCountNodesWithoutZoneAsOneDomain) {
  ListerHandle handle;
  handle.replica_sets_list.Add(ReplicaSet("default", "rs1", FooSelector()));
  const std::vector<api::NodePtr> nodes = {BuildNode()
                                               .Name("node-a")
                                               .Label(kHostname, "node-a")
                                               .Label(kLabelTopologyZone.data(), "mars")
                                               .Obj(),
                                           BuildNode()
                                               .Name("node-b")
                                               .Label(kHostname, "node-b")
                                               .Label(kLabelTopologyZone.data(), "mars")
                                               .Obj(),
                                           Host("node-c"), Host("node-d")};
  handle.SetNodes(nodes);
  auto pl = MakePlugin(handle, SystemArgs());
  auto pod = framework::NewPodInfo(BuildPod()
                                       .Name("p")
                                       .Namespace("default")
                                       .Label("foo", "tar")
                                       .OwnerReference("rs1", "ReplicaSet", "apps/v1")
                                       .Obj());
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, *pod, handle.SnapshotSharedLister().List()).IsSuccess());
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->constraints.size(), 2u);
  EXPECT_EQ(s->constraints[0].topology_key, kHostname);
  EXPECT_EQ(s->constraints[0].max_skew, 3);
  EXPECT_EQ(s->constraints[1].topology_key, kLabelTopologyZone);
  EXPECT_EQ(s->constraints[1].max_skew, 5);
  EXPECT_EQ(s->constraints[1].selector.String(), "foo");
  EXPECT_TRUE(s->ignored_nodes.empty());
  // Hostname counts come from each node in Score; zone has "mars" and the missing value "".
  EXPECT_TRUE(s->counts[0].empty());
  EXPECT_EQ(s->counts[1].size(), 2u);
  EXPECT_TRUE(s->counts[1].contains("mars"));
  EXPECT_TRUE(s->counts[1].contains(""));
  EXPECT_DOUBLE_EQ(s->weights[0], std::log(6.0));
  EXPECT_DOUBLE_EQ(s->weights[1], std::log(4.0));
}

TEST(PreScoreTest, SkipsWithoutScheduleAnywayConstraints) {
  ListerHandle handle;
  handle.SetNodes({Host("node-a")});
  auto pl = MakePlugin(handle, SystemArgs());
  framework::CycleState state;
  auto hard = framework::NewPodInfo(Foo().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj());
  EXPECT_TRUE(pl->PreScore(state, *hard, handle.SnapshotSharedLister().List()).IsSkip());
  // System defaults apply only when something selects the pod.
  handle.replica_sets_list.Add(ReplicaSet("", "rs1", BarSelector()));
  auto owned = framework::NewPodInfo(Foo().OwnerReference("rs2", "ReplicaSet", "apps/v1").Obj());
  EXPECT_TRUE(pl->PreScore(state, *owned, handle.SnapshotSharedLister().List()).IsSkip());
}

}  // namespace
}  // namespace stowage::plugins::pod_topology_spread::testutil::scoring_test
