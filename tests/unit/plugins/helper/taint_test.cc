#include "stowage/plugins/helper/taint.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/priority.h"
#include "tests/testing/builders.h"

namespace stowage::plugins::helper::taint_test {
namespace {

struct TolerationCase {
  std::string name;
  api::Toleration toleration;
  api::Taint taint;
  bool comparison_operators;
  bool want;
};

// Names the case in test listings instead of dumping the struct's bytes.
void PrintTo(const TolerationCase& c, std::ostream* os) { *os << c.name; }

class ToleratesTaintTest : public ::testing::TestWithParam<TolerationCase> {};

TEST_P(ToleratesTaintTest, Matches) {
  const auto& c = GetParam();
  EXPECT_EQ(ToleratesTaint(c.toleration, c.taint, c.comparison_operators), c.want) << c.name;
}

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

// Cases after core/v1 toleration_test.go (ToleratesTaint), including the comparison operators
// with the gate on and off.
INSTANTIATE_TEST_SUITE_P(
    CoreV1, ToleratesTaintTest,
    ::testing::Values(
        TolerationCase{"empty effect matches all",
                       Tol("foo", "Exists", "", ""),
                       {"foo", "bar", "NoExecute"},
                       false,
                       true},
        TolerationCase{"effect mismatch",
                       Tol("foo", "Exists", "", "NoSchedule"),
                       {"foo", "bar", "NoExecute"},
                       false,
                       false},
        TolerationCase{"empty key with Exists matches all keys",
                       Tol("", "Exists", "", ""),
                       {"foo", "bar", "NoSchedule"},
                       false,
                       true},
        TolerationCase{
            "key mismatch", Tol("foo", "Exists", "", ""), {"bar", "x", "NoSchedule"}, false, false},
        TolerationCase{"Equal matches value",
                       Tol("foo", "Equal", "bar", "NoSchedule"),
                       {"foo", "bar", "NoSchedule"},
                       false,
                       true},
        TolerationCase{"empty operator is Equal",
                       Tol("foo", "", "bar", ""),
                       {"foo", "bar", "NoSchedule"},
                       false,
                       true},
        TolerationCase{"Equal value mismatch",
                       Tol("foo", "Equal", "bar", ""),
                       {"foo", "baz", "NoSchedule"},
                       false,
                       false},
        TolerationCase{"unknown operator",
                       Tol("foo", "In", "bar", ""),
                       {"foo", "bar", "NoSchedule"},
                       false,
                       false},
        TolerationCase{"Gt with gate off",
                       Tol("sla", "Gt", "750", ""),
                       {"sla", "950", "NoSchedule"},
                       false,
                       false},
        TolerationCase{
            "Gt greater", Tol("sla", "Gt", "750", ""), {"sla", "950", "NoSchedule"}, true, true},
        TolerationCase{
            "Gt equal", Tol("sla", "Gt", "950", ""), {"sla", "950", "NoSchedule"}, true, false},
        TolerationCase{
            "Lt less", Tol("sla", "Lt", "950", ""), {"sla", "800", "NoSchedule"}, true, true},
        TolerationCase{"Lt with gate off",
                       Tol("sla", "Lt", "950", ""),
                       {"sla", "800", "NoSchedule"},
                       false,
                       false},
        TolerationCase{
            "Lt greater", Tol("sla", "Lt", "800", ""), {"sla", "950", "NoSchedule"}, true, false},
        TolerationCase{
            "negative values", Tol("sla", "Lt", "-1", ""), {"sla", "-5", "NoSchedule"}, true, true},
        TolerationCase{"non-numeric taint",
                       Tol("sla", "Gt", "950", ""),
                       {"sla", "high", "NoSchedule"},
                       true,
                       false},
        TolerationCase{"leading zero is not canonical",
                       Tol("sla", "Gt", "1", ""),
                       {"sla", "010", "NoSchedule"},
                       true,
                       false},
        TolerationCase{"minus zero is not canonical",
                       Tol("sla", "Lt", "1", ""),
                       {"sla", "-0", "NoSchedule"},
                       true,
                       false},
        TolerationCase{"zero", Tol("sla", "Lt", "1", ""), {"sla", "0", "NoSchedule"}, true, true},
        TolerationCase{"out of int64 range",
                       Tol("sla", "Gt", "1", ""),
                       {"sla", "99999999999999999999", "NoSchedule"},
                       true,
                       false}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return n;
    });

TEST(FindMatchingUntoleratedTaint, ReturnsFirstUntoleratedIncludedTaint) {
  std::vector<api::Taint> taints = {
      {"a", "1", "PreferNoSchedule"}, {"b", "2", "NoSchedule"}, {"c", "3", "NoExecute"}};
  std::vector<api::Toleration> tolerations = {Tol("b", "Exists", "", "")};
  const api::Taint* t = FindMatchingUntoleratedTaint(taints, tolerations, IsDoNotScheduleTaint);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "c");
  // Without a filter the PreferNoSchedule taint comes first.
  t = FindMatchingUntoleratedTaint(taints, tolerations, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "a");
  tolerations.push_back(Tol("c", "Equal", "3", "NoExecute"));
  EXPECT_EQ(FindMatchingUntoleratedTaint(taints, tolerations, IsDoNotScheduleTaint), nullptr);
}

TEST(EventObjects, As) {
  api::PodPtr pod = testing::BuildPod().Name("p").Obj();
  api::NodePtr node = testing::BuildNode().Name("n").Obj();
  TypedEventObjects<api::Node> nodes;
  EXPECT_TRUE(As(framework::EventObject{}, framework::EventObject{node}, nodes));
  EXPECT_EQ(nodes.old_obj, nullptr);
  EXPECT_EQ(nodes.new_obj, node.get());
  EXPECT_FALSE(As(framework::EventObject{pod}, framework::EventObject{node}, nodes));
  EXPECT_FALSE(As(framework::EventObject{}, framework::EventObject{pod}, nodes));
  TypedEventObjects<api::Pod> pods;
  EXPECT_TRUE(As(framework::EventObject{pod}, framework::EventObject{}, pods));
  EXPECT_EQ(pods.old_obj, pod.get());
  EXPECT_EQ(pods.new_obj, nullptr);
}

TEST(PodPriority, DefaultsToZero) {
  EXPECT_EQ(PodPriority(*testing::BuildPod().Obj()), 0);
  EXPECT_EQ(PodPriority(*testing::BuildPod().Priority(-3).Obj()), -3);
}

}  // namespace
}  // namespace stowage::plugins::helper::taint_test
