// The PodScheduled condition stowage writes, as the real apiserver stores it: observedGeneration
// is the pod's generation when it was tried (upstream 1.37 sets it; the apiserver keeps what
// the scheduler sends), also when the pod changed before its first attempt.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::pod_status_test {
namespace {

using testing::BuildPod;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

// The pod's PodScheduled condition once its reason is reason; nullopt after 30 s.
std::optional<std::pair<api::Pod, api::Condition>> WaitForReason(const std::string& ns,
                                                                 const std::string& name,
                                                                 const std::string& reason) {
  for (int i = 0; i < 150; ++i) {
    auto pod = client::GetObject<api::Pod>(Admin(), ns, name);
    if (pod.ok()) {
      for (const auto& c : pod->status.conditions) {
        if (c.type == "PodScheduled" && c.reason == reason) return std::make_pair(*pod, c);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::nullopt;
}

TEST(PodScheduledCondition, CarriesTheGenerationOfThePodThatWasTried) {
  const std::string ns = "observed-generation";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  testing::RunningScheduler sched(testing::ProfilesConfig({"observing"}));

  // A pod tried as created: generation 1.
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(),
          BuildPod().Namespace(ns).Name("fresh").SchedulerName("observing").Req({{"cpu", "512"}}))
          .ok());
  auto fresh = WaitForReason(ns, "fresh", "Unschedulable");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->second.observed_generation, 1);
  EXPECT_EQ(fresh->second.status, "False");

  // A pod created gated (the apiserver writes PodScheduled=False SchedulingGated), whose spec
  // changes when the gate is lifted: the scheduler reports the generation it tried.
  std::string body = BuildPod()
                         .Namespace(ns)
                         .Name("gated")
                         .SchedulerName("observing")
                         .Req({{"cpu", "512"}})
                         .Json();
  body.replace(body.find("\"spec\":{"), 8,
               R"("spec":{"schedulingGates":[{"name":"example.com/hold"}],)");
  ASSERT_TRUE(Admin().Post("/api/v1/namespaces/" + ns + "/pods", body).ok());
  ASSERT_TRUE(WaitForReason(ns, "gated", "SchedulingGated"));
  ASSERT_TRUE(Admin()
                  .Patch("/api/v1/namespaces/" + ns + "/pods/gated",
                         R"({"spec":{"schedulingGates":null}})", client::kMergePatch)
                  .ok());
  auto gated = WaitForReason(ns, "gated", "Unschedulable");
  ASSERT_TRUE(gated);
  EXPECT_GT(gated->first.metadata.generation, 1);
  EXPECT_EQ(gated->second.observed_generation, gated->first.metadata.generation);
}

}  // namespace
}  // namespace stowage::pod_status_test
