// NodeAffinity PreFilter and Filter, mirroring upstream nodeaffinity/node_affinity_test.go
// TestNodeAffinity (PreFilter status and result, Filter status).
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "pkg/plugins/node_affinity/node_affinity.h"
#include "tests/testing/fixtures.h"
#include "tests/unit/plugins/node_affinity/test_util.h"

namespace stowage::plugins::node_affinity::testutil::node_affinity_filter_test {
namespace {

using framework::Code;

struct FilterCase {
  std::string name;
  api::PodPtr pod;
  stowage::testing::KeyValues labels;
  std::string node_name;
  Code want_filter = Code::kSuccess;
  std::string want_filter_reason = "";
  Code want_pre_filter = Code::kSuccess;
  std::optional<std::set<std::string>> want_node_names = std::nullopt;
  std::optional<api::NodeAffinity> added = std::nullopt;
  bool run_pre_filter = true;
};
void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }

class NodeAffinityFilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(NodeAffinityFilterTest, PreFilterAndFilter) {
  const FilterCase& tc = GetParam();
  auto plugin = MakePlugin(tc.added);
  auto& na = dynamic_cast<NodeAffinity&>(*plugin);
  auto node_builder = BuildNode().Name(tc.node_name);
  for (const auto& [k, v] : tc.labels) node_builder.Label(k, v);
  auto node = stowage::testing::MakeNodeInfo(node_builder.Obj());

