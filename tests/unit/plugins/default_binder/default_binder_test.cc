#include "pkg/plugins/default_binder/default_binder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "stowage/common/clock.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::default_binder::default_binder_test {
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

// 1.37 (util.BindPod): internal errors, service unavailable and refused connections (all
// kUnavailable from pkg/client) are retried, at most 4 attempts; a conflict is not.
TEST(DefaultBinder, RetriesTransientFailures) {
  struct Case {
    std::string name;
    std::vector<stowage::Status> errors;  // returned by the successive BindPod calls
    size_t want_calls;
    bool want_success;
  } cases[] = {
      {"internal error, then bound", {UnavailableError("HTTP 500 Internal Server Error")}, 2, true},
      {"service unavailable twice, then bound",
       {UnavailableError("HTTP 503 Service Unavailable"),
        UnavailableError("HTTP 503 Service Unavailable")},
       3,
       true},
      {"connection refused every time",
       std::vector<stowage::Status>(6, UnavailableError("connecting: Connection refused")), 4,
       false},
      {"conflict is not retried", {AbortedError("HTTP 409 Conflict: already assigned")}, 1, false},
      {"not found is not retried", {NotFoundError("HTTP 404 Not Found")}, 1, false},
  };
  auto pod = testing::BuildPod().Name("foo").Namespace("ns").UID("uid-1").Obj();
  for (const auto& c : cases) {
    testing::FakeHandle handle;
    handle.SetBindErrors(c.errors);
    FakeClock clock;
    DefaultBinder binder(handle, clock);
    framework::CycleState state;
    framework::Status s = binder.Bind(state, *pod, "n");
    EXPECT_EQ(s.IsSuccess(), c.want_success) << c.name;
    if (!c.want_success) {
      EXPECT_EQ(s.code(), framework::Code::kError) << c.name;
      EXPECT_EQ(s.Message(), c.errors[c.want_calls - 1].message()) << c.name;
    }
    EXPECT_EQ(handle.bind_calls().size(), c.want_calls) << c.name;
  }
}

TEST(DefaultBinder, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kDefaultBinder);
  auto* bind = dynamic_cast<framework::BindPlugin*>(p->get());
  ASSERT_NE(bind, nullptr);
  framework::CycleState state;
  EXPECT_TRUE(bind->Bind(state, *testing::BuildPod().Name("p").Obj(), "n").IsSuccess());
  EXPECT_EQ(handle.bind_calls().size(), 1u);
}

}  // namespace
}  // namespace stowage::plugins::default_binder::default_binder_test
