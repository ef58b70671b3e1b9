// framework::Status: copies share a failure's data until one of them changes it.
#include "stowage/framework/status.h"

#include <gtest/gtest.h>

namespace stowage::framework::status_test {
namespace {

TEST(FrameworkStatus, SuccessHasNoReasonsAndNoPlugin) {
  Status ok;
  EXPECT_TRUE(ok.IsSuccess());
  EXPECT_TRUE(ok.reasons().empty());
  EXPECT_EQ(ok.plugin(), "");
  EXPECT_EQ(Status(Code::kSuccess, "").code(), Code::kSuccess);
}

// A plugin builds its rejection once and returns copies: they share the reasons, so a rejected
// node costs no allocation, and naming the plugin it already names changes nothing.
TEST(FrameworkStatus, CopiesShareTheFailureUntilChanged) {
  const Status once = Status::Unschedulable("node(s) didn't match pod anti-affinity rules")
                          .WithPlugin("InterPodAffinity");
  Status copy = once;
  copy.WithPlugin("InterPodAffinity");
  EXPECT_EQ(&copy.reasons(), &once.reasons());
  EXPECT_EQ(&copy.plugin(), &once.plugin());

  // A change is the copy's alone.
  copy.WithPlugin("Other").AppendReason("more");
  EXPECT_EQ(copy.plugin(), "Other");
  EXPECT_EQ(copy.Message(), "node(s) didn't match pod anti-affinity rules, more");
  EXPECT_EQ(once.plugin(), "InterPodAffinity");
  EXPECT_EQ(once.Message(), "node(s) didn't match pod anti-affinity rules");
  EXPECT_EQ(once.code(), Code::kUnschedulable);

  Status assigned;
  assigned = once;
  assigned.AppendReason("x");
  EXPECT_EQ(once.reasons().size(), 1u);
  EXPECT_EQ(assigned.reasons().size(), 2u);
  EXPECT_EQ(assigned.code(), Code::kUnschedulable);
}

TEST(FrameworkStatus, AnUnsharedStatusChangesInPlace) {
  Status s = Status::Error("boom");
  const std::string* before = &s.plugin();
  s.WithPlugin("P");
  EXPECT_EQ(&s.plugin(), before);
  EXPECT_EQ(s.plugin(), "P");
  Status moved = std::move(s);
  EXPECT_EQ(moved.Message(), "boom");
  EXPECT_TRUE(moved.IsError());
}

}  // namespace
}  // namespace stowage::framework::status_test
