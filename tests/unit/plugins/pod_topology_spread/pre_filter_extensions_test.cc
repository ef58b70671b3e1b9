// AddPod and RemovePod: the state they leave must equal the state PreFilter computes from
// scratch on the cluster with the pod added or removed (counts per domain, global minimum and
// so every Filter verdict), for the situations upstream's TestPreFilterStateAddPod/RemovePod
// cover: critical and non-critical domains, other namespaces, selectors that do not match, and
// nodes that the inclusion policies keep out.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/plugins/pod_topology_spread/test_util.h"

namespace stowage::plugins::pod_topology_spread::testutil::pre_filter_extensions_test {
namespace {

struct UpdateCase {
  std::string name;
  api::PodPtr pod;  // the pod being scheduled
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  api::PodPtr changed;  // added to (or removed from) the node its spec.nodeName names
};
void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.name; }

struct Run {
  ListerHandle handle;
  std::unique_ptr<PodTopologySpread> plugin;
  framework::CycleState state;
};

// Builds the cluster and runs PreFilter for pod.
std::unique_ptr<Run> PreFilterOn(const api::PodPtr& pod, const std::vector<api::NodePtr>& nodes,
                                 const std::vector<api::PodPtr>& existing) {
  auto run = std::make_unique<Run>();
  run->handle.SetNodes(nodes, existing);
  run->plugin = MakePlugin(run->handle, ListArgs());
  framework::PreFilterResult result;
  framework::Status s = run->plugin->PreFilter(run->state, *framework::NewPodInfo(pod),
                                               run->handle.SnapshotSharedLister().List(), result);
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  return run;
}

const framework::NodeInfo& NodeOf(const Run& run, const std::string& name) {
  const framework::NodeInfo* info = run.handle.SnapshotSharedLister().Get(name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

// The same counts per domain and global minimum per constraint, and the same Filter verdicts.
void ExpectSameState(Run& got, Run& want, const api::PodPtr& pod) {
  const auto* g = got.state.Read<PreFilterState>(kPreFilterStateKey);
  const auto* w = want.state.Read<PreFilterState>(kPreFilterStateKey);
  ASSERT_NE(g, nullptr);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(g->counts.size(), w->counts.size());
  for (size_t i = 0; i < g->counts.size(); ++i) {
    EXPECT_EQ(g->CountsForTest(i), w->CountsForTest(i)) << "constraint " << i;
    EXPECT_EQ(g->MinMatchNum(i), w->MinMatchNum(i)) << "constraint " << i;
  }
  const framework::PodInfoPtr info = framework::NewPodInfo(pod);
  for (const framework::NodeInfo* node : want.handle.SnapshotSharedLister().List()) {
    EXPECT_EQ(got.plugin->Filter(got.state, *info, NodeOf(got, node->name())).code(),
              want.plugin->Filter(want.state, *info, *node).code())
        << node->name();
  }
}

class AddPodTest : public ::testing::TestWithParam<UpdateCase> {};
class RemovePodTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(AddPodTest, MatchesPreFilterWithThePodAdded) {
  const UpdateCase& tc = GetParam();
  auto got = PreFilterOn(tc.pod, tc.nodes, tc.existing);
  framework::Status s = got->plugin->AddPod(got->state, *tc.pod, *framework::NewPodInfo(tc.changed),
                                            NodeOf(*got, tc.changed->spec.node_name));
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  std::vector<api::PodPtr> with = tc.existing;
  with.push_back(tc.changed);
  auto want = PreFilterOn(tc.pod, tc.nodes, with);
  ExpectSameState(*got, *want, tc.pod);
}

TEST_P(RemovePodTest, MatchesPreFilterWithThePodRemoved) {
  const UpdateCase& tc = GetParam();
  std::vector<api::PodPtr> with = tc.existing;
  with.push_back(tc.changed);
  auto got = PreFilterOn(tc.pod, tc.nodes, with);
  framework::Status s =
      got->plugin->RemovePod(got->state, *tc.pod, *framework::NewPodInfo(tc.changed),
                             NodeOf(*got, tc.changed->spec.node_name));
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  auto want = PreFilterOn(tc.pod, tc.nodes, tc.existing);
  ExpectSameState(*got, *want, tc.pod);
}

std::vector<api::NodePtr> FourNodes() {
  return {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-b", "zone1").Obj(),
          ZoneNode("node-x", "zone2").Obj(), ZoneNode("node-y", "zone2").Obj()};
}
api::PodPtr ZoneAndNode() {
  return BuildPod()
      .Name("p")
      .Label("foo", "")
      .SpreadConstraint(1, "zone", kDoNot, FooSelector())
      .SpreadConstraint(1, "node", kDoNot, FooSelector())
      .Obj();
}
api::PodPtr ZoneFooNodeBar() {
  return BuildPod()
      .Name("p")
      .Label("foo", "")
      .Label("bar", "")
      .SpreadConstraint(1, "zone", kDoNot, FooSelector())
      .SpreadConstraint(1, "node", kDoNot, BarSelector())
      .Obj();
}
const std::vector<api::Taint> kTaint = {{"taint", "", "NoSchedule"}};

const auto kCases = ::testing::Values(
    UpdateCase{"on the critical node of both constraints",
               ZoneAndNode(),
               FourNodes(),
               {FooPod("p-a1", "node-a"), FooPod("p-y1", "node-y")},
               FooPod("new", "node-x")},
    UpdateCase{"on a node that is not critical",
               ZoneAndNode(),
               FourNodes(),
               {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y")},
               FooPod("new", "node-a")},
    UpdateCase{"a pod of another namespace changes nothing",
               ZoneAndNode(),
               FourNodes(),
               {FooPod("p-a1", "node-a")},
               BuildPod().Name("new").Namespace("ns1").Node("node-x").Label("foo", "").Obj()},
    UpdateCase{"a pod neither selector matches changes nothing",
               ZoneFooNodeBar(),
               FourNodes(),
               {FooPod("p-a1", "node-a")},
               BuildPod().Name("new").Node("node-b").Label("baz", "").Obj()},
    UpdateCase{
        "different selectors: the pod counts for one constraint only",
        ZoneFooNodeBar(),
        FourNodes(),
        {FooPod("p-a1", "node-a"), BuildPod().Name("p-y1").Node("node-y").Label("bar", "").Obj()},
        BuildPod().Name("new").Node("node-b").Label("bar", "").Obj()},
    UpdateCase{"a node outside the pod's node affinity is no domain",
               BuildPod()
                   .Name("p")
                   .Label("foo", "")
                   .NodeAffinityIn("zone", {"zone1"})
                   .SpreadConstraint(1, "node", kDoNot, FooSelector())
                   .Obj(),
               FourNodes(),
               {FooPod("p-a1", "node-a")},
               FooPod("new", "node-x")},
    UpdateCase{
        "an untolerated node is no domain with nodeTaintsPolicy Honor",
        BuildPod()
            .Name("p")
            .Label("foo", "")
            .SpreadConstraint(1, "node", kDoNot, FooSelector(), std::nullopt, std::nullopt, "Honor")
            .Obj(),
        {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-b", "zone1").Taints(kTaint).Obj()},
        {FooPod("p-a1", "node-a")},
        FooPod("new", "node-b")},
    UpdateCase{
        "a tolerated tainted node stays a domain",
        BuildPod()
            .Name("p")
            .Label("foo", "")
            .Toleration("taint")
            .SpreadConstraint(1, "node", kDoNot, FooSelector(), std::nullopt, std::nullopt, "Honor")
            .Obj(),
        {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-b", "zone1").Taints(kTaint).Obj()},
        {FooPod("p-a1", "node-a")},
        FooPod("new", "node-b")});

INSTANTIATE_TEST_SUITE_P(Upstream, AddPodTest, kCases);
INSTANTIATE_TEST_SUITE_P(Upstream, RemovePodTest, kCases);

TEST(PreFilterStateTest, CloneIsIndependent) {
  auto run = PreFilterOn(ZoneAndNode(), FourNodes(), {FooPod("p-a1", "node-a")});
  std::unique_ptr<framework::CycleState> copy = run->state.Clone();
  ASSERT_TRUE(run->plugin
                  ->AddPod(*copy, *ZoneAndNode(), *framework::NewPodInfo(FooPod("n", "node-x")),
                           NodeOf(*run, "node-x"))
                  .IsSuccess());
  const auto* original = run->state.Read<PreFilterState>(kPreFilterStateKey);
  const auto* cloned = copy->Read<PreFilterState>(kPreFilterStateKey);
  EXPECT_EQ(original->CountsForTest(0).at("zone2"), 0);
  EXPECT_EQ(cloned->CountsForTest(0).at("zone2"), 1);
}

TEST(CriticalPathsTest, KeepsTheMinimumWhateverTheOrder) {
  CriticalPaths paths;
  paths.Update("a", 3);
  paths.Update("b", 1);
  paths.Update("c", 2);
  EXPECT_EQ(paths.paths[0].value, "b");
  EXPECT_EQ(paths.paths[0].match_num, 1);
  EXPECT_EQ(paths.paths[1].match_num, 2);
  paths.Update("b", 4);  // the minimum domain grows past the second
  EXPECT_EQ(paths.paths[0].value, "c");
  EXPECT_EQ(paths.paths[0].match_num, 2);
}

}  // namespace
}  // namespace stowage::plugins::pod_topology_spread::testutil::pre_filter_extensions_test
