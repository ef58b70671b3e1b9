#include "pkg/plugins/default_binder/default_binder.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::default_binder {
namespace {

TEST(DefaultBinder, Bind) {
  struct Case {
    std::string name;
    stowage::Status inject;
  } cases[] = {
      {"successful", OkStatus()},
      {"binding error", InternalError("binding error")},
      {"conflict", AlreadyExistsError("pod ns/foo is already assigned to node \"other\"")},
  };
  const std::string node = "foohost.kubernetes.mydomain.com";
  auto pod = testing::BuildPod().Name("foo").Namespace("ns").UID("uid-1").Obj();
  for (const auto& c : cases) {
    testing::FakeHandle handle;
    handle.SetBindError(c.inject);
    DefaultBinder binder(handle);
    framework::CycleState state;
    framework::Status s = binder.Bind(state, *pod, node);
    if (c.inject.ok()) {
      EXPECT_TRUE(s.IsSuccess()) << c.name;
    } else {
      EXPECT_EQ(s.code(), framework::Code::kError) << c.name;
      EXPECT_EQ(s.Message(), c.inject.message()) << c.name;
    }
    auto calls = handle.bind_calls();
    ASSERT_EQ(calls.size(), 1u) << c.name;
    EXPECT_EQ(calls[0].namespace_, "ns");
    EXPECT_EQ(calls[0].name, "foo");
    EXPECT_EQ(calls[0].uid, "uid-1");
    EXPECT_EQ(calls[0].node, node);
  }
}

TEST(DefaultBinder, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kDefaultBinder);
  auto* bind = dynamic_cast<framework::BindPlugin*>(p->get());
  ASSERT_NE(bind, nullptr);
  framework::CycleState state;
  EXPECT_TRUE(bind->Bind(state, *testing::BuildPod().Name("p").Obj(), "n").IsSuccess());
  EXPECT_EQ(handle.bind_calls().size(), 1u);
}

}  // namespace
}  // namespace stowage::plugins::default_binder
