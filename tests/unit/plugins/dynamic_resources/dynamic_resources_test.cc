// The DynamicResources guard: a pod with resource claims is never placed until claims can be
// allocated; every other pod is left to the rest of the profile.
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"

namespace stowage::plugins::dynamic_resources {
namespace {

using framework::Code;
using testing::BuildPod;

// PostFilter never runs other plugins, so none of these is called.
struct NoRunner final : framework::PluginsRunner {
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState&, const api::Pod&,
                                                const framework::PodInfo&,
                                                const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState&, const api::Pod&,
                                                   const framework::PodInfo&,
                                                   const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
  framework::Status RunFilterPluginsWithNominatedPods(const framework::CycleState&,
                                                      const framework::PodInfo&,
                                                      const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
};

framework::Status PreFilter(const api::PodPtr& pod) {
  DynamicResources pl;
  framework::CycleState state;
  framework::PreFilterResult result;
  return pl.PreFilter(state, *framework::NewPodInfo(pod), {}, result);
}

TEST(DynamicResources, PodsWithoutClaimsAreSkipped) {
  EXPECT_EQ(PreFilter(BuildPod().Obj()).code(), Code::kSkip);
  EXPECT_EQ(PreFilter(BuildPod().Req({{"example.com/gpu", "1"}}).Obj()).code(), Code::kSkip);
}

TEST(DynamicResources, PodsWithClaimsAreNeverPlaced) {
  for (const api::PodResourceClaim& claim :
       {api::PodResourceClaim{"gpu", "one-gpu", std::nullopt},
        api::PodResourceClaim{"gpu", std::nullopt, "gpu-template"}}) {
    framework::Status s = PreFilter(BuildPod().ResourceClaims({claim}).Obj());
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.Message(), kGuardReason);
  }
}

TEST(DynamicResources, PostFilterLetsPreemptionRunOnlyAfterItsPreFilter) {
  DynamicResources pl;
  framework::NodeToStatus filtered;
  framework::NominatingInfo nominating;
  NoRunner runner;
  auto pod = framework::NewPodInfo(BuildPod().Obj());
  // An earlier PreFilter plugin rejected the pod: upstream's state read fails.
  framework::CycleState skipped;
  framework::Status s = pl.PostFilter(skipped, *pod, filtered, runner, nominating);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "not found");
  // PreFilter ran (and skipped the pod): no verdict, the next PostFilter plugin decides.
  framework::CycleState ran;
  framework::PreFilterResult result;
  EXPECT_EQ(pl.PreFilter(ran, *pod, {}, result).code(), Code::kSkip);
  s = pl.PostFilter(ran, *pod, filtered, runner, nominating);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_TRUE(s.reasons().empty());
}

TEST(DynamicResources, WaitsForNoEvent) {
  DynamicResources pl;
  EXPECT_TRUE(pl.EventsToRegister().empty());
  EXPECT_EQ(pl.Name(), names::kDynamicResources);
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources
