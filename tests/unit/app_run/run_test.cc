// app::Run's out-of-tree registry: plugins added by options, refused when a name is taken.
#include "stowage/app/run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stowage::app::run_test {
namespace {

using ::testing::HasSubstr;

framework::PluginFactory Unused() {
  return [](const framework::PluginArgs&, framework::Handle&,
            const framework::Features&) -> StatusOr<std::unique_ptr<framework::Plugin>> {
    return InternalError("not built in this test");
  };
}

TEST(OutOfTreeRegistry, HoldsEveryPluginOfTheOptions) {
  auto registration = [](framework::Registry& r) { return r.Register("Second", Unused()); };
  auto r = OutOfTreeRegistry({WithPlugin("First", Unused()), registration});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->Has("First"));
  EXPECT_TRUE(r->Has("Second"));
  EXPECT_EQ(r->factories().size(), 2u);
}

TEST(OutOfTreeRegistry, RefusesInTreeNames) {
  auto r = OutOfTreeRegistry({WithPlugin("NodeName", Unused())});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("\"NodeName\" has the name of an in-tree plugin"));
  // An upstream plugin stowage has not implemented yet is still upstream's name.
  EXPECT_FALSE(OutOfTreeRegistry({WithPlugin("DynamicResources", Unused())}).ok());
}

TEST(OutOfTreeRegistry, RefusesDuplicatesAndFailingOptions) {
  auto dup = OutOfTreeRegistry({WithPlugin("Mine", Unused()), WithPlugin("Mine", Unused())});
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.status().message(), HasSubstr("\"Mine\" is already registered"));
  auto failing = [](framework::Registry&) { return InvalidArgumentError("bad library"); };
  auto r = OutOfTreeRegistry({failing});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("bad library"));
}

}  // namespace
}  // namespace stowage::app::run_test