  framework::CycleState state;
  framework::PodInfoPtr info = framework::NewPodInfo(tc.pod);
  if (tc.run_pre_filter) {
    framework::PreFilterResult result;
    framework::Status pre = na.PreFilter(state, *info, {}, result);
    EXPECT_EQ(pre.code(), tc.want_pre_filter) << pre.Message();
    if (pre.code() == Code::kUnschedulableAndUnresolvable) {
      EXPECT_EQ(pre.Message(), kErrReasonConflict);
    }
    EXPECT_EQ(result.node_names, tc.want_node_names);
  }
  framework::Status got = na.Filter(state, *info, *node);
  EXPECT_EQ(got.code(), tc.want_filter) << got.Message();
  if (tc.want_filter != Code::kSuccess) {
    EXPECT_EQ(got.reasons(), std::vector<std::string>{tc.want_filter_reason});
  }
}

const Code kUnres = Code::kUnschedulableAndUnresolvable;
const std::string kPodReason(kErrReasonPod);
const std::string kEnforcedReason(kErrReasonEnforced);

INSTANTIATE_TEST_SUITE_P(
    Upstream, NodeAffinityFilterTest,
    ::testing::Values(
        FilterCase{"missing labels",
                   BuildPod().NodeSelector({{"foo", "bar"}}).Obj(),
                   {},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{
            "same labels", BuildPod().NodeSelector({{"foo", "bar"}}).Obj(), {{"foo", "bar"}}},
        FilterCase{"node labels are superset",
                   BuildPod().NodeSelector({{"foo", "bar"}}).Obj(),
                   {{"foo", "bar"}, {"baz", "blah"}}},
        FilterCase{"node labels are subset",
                   BuildPod().NodeSelector({{"foo", "bar"}, {"baz", "blah"}}).Obj(),
                   {{"foo", "bar"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{"matchExpressions In matches",
                   PodRequiring({Expr({R("foo", "In", {"bar", "value2"})})}),
                   {{"foo", "bar"}}},
        FilterCase{"matchExpressions Gt matches",
                   PodRequiring({Expr({R("kernel-version", "Gt", {"0204"})})}),
                   {{"kernel-version", "0206"}}},
        FilterCase{"matchExpressions NotIn matches",
                   PodRequiring({Expr({R("mem-type", "NotIn", {"DDR", "DDR2"})})}),
                   {{"mem-type", "DDR3"}}},
        FilterCase{"matchExpressions Exists matches",
                   PodRequiring({Expr({R("GPU", "Exists")})}),
                   {{"GPU", "NVIDIA-GRID-K1"}}},
        FilterCase{"affinity that doesn't match node's labels",
                   PodRequiring({Expr({R("foo", "In", {"value1", "value2"})})}),
                   {{"foo", "bar"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{"empty MatchExpressions match no objects",
                   PodRequiring({Expr({})}),
                   {{"foo", "bar"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{
            "no Affinity", BuildPod().Obj(), {{"foo", "bar"}}, "", Code::kSuccess, "", Code::kSkip},
        FilterCase{"Affinity but nil required NodeSelector",
                   BuildPod().NodeAffinity(api::NodeAffinity{}).Obj(),
                   {{"foo", "bar"}},
                   "",
                   Code::kSuccess,
                   "",
                   Code::kSkip},
        FilterCase{"multiple matchExpressions ANDed that match",
                   PodRequiring({Expr({R("GPU", "Exists"), R("GPU", "NotIn", {"AMD", "INTER"})})}),
                   {{"GPU", "NVIDIA-GRID-K1"}}},
        FilterCase{"multiple matchExpressions ANDed that don't match",
                   PodRequiring({Expr({R("GPU", "Exists"), R("GPU", "In", {"AMD", "INTER"})})}),
                   {{"GPU", "NVIDIA-GRID-K1"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{"multiple NodeSelectorTerms ORed",
                   PodRequiring({Expr({R("foo", "In", {"bar", "value2"})}),
                                 Expr({R("diffkey", "In", {"wrong", "value2"})})}),
                   {{"foo", "bar"}}},
        FilterCase{"affinity and nodeSelector both satisfied",
                   BuildPod()
                       .NodeSelector({{"foo", "bar"}})
                       .NodeAffinity(Required({Expr({R("foo", "Exists")})}))
                       .Obj(),
                   {{"foo", "bar"}}},
        FilterCase{"affinity matches but nodeSelector does not",
                   BuildPod()
                       .NodeSelector({{"foo", "bar"}})
                       .NodeAffinity(Required({Expr({R("foo", "Exists")})}))
                       .Obj(),
                   {{"foo", "barrrrrr"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{"invalid value in affinity term",
                   PodRequiring({Expr({R("foo", "NotIn", {"invalid value: ___@#$%^"})})}),
                   {{"foo", "bar"}},
                   "",
                   kUnres,
                   kPodReason},
        FilterCase{"matchFields In matches the node",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"})})}),
                   {},
                   "node1",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::set<std::string>{"node1"}},
        FilterCase{"matchFields In does not match the node",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"})})}),
                   {},
                   "node2",
                   kUnres,
                   kPodReason,
                   Code::kSuccess,
                   std::set<std::string>{"node1"}},
        FilterCase{"two terms: matchFields does not match, matchExpressions matches",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"}),
                                         R("metadata.name", "In", {"node2"})}),
                                 Expr({R("foo", "In", {"bar"})})}),
                   {{"foo", "bar"}},
                   "node2"},
        FilterCase{"one term: matchFields does not match, matchExpressions matches",
                   PodRequiring({api::NodeSelectorTerm{{R("foo", "In", {"bar"})},
                                                       {R("metadata.name", "In", {"node1"})}}}),
                   {{"foo", "bar"}},
                   "node2",
                   kUnres,
                   kPodReason,
                   Code::kSuccess,
                   std::set<std::string>{"node1"}},
        FilterCase{"one term: both matchFields and matchExpressions match",
                   PodRequiring({api::NodeSelectorTerm{{R("foo", "In", {"bar"})},
                                                       {R("metadata.name", "In", {"node1"})}}}),
                   {{"foo", "bar"}},
                   "node1",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::set<std::string>{"node1"}},
        FilterCase{"two terms: neither matches",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"})}),
                                 Expr({R("foo", "In", {"not-match-to-bar"})})}),
                   {{"foo", "bar"}},
                   "node2",
                   kUnres,
                   kPodReason},
        FilterCase{"two terms of node.Name affinity",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"})}),
                                 Fields({R("metadata.name", "In", {"node2"})})}),
                   {},
                   "node2",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::set<std::string>{"node1", "node2"}},
        FilterCase{"two conflicting match field requirements",
                   PodRequiring({Fields({R("metadata.name", "In", {"node1"}),
                                         R("metadata.name", "In", {"node2"})})}),
                   {{"foo", "bar"}},
                   "node2",
                   kUnres,
                   kPodReason,
                   kUnres},
        FilterCase{"matches added affinity and pod's node affinity",
                   PodRequiring({Expr({R("zone", "In", {"foo"})})}),
                   {{"zone", "foo"}},
                   "node2",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::nullopt,
                   Required({Fields({R("metadata.name", "In", {"node2"})})})},
        FilterCase{"matches added affinity but not pod's node affinity",
                   PodRequiring({Expr({R("zone", "In", {"bar"})})}),
                   {{"zone", "foo"}},
                   "node2",
                   kUnres,
                   kPodReason,
                   Code::kSuccess,
                   std::nullopt,
                   Required({Fields({R("metadata.name", "In", {"node2"})})})},
        FilterCase{"doesn't match added affinity",
                   BuildPod().Obj(),
                   {{"zone", "foo"}},
                   "node2",
                   kUnres,
                   kEnforcedReason,
                   Code::kSuccess,
                   std::nullopt,
                   Required({Expr({R("zone", "In", {"bar"})})})},
        FilterCase{"node selector without PreFilter",
                   BuildPod().NodeSelector({{"foo", "bar"}}).Obj(),
                   {{"foo", "bar"}, {"baz", "blah"}},
                   "",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::nullopt,
                   std::nullopt,
                   false},
        FilterCase{"node affinity without PreFilter",
                   PodRequiring({Expr({R("GPU", "Exists"), R("GPU", "NotIn", {"AMD", "INTER"})})}),
                   {{"GPU", "NVIDIA-GRID-K1"}},
                   "",
                   Code::kSuccess,
                   "",
                   Code::kSuccess,
                   std::nullopt,
                   std::nullopt,
                   false},
        // A pod-level nodeSelector with no required affinity is checked but pins no nodes.
        FilterCase{"nodeSelector only has no PreFilterResult",
                   BuildPod().NodeSelector({{"a", "b"}}).Obj(),
                   {{"a", "b"}},
                   "n"},
        // matchFields NotIn does not pin nodes; the node it names is filtered out.
        FilterCase{"matchFields NotIn",
                   PodRequiring({Fields({R("metadata.name", "NotIn", {"node1"})})}),
                   {},
                   "node1",
                   kUnres,
                   kPodReason}),
    [](const ::testing::TestParamInfo<FilterCase>& info) {
      return "Case" + std::to_string(info.index);
    });

// The reasons are upstream's, as generated into tests/fixtures/failure_messages.tsv.
TEST(NodeAffinity, MessagesMatchUpstream) {
  EXPECT_EQ(kErrReasonPod, stowage::testing::UpstreamFailureReason("NodeAffinity.Filter.Pod"));
  EXPECT_EQ(kErrReasonEnforced,
            stowage::testing::UpstreamFailureReason("NodeAffinity.Filter.Enforced"));
  EXPECT_EQ(kErrReasonConflict,
            stowage::testing::UpstreamFailureReason("NodeAffinity.PreFilter.Conflict"));
}

}  // namespace
}  // namespace stowage::plugins::node_affinity::testutil::node_affinity_filter_test
