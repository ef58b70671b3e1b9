#include "pkg/common/error_list.h"

#include <gtest/gtest.h>

namespace stowage::error_list_test {
namespace {

TEST(Join, SeparatesPartsOnly) {
  EXPECT_EQ(Join({}, "; "), "");
  EXPECT_EQ(Join({"a"}, "; "), "a");
  EXPECT_EQ(Join({"a", "b", "c"}, "; "), "a; b; c");
}

// utilerrors.NewAggregate(...).Error(): one message bare, several bracketed, duplicates dropped.
TEST(JoinAggregate, PrintsAsUpstreamAggregate) {
  EXPECT_EQ(JoinAggregate({}), "");
  EXPECT_EQ(JoinAggregate({"x is invalid"}), "x is invalid");
  EXPECT_EQ(JoinAggregate({"a", "b"}), "[a, b]");
  EXPECT_EQ(JoinAggregate({"a", "a"}), "a");
  EXPECT_EQ(JoinAggregate({"a", "b", "a", "c"}), "[a, b, c]");
}

TEST(JoinStatus, KeepsTheFailureAndJoinsTwo) {
  const Status bad_a = InvalidArgumentError("a");
  const Status bad_b = NotFoundError("b");
  EXPECT_TRUE(JoinStatus(OkStatus(), OkStatus()).ok());
  EXPECT_EQ(JoinStatus(OkStatus(), bad_b), bad_b);
  EXPECT_EQ(JoinStatus(bad_a, OkStatus()), bad_a);
  const Status both = JoinStatus(bad_a, bad_b);
  EXPECT_EQ(both.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(both.message(), "a; b");
}

}  // namespace
}  // namespace stowage::error_list_test
