// Permit with Wait: a held pod binds once every waiting plugin allows it, and goes back on a
// rejection or when its timeout passes.
#include <gtest/gtest.h>

#include <thread>

#include "pkg/framework/runtime/runtime.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::framework::permit_test {
namespace {

struct Waiter : PermitPlugin {
  std::chrono::milliseconds timeout;
  explicit Waiter(std::chrono::milliseconds t) : timeout(t) {}
  std::string_view Name() const override { return "Waiter"; }
  Status Permit(CycleState&, const api::Pod&, std::string_view,
                std::chrono::milliseconds& t) override {
    t = timeout;
    return Status(Code::kWait);
  }
};

std::unique_ptr<Framework> Build(testing::FakeHandle& handle, std::chrono::milliseconds timeout) {
  Registry r;
  EXPECT_TRUE(testing::RegisterSortAndBind(r).ok());
  EXPECT_TRUE(testing::RegisterStub(r, "Waiter", [timeout] { return new Waiter(timeout); }).ok());
  ProfileSpec spec;
  spec.scheduler_name = "p";
  spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
  spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
  spec.at(framework::ExtensionPoint::kPermit) = {{"Waiter"}};
  auto fw = Framework::New(r, spec, handle);
  EXPECT_TRUE(fw.ok()) << fw.status();
  return std::move(*fw);
}

TEST(Permit, WaitingPodBindsWhenAllowed) {
  testing::FakeHandle handle;
  auto fw = Build(handle, std::chrono::minutes(10));
  auto pod = testing::BuildPod().Name("p").UID("uid-1").Obj();
  CycleState state;
  std::chrono::milliseconds wait{0};
  ASSERT_TRUE(fw->RunPermitPlugins(state, *pod, "n1", wait).IsWait());
  auto w = fw->GetWaitingPod("uid-1");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->pending_plugins(), std::vector<std::string>{"Waiter"});
  std::thread allow([&] { w->Allow("Waiter"); });
  EXPECT_TRUE(fw->WaitOnPermit(*pod).IsSuccess());
  allow.join();
  EXPECT_EQ(fw->GetWaitingPod("uid-1"), nullptr);
}

TEST(Permit, RejectionNamesThePlugin) {
  testing::FakeHandle handle;
  auto fw = Build(handle, std::chrono::minutes(10));
  auto pod = testing::BuildPod().Name("p").UID("uid-2").Obj();
  CycleState state;
  std::chrono::milliseconds wait{0};
  ASSERT_TRUE(fw->RunPermitPlugins(state, *pod, "n1", wait).IsWait());
  std::thread reject([&] { fw->GetWaitingPod("uid-2")->Reject("Waiter", "not today"); });
  Status s = fw->WaitOnPermit(*pod);
  reject.join();
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(s.plugin(), "Waiter");
  EXPECT_EQ(s.Message(), "not today");
}

TEST(Permit, TimeoutRejects) {
  testing::FakeHandle handle;
  auto fw = Build(handle, std::chrono::milliseconds(20));
  auto pod = testing::BuildPod().Name("p").UID("uid-3").Obj();
  CycleState state;
  std::chrono::milliseconds wait{0};
  ASSERT_TRUE(fw->RunPermitPlugins(state, *pod, "n1", wait).IsWait());
  Status s = fw->WaitOnPermit(*pod);
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(s.Message(), "rejected due to timeout after waiting 20ms at plugin Waiter");
}

}  // namespace
}  // namespace stowage::framework::permit_test
