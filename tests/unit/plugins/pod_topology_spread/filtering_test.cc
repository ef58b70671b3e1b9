// PodTopologySpread PreFilter and Filter over the DoNotSchedule constraints: skew, missing
// topology labels, minDomains, inclusion policies, matchLabelKeys and the per-node verdicts of
// several constraints at once (the situations upstream's filtering_test.go covers).
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/plugins/pod_topology_spread/test_util.h"

namespace stowage::plugins::pod_topology_spread::testutil::filtering_test {
namespace {

using framework::Code;
constexpr Code kOk = Code::kSuccess;
constexpr Code kNo = Code::kUnschedulable;
constexpr Code kUnres = Code::kUnschedulableAndUnresolvable;

struct FilterCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existing;
  std::map<std::string, Code> want;
};
void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }

// node-a and node-b in zone1, node-x and node-y in zone2.
std::vector<api::NodePtr> FourNodes() {
  return {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-b", "zone1").Obj(),
          ZoneNode("node-x", "zone2").Obj(), ZoneNode("node-y", "zone2").Obj()};
}
// Matching pods spread as 2/1/0/3 over node-a, node-b, node-x, node-y.
std::vector<api::PodPtr> Spread2103() {
  return {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
          FooPod("p-y1", "node-y"), FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y")};
}
stowage::testing::PodWrapper FooIncoming() { return BuildPod().Name("p").Label("foo", ""); }

class FilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(FilterTest, VerdictPerNode) {
  const FilterCase& tc = GetParam();
  ListerHandle handle;
  handle.SetNodes(tc.nodes, tc.existing);
  auto pl = MakePlugin(handle, ListArgs());
  framework::CycleState state;
  framework::PodInfoPtr pod = framework::NewPodInfo(tc.pod);
  framework::PreFilterResult result;
  framework::Status pre = pl->PreFilter(state, *pod, handle.SnapshotSharedLister().List(), result);
  ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  for (const framework::NodeInfo* node : handle.SnapshotSharedLister().List()) {
    framework::Status got = pl->Filter(state, *pod, *node);
    EXPECT_EQ(got.code(), tc.want.at(node->name())) << node->name() << ": " << got.Message();
    if (got.code() == kNo) EXPECT_EQ(got.Message(), kErrReasonConstraintsNotMatch);
    if (got.code() == kUnres) EXPECT_EQ(got.Message(), kErrReasonNodeLabelNotMatch);
  }
}

const std::vector<api::Taint> kNoScheduleTaint = {{"taint", "", "NoSchedule"}};

INSTANTIATE_TEST_SUITE_P(
    SingleConstraint, FilterTest,
    ::testing::Values(
        FilterCase{"empty cluster: every node fits",
                   FooIncoming().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj(),
                   FourNodes(),
                   {},
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
        FilterCase{"pods of other namespaces do not count",
                   FooIncoming().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj(),
                   FourNodes(),
                   {BuildPod().Name("p-a1").Namespace("ns1").Node("node-a").Label("foo", "").Obj(),
                    BuildPod().Name("p-b1").Namespace("ns2").Node("node-a").Label("foo", "").Obj(),
                    FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y")},
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
        FilterCase{"a null selector matches no existing pod",
                   FooIncoming().SpreadConstraint(1, "zone", kDoNot, std::nullopt).Obj(),
                   FourNodes(),
                   {FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y")},
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
        FilterCase{"zones balanced 3/3: every node fits",
                   FooIncoming().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
        FilterCase{"a node without the zone label is unresolvable and leaves the domains",
                   FooIncoming().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj(),
                   {ZoneNode("node-a", "zone1").Obj(),
                    BuildNode().Name("node-b").Label("zon", "zone1").Obj(),
                    ZoneNode("node-x", "zone2").Obj(), ZoneNode("node-y", "zone2").Obj()},
                   {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-x1", "node-x"),
                    FooPod("p-y1", "node-y")},
                   {{"node-a", kOk}, {"node-b", kUnres}, {"node-x", kNo}, {"node-y", kNo}}},
        FilterCase{"no node has the topology key",
                   FooIncoming().SpreadConstraint(1, "rack", kDoNot, FooSelector()).Obj(),
                   {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-x", "zone2").Obj()},
                   {},
                   {{"node-a", kUnres}, {"node-x", kUnres}}},
        FilterCase{"nodes 2/1/0/3, maxSkew 1: only the empty node fits",
                   FooIncoming().SpreadConstraint(1, "node", kDoNot, FooSelector()).Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"nodes 2/1/0/3, maxSkew 2",
                   FooIncoming().SpreadConstraint(2, "node", kDoNot, FooSelector()).Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"an incoming pod its selector does not match adds no skew",
                   BuildPod()
                       .Name("p")
                       .Label("bar", "")
                       .SpreadConstraint(1, "node", kDoNot, FooSelector())
                       .Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"node affinity keeps node-b and node-x out of the domains: minimum is 2",
                   FooIncoming()
                       .NodeAffinityIn("node", {"node-a", "node-y"})
                       .SpreadConstraint(1, "node", kDoNot, FooSelector())
                       .Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"node affinity NotIn node-b: zone1 counts 0",
                   FooIncoming()
                       .NodeAffinityNotIn("node", {"node-b"})
                       .SpreadConstraint(1, "zone", kDoNot, FooSelector())
                       .Obj(),
                   FourNodes(),
                   {FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"), FooPod("p-y1", "node-y")},
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
        FilterCase{"terminating pods do not count",
                   FooIncoming().SpreadConstraint(1, "node", kDoNot, FooSelector()).Obj(),
                   {BuildNode().Name("node-a").Label("node", "node-a").Obj(),
                    BuildNode().Name("node-b").Label("node", "node-b").Obj()},
                   {BuildPod().Name("p-a").Node("node-a").Label("foo", "").Terminating().Obj(),
                    FooPod("p-b", "node-b")},
                   {{"node-a", kOk}, {"node-b", kNo}}},
        FilterCase{"fewer domains than minDomains: the minimum counts as 0",
                   FooIncoming().SpreadConstraint(2, "node", kDoNot, FooSelector(), 4).Obj(),
                   {ZoneNode("node-a", "").Obj(), ZoneNode("node-b", "").Obj(),
                    ZoneNode("node-c", "").Obj()},
                   {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
                    FooPod("p-b2", "node-b"), FooPod("p-c1", "node-c")},
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-c", kOk}}},
        FilterCase{"enough domains for minDomains: the real minimum applies",
                   FooIncoming().SpreadConstraint(2, "node", kDoNot, FooSelector(), 2).Obj(),
                   {ZoneNode("node-a", "").Obj(), ZoneNode("node-b", "").Obj(),
                    ZoneNode("node-c", "").Obj()},
                   {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
                    FooPod("p-b2", "node-b"), FooPod("p-c1", "node-c")},
                   {{"node-a", kOk}, {"node-b", kOk}, {"node-c", kOk}}},
        FilterCase{
            "nodeTaintsPolicy Honor: the untolerated node is no domain",
            FooIncoming()
                .SpreadConstraint(1, "node", kDoNot, FooSelector(), std::nullopt, std::nullopt,
                                  "Honor")
                .Obj(),
            {BuildNode().Name("node-a").Label("node", "node-a").Obj(),
             BuildNode().Name("node-b").Label("node", "node-b").Obj(),
             BuildNode().Name("node-x").Label("node", "node-x").Obj(),
             BuildNode().Name("node-y").Label("node", "node-y").Taints(kNoScheduleTaint).Obj()},
            {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y")},
            {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
        FilterCase{
            "nodeTaintsPolicy Ignore (default): the tainted node counts",
            FooIncoming().SpreadConstraint(1, "node", kDoNot, FooSelector()).Obj(),
            {BuildNode().Name("node-a").Label("node", "node-a").Obj(),
             BuildNode().Name("node-b").Label("node", "node-b").Obj(),
             BuildNode().Name("node-x").Label("node", "node-x").Obj(),
             BuildNode().Name("node-y").Label("node", "node-y").Taints(kNoScheduleTaint).Obj()},
            {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y")},
            {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"nodeAffinityPolicy Ignore: nodes outside the pod's selector count",
                   FooIncoming()
                       .NodeSelector({{"foo", ""}})
                       .SpreadConstraint(1, "node", kDoNot, FooSelector(), std::nullopt, "Ignore")
                       .Obj(),
                   {BuildNode().Name("node-a").Label("node", "node-a").Label("foo", "").Obj(),
                    BuildNode().Name("node-b").Label("node", "node-b").Label("foo", "").Obj(),
                    BuildNode().Name("node-x").Label("node", "node-x").Label("foo", "").Obj(),
                    BuildNode().Name("node-y").Label("node", "node-y").Obj()},
                   {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-x1", "node-x")},
                   // node-y, empty, is a domain: every other node is one over the minimum.
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kNo}, {"node-y", kOk}}},
        FilterCase{
            "matchLabelKeys narrows the selector to the pod's own value",
            BuildPod()
                .Name("p")
                .Label("foo", "")
                .Label("version", "v2")
                .SpreadConstraint(1, "node", kDoNot, FooSelector(), std::nullopt, std::nullopt,
                                  std::nullopt, {"version"})
                .Obj(),
            {BuildNode().Name("node-a").Label("node", "node-a").Obj(),
             BuildNode().Name("node-b").Label("node", "node-b").Obj()},
            {BuildPod().Name("p-a1").Node("node-a").Label("foo", "").Label("version", "v1").Obj(),
             BuildPod().Name("p-b1").Node("node-b").Label("foo", "").Label("version", "v2").Obj()},
            {{"node-a", kOk}, {"node-b", kNo}}}));

INSTANTIATE_TEST_SUITE_P(
    MultipleConstraints, FilterTest,
    ::testing::Values(
        FilterCase{"zone 3/3 and node 2/1/0/3: only node-x satisfies both",
                   FooIncoming()
                       .SpreadConstraint(1, "zone", kDoNot, FooSelector())
                       .SpreadConstraint(1, "node", kDoNot, FooSelector())
                       .Obj(),
                   FourNodes(),
                   Spread2103(),
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"zone 3/4 and node 2/1/0/4: nothing satisfies both",
                   FooIncoming()
                       .SpreadConstraint(1, "zone", kDoNot, FooSelector())
                       .SpreadConstraint(1, "node", kDoNot, FooSelector())
                       .Obj(),
                   FourNodes(),
                   [] {
                     auto pods = Spread2103();
                     pods.push_back(FooPod("p-y4", "node-y"));
                     return pods;
                   }(),
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kNo}, {"node-y", kNo}}},
        FilterCase{"different selectors: zone by foo 1/0, node by bar 0/0/0/1",
                   BuildPod()
                       .Name("p")
                       .Label("foo", "")
                       .Label("bar", "")
                       .SpreadConstraint(1, "zone", kDoNot, FooSelector())
                       .SpreadConstraint(1, "node", kDoNot, BarSelector())
                       .Obj(),
                   FourNodes(),
                   {FooPod("p-a1", "node-a"),
                    BuildPod().Name("p-y1").Node("node-y").Label("bar", "").Obj()},
                   {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
        FilterCase{"node-x lacks the node label: unresolvable, and not a node domain",
                   FooIncoming()
                       .SpreadConstraint(1, "zone", kDoNot, FooSelector())
                       .SpreadConstraint(1, "node", kDoNot, FooSelector())
                       .Obj(),
                   {ZoneNode("node-a", "zone1").Obj(), ZoneNode("node-b", "zone1").Obj(),
                    BuildNode().Name("node-x").Label("zone", "zone2").Obj(),
                    ZoneNode("node-y", "zone2").Obj()},
                   {FooPod("p-a1", "node-a"), FooPod("p-y3", "node-y")},
                   {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kUnres}, {"node-y", kNo}}}));

TEST(PreFilterTest, SkipsWithoutDoNotScheduleConstraints) {
  ListerHandle handle;
  handle.SetNodes(FourNodes());
  auto pl = MakePlugin(handle, ListArgs());
  framework::CycleState state;
  framework::PreFilterResult result;
  auto soft = framework::NewPodInfo(
      FooIncoming().SpreadConstraint(1, "zone", kAnyway, FooSelector()).Obj());
  EXPECT_TRUE(pl->PreFilter(state, *soft, handle.SnapshotSharedLister().List(), result).IsSkip());
  auto none = framework::NewPodInfo(FooIncoming().Obj());
  EXPECT_TRUE(pl->PreFilter(state, *none, handle.SnapshotSharedLister().List(), result).IsSkip());
}

TEST(PreFilterTest, FilterWithoutPreFilterIsAnError) {
  ListerHandle handle;
  handle.SetNodes(FourNodes());
  auto pl = MakePlugin(handle, ListArgs());
  framework::CycleState state;
  auto pod =
      framework::NewPodInfo(FooIncoming().SpreadConstraint(1, "zone", kDoNot, FooSelector()).Obj());
  framework::Status got = pl->Filter(state, *pod, *handle.SnapshotSharedLister().List()[0]);
  EXPECT_TRUE(got.IsError());
  EXPECT_EQ(got.Message(), "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
}

}  // namespace
}  // namespace stowage::plugins::pod_topology_spread::testutil::filtering_test
