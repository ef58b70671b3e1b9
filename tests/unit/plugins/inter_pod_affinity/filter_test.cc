// InterPodAffinity PreFilter and Filter, table-driven from the cases of upstream's
// interpodaffinity/filtering_test.go (TestRequiredAffinitySingleNode / MultipleNodes).
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/plugins/inter_pod_affinity/test_util.h"

namespace stowage::plugins::inter_pod_affinity::testutil::filter_test {
namespace {

using framework::Code;

struct Want {
  Code code = Code::kSuccess;
  std::string reason;
};
const Want kFits{};
const Want kAffinity{Code::kUnschedulableAndUnresolvable,
                     std::string(kErrReasonAffinityRulesNotMatch)};
const Want kAnti{Code::kUnschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch)};
const Want kExisting{Code::kUnschedulable,
                     std::string(kErrReasonExistingAntiAffinityRulesNotMatch)};

struct FilterCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> pods;
  std::vector<Want> want;  // per node
};
void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }

api::NodePtr Node(std::string name, stowage::testing::KeyValues labels) {
  auto b = BuildNode().Name(name);
  for (const auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}
// A pod labelled security=S1 (or the given value), bound to node, in namespace ns.
stowage::testing::PodWrapper Labelled(std::string value, std::string node = "",
                                      std::string ns = "default") {
  auto p = BuildPod().Name("p-" + value + "-" + node).Namespace(ns).Label("security", value);
  if (!node.empty()) p.Node(node);
  return p;
}
api::PodAffinityTerm S(std::vector<std::string> values, std::string topology = "region") {
  return TermIn("security", std::move(values), std::move(topology));
}

api::PodAffinityTerm WithSelector(api::PodAffinityTerm t, api::LabelSelector selector) {
  t.label_selector = std::move(selector);
  return t;
}

const api::NodePtr kNode1 = Node("node1", {{"region", "r1"}, {"zone", "z11"}});

std::vector<FilterCase> Cases() {
  api::PodAffinityTerm other_ns = WithNamespaces(S({"S1"}), {"other"});
  api::PodAffinityTerm bad = S({"S1"});
  bad.label_selector->match_expressions.push_back({"x", "In", {}});  // In needs values
  return {
      {"no terms, no existing pods: PreFilter skips",
       BuildPod().Name("p").Obj(),
       {kNode1},
       {},
       {kFits}},
      {"affinity In matches an existing pod",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kFits}},
      {"affinity NotIn matches an existing pod",
       WithAffinity(
           Labelled("S2"),
           Terms({WithSelector(S({}), BuildLabelSelector().NotIn("security", {"S3"}).Obj())})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kFits}},
      {"affinity names another namespace than the matching pod's",
       WithAffinity(Labelled("S2"), Terms({other_ns})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kAffinity}},
      {"affinity selector matches no existing pod",
       WithAffinity(Labelled("S2"), Terms({S({"S3"})})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kAffinity}},
      {"affinity terms are ANDed: one term matching is not enough",
       WithAffinity(Labelled("S2"), Terms({S({"S1"}), S({"S9"})})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kAffinity}},
      {"affinity and anti-affinity both satisfied",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})}), Terms({S({"S3"})})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kFits}},
      {"affinity satisfied, anti-affinity not",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})}), Terms({S({"S1"})})),
       {kNode1},
       {Labelled("S1", "node1").Obj()},
       {kAnti}},
      {"the existing pod's anti-affinity rejects the incoming pod (symmetry)",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})})),
       {kNode1},
       {WithAffinity(Labelled("S1", "node1"), std::nullopt, Terms({S({"S2"}, "zone")}))},
       {kExisting}},
      {"symmetry applies to a pod without terms of its own",
       Labelled("S2").Obj(),
       {kNode1},
       {WithAffinity(Labelled("S1", "node1"), std::nullopt, Terms({S({"S2"}, "zone")}))},
       {kExisting}},
      {"the existing pod's anti-affinity does not match the incoming pod",
       Labelled("S2").Obj(),
       {kNode1},
       {WithAffinity(Labelled("S1", "node1"), std::nullopt, Terms({S({"S3"})}))},
       {kFits}},
      {"the first pod of a group matches its own terms",
       WithAffinity(Labelled("S1"), Terms({S({"S1"})})),
       {kNode1, Node("node2", {{"zone", "z2"}})},
       {},
       {kFits, kAffinity}},
      {"the first-pod rule does not apply when a matching pod exists elsewhere",
       WithAffinity(Labelled("S1"), Terms({S({"S1"})})),
       {kNode1, Node("node2", {{"region", "r2"}})},
       {Labelled("S1", "node1").Obj()},
       {kFits, kAffinity}},
      {"a pod not matching its own terms has no first-pod exception",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})})),
       {kNode1},
       {},
       {kAffinity}},
      {"nodes sharing the topology value of a matching pod fit",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})})),
       {kNode1, Node("node2", {{"region", "r1"}}), Node("node3", {{"region", "r2"}})},
       {Labelled("S1", "node1").Obj()},
       {kFits, kFits, kAffinity}},
      {"anti-affinity rejects every node of the matching pod's domain",
       WithAffinity(Labelled("S2"), std::nullopt, Terms({S({"S1"}, "zone")})),
       {kNode1, Node("node2", {{"zone", "z11"}}), Node("node3", {{"zone", "z12"}}),
        Node("node4", {})},
       {Labelled("S1", "node1").Obj()},
       {kAnti, kAnti, kFits, kFits}},
      {"anti-affinity matches when any of its terms matches",
       WithAffinity(Labelled("S2"), std::nullopt, Terms({S({"S9"}), S({"S1"}, "zone")})),
       {kNode1, Node("node2", {{"zone", "z12"}})},
       {Labelled("S1", "node1").Obj()},
       {kAnti, kFits}},
      {"a matching pod in another namespace does not count",
       WithAffinity(Labelled("S2"), Terms({S({"S1"})})),
       {kNode1, Node("node2", {{"region", "r2"}})},
       {Labelled("S1", "node1").Obj(), Labelled("S1", "node2", "ns2").Obj()},
       {kFits, kAffinity}},
      {"an invalid selector fails PreFilter",
       WithAffinity(Labelled("S2"), Terms({bad})),
       {kNode1},
       {},
       {}},
  };
}

class FilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(FilterTest, Statuses) {
  const FilterCase& tc = GetParam();
  Handle handle;
  auto plugin = MakePlugin(handle);
  FilterRun run = RunFilter(handle, *plugin, tc.pod, tc.nodes, tc.pods);
  if (tc.want.empty()) {
    EXPECT_EQ(run.pre_filter.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_TRUE(run.pre_filter.Message().starts_with("parsing pod: requiredAffinityTerms: "))
        << run.pre_filter.Message();
    return;
  }
  ASSERT_FALSE(run.pre_filter.code() == Code::kError) << run.pre_filter.Message();
  ASSERT_EQ(run.filter.size(), tc.want.size());
  for (size_t i = 0; i < tc.want.size(); ++i) {
    EXPECT_EQ(run.filter[i].code(), tc.want[i].code) << "node " << i;
    EXPECT_EQ(run.filter[i].Message(), tc.want[i].reason) << "node " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(InterPodAffinity, FilterTest, ::testing::ValuesIn(Cases()));

TEST(InterPodAffinityPreFilter, SkipsOnlyWhenNothingCanReject) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  // No terms and no existing anti-affinity: Skip.
  EXPECT_TRUE(
      RunFilter(handle, *plugin, Labelled("S2").Obj(), {kNode1}, {Labelled("S1", "node1").Obj()})
          .pre_filter.IsSkip());
  // An existing anti-affinity term that does not match the pod: still Skip.
  EXPECT_TRUE(RunFilter(handle, *plugin, Labelled("S2").Obj(), {kNode1},
                        {WithAffinity(Labelled("S1", "node1"), std::nullopt, Terms({S({"S3"})}))})
                  .pre_filter.IsSkip());
  // A required term of its own, even unmatched anywhere: run.
  EXPECT_TRUE(RunFilter(handle, *plugin,
                        WithAffinity(Labelled("S2"), std::nullopt, Terms({S({"S3"})})), {kNode1},
                        {})
                  .pre_filter.IsSuccess());
}

TEST(InterPodAffinityFilter, WithoutPreFilterStateIsAnError) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  framework::CycleState state;
  auto info = framework::NewPodInfo(Labelled("S1").Obj());
  auto node = stowage::testing::MakeNodeInfo(kNode1);
  framework::Status s = plugin->Filter(state, *info, *node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
}

// namespaceSelector: resolved against the Namespace lister for the incoming pod's terms, and
// matched against the incoming pod's namespace labels for existing pods' terms.
TEST(InterPodAffinityFilter, NamespaceSelectors) {
  Handle handle;
  handle.AddNamespace("team-a", {{"team", "a"}});
  handle.AddNamespace("team-b", {{"team", "b"}});
  handle.AddNamespace("default", {{"team", "c"}});
  auto plugin = MakePlugin(handle);
  auto team = [](std::string t) { return BuildLabelSelector().Label("team", t).Obj(); };
  const api::PodPtr in_a = Labelled("S1", "node1", "team-a").Obj();

  auto affinity_to = [&](api::LabelSelector ns) {
    return WithAffinity(Labelled("S2"), Terms({WithNamespaceSelector(S({"S1"}), ns)}));
  };
  EXPECT_TRUE(
      RunFilter(handle, *plugin, affinity_to(team("a")), {kNode1}, {in_a}).filter[0].IsSuccess());
  EXPECT_EQ(RunFilter(handle, *plugin, affinity_to(team("b")), {kNode1}, {in_a}).filter[0].code(),
            Code::kUnschedulableAndUnresolvable);
  // An empty namespaceSelector selects every namespace.
  auto anti_all = WithAffinity(Labelled("S2"), std::nullopt,
                               Terms({WithNamespaceSelector(S({"S1"}), api::LabelSelector{})}));
  EXPECT_EQ(RunFilter(handle, *plugin, anti_all, {kNode1}, {in_a}).filter[0].Message(),
            kErrReasonAntiAffinityRulesNotMatch);
  // The existing pod's anti-affinity selects namespaces labelled team=c: the incoming pod's.
  auto existing = [&](std::string t) {
    return WithAffinity(Labelled("S1", "node1", "team-a"), std::nullopt,
                        Terms({WithNamespaceSelector(S({"S2"}), team(t))}));
  };
  EXPECT_EQ(RunFilter(handle, *plugin, Labelled("S2").Obj(), {kNode1}, {existing("c")})
                .filter[0]
                .Message(),
            kErrReasonExistingAntiAffinityRulesNotMatch);
  EXPECT_TRUE(RunFilter(handle, *plugin, Labelled("S2").Obj(), {kNode1}, {existing("b")})
                  .pre_filter.IsSkip());
}

// Pods of one template share their namespaceSelector: it is matched against the namespaces once
// while they stay the same, and a namespace added or relabelled counts from the next cycle on.
TEST(InterPodAffinityFilter, NamespaceSelectorResolvedOncePerNamespaceChange) {
  Handle handle;
  handle.AddNamespace("team-a", {{"team", "devops"}});
  handle.AddNamespace("team-b", {{"team", "qa"}});
  auto plugin = MakePlugin(handle);
  const api::LabelSelector devops = BuildLabelSelector().Label("team", "devops").Obj();
  const api::PodPtr incoming =
      WithAffinity(Labelled("S2"), std::nullopt, Terms({WithNamespaceSelector(S({"S1"}), devops)}));
  const std::vector<api::PodPtr> existing = {Labelled("S1", "node1", "team-c").Obj()};
  auto run = [&] { return RunFilter(handle, *plugin, incoming, {kNode1}, existing).filter.at(0); };

  EXPECT_TRUE(run().IsSuccess());
  const int64_t lists = handle.NamespaceListsForTest();
  EXPECT_TRUE(run().IsSuccess());
  EXPECT_TRUE(run().IsSuccess());
  EXPECT_EQ(handle.NamespaceListsForTest(), lists);

  // team-c appears with the selected label: the existing pod in it now repels the pod.
  handle.AddNamespace("team-c", {{"team", "devops"}});
  EXPECT_EQ(run().Message(), kErrReasonAntiAffinityRulesNotMatch);
  EXPECT_EQ(handle.NamespaceListsForTest(), lists + 1);
  // Relabelled out of the selector: it no longer does.
  handle.AddNamespace("team-c", {{"team", "qa"}});
  EXPECT_TRUE(run().IsSuccess());
  EXPECT_EQ(handle.NamespaceListsForTest(), lists + 2);
}

// Every node rejected for the same reason gets a copy of one Status, named after the plugin as
// the framework names it, so rejecting thousands of nodes allocates nothing per node.
TEST(InterPodAffinityFilter, RejectedNodesShareOneStatus) {
  Handle handle;
  auto plugin = MakePlugin(handle);
  const api::NodePtr node2 = Node("node2", {{"region", "r1"}, {"zone", "z12"}});
  const api::PodPtr anti = WithAffinity(Labelled("S2"), std::nullopt, Terms({S({"S1"})}));
  FilterRun run =
      RunFilter(handle, *plugin, anti, {kNode1, node2}, {Labelled("S1", "node1").Obj()});
  ASSERT_EQ(run.filter.size(), 2u);
  for (const framework::Status& s : run.filter) {
    EXPECT_EQ(s.code(), Code::kUnschedulable);
    EXPECT_EQ(s.Message(), kErrReasonAntiAffinityRulesNotMatch);
    EXPECT_EQ(s.plugin(), kName);
  }
  EXPECT_EQ(&run.filter[0].reasons(), &run.filter[1].reasons());
}

TEST(InterPodAffinityFilter, DeferredResizeIsSkippedOnlyWithTheGate) {
  Handle handle;
  framework::Features gate_on;
  gate_on.in_place_pod_vertical_scaling_scheduler_preemption = true;
  auto plugin = New({}, handle, gate_on);
  ASSERT_TRUE(plugin.ok());
  auto& pl = dynamic_cast<InterPodAffinity&>(**plugin);
  auto pod = Labelled("S2", "node1").Condition("PodResizePending", "True", "Deferred");
  auto anti = WithAffinity(pod, std::nullopt, Terms({S({"S1"})}));
  EXPECT_TRUE(
      RunFilter(handle, pl, anti, {kNode1}, {Labelled("S1", "node1").Obj()}).pre_filter.IsSkip());
  auto plain = MakePlugin(handle);
  EXPECT_EQ(RunFilter(handle, *plain, anti, {kNode1}, {Labelled("S1", "node1").Obj()})
                .filter[0]
                .Message(),
            kErrReasonAntiAffinityRulesNotMatch);
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::testutil::filter_test
