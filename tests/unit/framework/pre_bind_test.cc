// PreBind and its pre-flight: which plugins will work for a pod, and how their failures read.
#include <gtest/gtest.h>

#include <string>

#include "pkg/framework/runtime/runtime.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::framework::pre_bind_test {
namespace {

// Answers the pre-flight and PreBind with the codes it was built with.
struct Binder : PreBindPlugin {
  std::string name;
  Status preflight, prebind;
  Binder(std::string n, Status pf, Status pb)
      : name(std::move(n)), preflight(std::move(pf)), prebind(std::move(pb)) {}
  std::string_view Name() const override { return name; }
  Status PreBindPreFlight(CycleState&, const api::Pod&, std::string_view) override {
    return preflight;
  }
  Status PreBind(CycleState&, const api::Pod&, std::string_view) override { return prebind; }
};

std::unique_ptr<Framework> Build(testing::FakeHandle& handle, Status a_pf, Status a_pb, Status b_pf,
                                 Status b_pb) {
  Registry r;
  EXPECT_TRUE(testing::RegisterSortAndBind(r).ok());
  EXPECT_TRUE(testing::RegisterStub(r, "A", [=] { return new Binder("A", a_pf, a_pb); }).ok());
  EXPECT_TRUE(testing::RegisterStub(r, "B", [=] { return new Binder("B", b_pf, b_pb); }).ok());
  ProfileSpec spec;
  spec.scheduler_name = "p";
  spec.at(ExtensionPoint::kQueueSort) = {{"Sort"}};
  spec.at(ExtensionPoint::kBind) = {{"Bind"}};
  spec.at(ExtensionPoint::kPreBind) = {{"A"}, {"B"}};
  auto fw = Framework::New(r, spec, handle);
  EXPECT_TRUE(fw.ok()) << fw.status();
  return std::move(*fw);
}

TEST(PreBind, PreFlightIsSuccessWhenAnyPluginWillWork) {
  testing::FakeHandle handle;
  auto pod = testing::BuildPod().Name("p").Obj();
  CycleState state;
  auto none = Build(handle, Status::Skip(), {}, Status::Skip(), {});
  EXPECT_TRUE(none->RunPreBindPreFlights(state, *pod, "n1").IsSkip());
  auto one = Build(handle, Status::Skip(), {}, Status(), {});
  EXPECT_TRUE(one->RunPreBindPreFlights(state, *pod, "n1").IsSuccess());
}

TEST(PreBind, PreFlightFailuresAreErrorsNamingThePlugin) {
  testing::FakeHandle handle;
  auto pod = testing::BuildPod().Name("p").Obj();
  CycleState state;
  Status s = Build(handle, Status::Error("no volumes"), {}, Status(), {})
                 ->RunPreBindPreFlights(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running PreBindPreFlight \"A\": no volumes");
  EXPECT_EQ(s.plugin(), "A");
  s = Build(handle, Status::Unschedulable("full"), {}, Status(), {})
          ->RunPreBindPreFlights(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "PreBindPreFlight A returned \"Unschedulable\", which is unsupported. It is supposed "
            "to return Success, Skip, or Error status");
}

TEST(PreBind, AnErrorNamesItsPluginARejectionKeepsItsWords) {
  testing::FakeHandle handle;
  auto pod = testing::BuildPod().Name("p").Obj();
  CycleState state;
  Status s = Build(handle, {}, Status::Error("binding volumes: timeout"), {}, {})
                 ->RunPreBindPlugins(state, *pod, "n1");
  EXPECT_EQ(s.Message(), "running PreBind plugin \"A\": binding volumes: timeout");
  EXPECT_EQ(s.plugin(), "A");
  s = Build(handle, {}, {}, {}, Status::Unschedulable("claim gone"))
          ->RunPreBindPlugins(state, *pod, "n1");
  EXPECT_TRUE(s.IsRejected());
  EXPECT_EQ(s.Message(), "claim gone");
  EXPECT_EQ(s.plugin(), "B");
}

}  // namespace
}  // namespace stowage::framework::pre_bind_test
