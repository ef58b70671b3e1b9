// framework::ComputePodRequests and NewPodInfo against upstream's resourcehelper.PodRequests and
// PodInfo.CalculateResource (component-helpers resource/helpers_test.go,
// pkg/scheduler/framework/types_test.go TestPodInfoCalculateResources).
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/framework/types.h"

namespace stowage::framework::pod_requests_test {
namespace {

api::Quantity Q(const std::string& s) { return api::Quantity::Parse(s).value(); }

api::ResourceList RL(std::initializer_list<std::pair<std::string, std::string>> entries) {
  std::vector<api::ResourceList::Entry> out;
  for (const auto& [name, q] : entries) out.emplace_back(name, Q(q));
  return api::ResourceList(std::move(out));
}

api::Container C(api::ResourceList requests) {
  api::Container c;
  c.resources.requests = std::move(requests);
  return c;
}

api::Container Sidecar(api::ResourceList requests) {
  api::Container c = C(std::move(requests));
  c.restart_policy = "Always";
  return c;
}

struct PodSpecCase {
  std::string name;
  std::vector<api::Container> init;
  std::vector<api::Container> containers;
  api::ResourceList overhead;
  std::optional<api::ResourceList> pod_level;
};

api::Pod MakePod(const PodSpecCase& tc) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.spec.init_containers = tc.init;
  pod.spec.containers = tc.containers;
  pod.spec.overhead = tc.overhead;
  if (tc.pod_level) {
    pod.spec.resources = api::ResourceRequirements{};
    pod.spec.resources->requests = *tc.pod_level;
  }
  return pod;
}

Resource CpuMem(int64_t milli, int64_t mem) {
  Resource r;
  r.milli_cpu = milli;
  r.memory = mem;
  return r;
}

// --- ComputePodRequests (actual requests) -------------------------------------------------

struct RequestsCase {
  PodSpecCase pod;
  Resource want;
};

void PrintTo(const RequestsCase& c, std::ostream* os) { *os << c.pod.name; }

class ComputePodRequestsTest : public ::testing::TestWithParam<RequestsCase> {};

TEST_P(ComputePodRequestsTest, MatchesUpstream) {
  const RequestsCase& tc = GetParam();
  EXPECT_EQ(ComputePodRequests(MakePod(tc.pod)), tc.want) << tc.pod.name;
}

constexpr int64_t kMi = 1024 * 1024;

INSTANTIATE_TEST_SUITE_P(
    Upstream, ComputePodRequestsTest,
    ::testing::Values(
        RequestsCase{{"no containers"}, Resource{}},
        RequestsCase{{"larger init container",
                      {C(RL({{"cpu", "2"}, {"memory", "1Gi"}}))},
                      {C(RL({{"cpu", "1"}, {"memory", "512Mi"}}))}},
                     CpuMem(2000, 1024 * kMi)},
        RequestsCase{{"larger containers",
                      {C(RL({{"cpu", "2"}}))},
                      {C(RL({{"cpu", "1"}})), C(RL({{"cpu", "1500m"}}))}},
                     CpuMem(2500, 0)},
        // resource/helpers_test.go "restartable init container": sidecar 1 + regular 1 = 2.
        RequestsCase{
            {"restartable init container", {Sidecar(RL({{"cpu", "1"}}))}, {C(RL({{"cpu", "1"}}))}},
            CpuMem(2000, 0)},
        // max(5, sidecars(1+2+3) + regular(1)) = 7.
        RequestsCase{{"multiple restartable init containers",
                      {C(RL({{"cpu", "5"}})), Sidecar(RL({{"cpu", "1"}})),
                       Sidecar(RL({{"cpu", "2"}})), Sidecar(RL({{"cpu", "3"}}))},
                      {C(RL({{"cpu", "1"}}))}},
                     CpuMem(7000, 0)},
        // init-2 needs 5 + the sidecars started before it (1+2) = 8; sidecar 3 starts later.
        RequestsCase{
            {"multiple restartable and regular init containers",
             {C(RL({{"cpu", "5"}})), Sidecar(RL({{"cpu", "1"}})), Sidecar(RL({{"cpu", "2"}})),
              C(RL({{"cpu", "5"}})), Sidecar(RL({{"cpu", "3"}}))},
             {C(RL({{"cpu", "1"}}))}},
            CpuMem(8000, 0)},
        RequestsCase{{"restartable-init, init and regular",
                      {Sidecar(RL({{"cpu", "10"}})), C(RL({{"cpu", "200"}}))},
                      {C(RL({{"cpu", "100"}}))}},
                     CpuMem(210000, 0)},
        RequestsCase{{"overhead included",
                      {},
                      {C(RL({{"cpu", "1"}, {"memory", "1Gi"}}))},
                      RL({{"cpu", "500m"}, {"memory", "100Mi"}})},
                     CpuMem(1500, 1124 * kMi)},
        // TestPodLevelResourceRequests.
        RequestsCase{{"pod level memory only", {}, {}, {}, RL({{"memory", "2Mi"}})},
                     CpuMem(0, 2 * kMi)},
        RequestsCase{{"pod level memory and container cpu",
                      {},
                      {C(RL({{"cpu", "2m"}}))},
                      {},
                      RL({{"memory", "2Mi"}})},
                     CpuMem(2, 2 * kMi)},
        RequestsCase{{"pod level and container level",
                      {},
                      {C(RL({{"cpu", "2m"}, {"memory", "3Mi"}}))},
                      {},
                      RL({{"cpu", "8m"}, {"memory", "6Mi"}})},
                     CpuMem(8, 6 * kMi)},
        RequestsCase{{"container and sidecar",
                      {Sidecar(RL({{"cpu", "4m"}, {"memory", "5Mi"}}))},
                      {C(RL({{"cpu", "2m"}, {"memory", "3Mi"}}))}},
                     CpuMem(6, 8 * kMi)},
        RequestsCase{{"container, sidecar and init",
                      {Sidecar(RL({{"cpu", "4m"}, {"memory", "5Mi"}})),
                       C(RL({{"cpu", "8m"}, {"memory", "6Mi"}}))},
                      {C(RL({{"cpu", "2m"}, {"memory", "3Mi"}}))}},
                     CpuMem(12, 11 * kMi)},
        RequestsCase{{"pod level overrides container, sidecar and init",
                      {Sidecar(RL({{"cpu", "4m"}, {"memory", "5Mi"}})),
                       C(RL({{"cpu", "8m"}, {"memory", "6Mi"}}))},
                      {C(RL({{"cpu", "2m"}, {"memory", "3Mi"}}))},
                      {},
                      RL({{"cpu", "18m"}, {"memory", "15Mi"}})},
                     CpuMem(18, 15 * kMi)},
        // Pod-level overrides come before the overhead is added.
        RequestsCase{{"pod level plus overhead",
                      {},
                      {C(RL({{"cpu", "1"}}))},
                      RL({{"cpu", "100m"}}),
                      RL({{"cpu", "2"}})},
                     CpuMem(2100, 0)}),
    [](const ::testing::TestParamInfo<RequestsCase>& info) {
      return "Case" + std::to_string(info.index);
    });

TEST(ComputePodRequests, PodLevelUnsupportedResourcesAreIgnored) {
  // "pod level unsupported resources set at pod-level": only cpu, memory and hugepages-* at the
  // pod level replace the container aggregate.
  PodSpecCase tc{
      "", {}, {C(RL({{"ephemeral-storage", "3Mi"}}))}, {}, RL({{"ephemeral-storage", "2Mi"}})};
  Resource got = ComputePodRequests(MakePod(tc));
  EXPECT_EQ(got.ephemeral_storage, 3 * kMi);
}

TEST(ComputePodRequests, PodLevelHugepagesReplaceContainerHugepages) {
  PodSpecCase tc{"",
                 {},
                 {C(RL({{"hugepages-2Mi", "4Mi"}, {"hugepages-1Gi", "1Gi"}}))},
                 {},
                 RL({{"hugepages-2Mi", "6Mi"}, {"memory", "8Mi"}})};
  Resource got = ComputePodRequests(MakePod(tc));
  EXPECT_EQ(got.Scalar("hugepages-2Mi"), 6 * kMi);
  EXPECT_EQ(got.Scalar("hugepages-1Gi"), 1024 * kMi);  // not set at the pod level: kept
  EXPECT_EQ(got.memory, 8 * kMi);
}

TEST(ComputePodRequests, ScalarAndExtendedResources) {
  PodSpecCase tc{"",
                 {C(RL({{"example.com/gpu", "3"}}))},
                 {C(RL({{"example.com/gpu", "1"}, {"ephemeral-storage", "1Gi"}})),
                  C(RL({{"example.com/gpu", "1"}, {"kubernetes.io/foo", "2"}}))}};
  Resource got = ComputePodRequests(MakePod(tc));
  EXPECT_EQ(got.Scalar("example.com/gpu"), 3);  // max(init 3, containers 1+1)
  EXPECT_EQ(got.Scalar("kubernetes.io/foo"), 2);
  EXPECT_EQ(got.ephemeral_storage, 1024 * kMi);
}

// --- in-place resize: max(spec, allocated, actuated) over the whole pod (1.37) -----------

api::Container Named(std::string name, api::ResourceList requests, bool sidecar = false) {
  api::Container c = sidecar ? Sidecar(std::move(requests)) : C(std::move(requests));
  c.name = std::move(name);
  return c;
}

api::ContainerStatus StatusOf(std::string name, std::optional<api::ResourceList> allocated,
                              std::optional<api::ResourceList> actuated) {
  api::ContainerStatus cs;
  cs.name = std::move(name);
  cs.allocated_resources = std::move(allocated);
  if (actuated) cs.resources = api::AppliedResources{std::move(actuated), std::nullopt};
  return cs;
}

void SetResizePending(api::Pod& pod, std::string reason) {
  pod.status.conditions.push_back({"PodResizePending", "True", std::move(reason), "", ""});
}

TEST(ComputePodRequestsResize, PerResourceMaximumOfSpecAllocatedAndActuated) {
  api::Pod pod = MakePod(
      {"",
       {},
       {Named("c", RL({{"cpu", "30m"}, {"memory", "20M"}, {"ephemeral-storage", "10G"}}))}});
  pod.status.container_statuses = {
      StatusOf("c", RL({{"cpu", "20m"}, {"memory", "10M"}, {"ephemeral-storage", "30G"}}),
               RL({{"cpu", "10m"}, {"memory", "30M"}, {"ephemeral-storage", "20G"}}))};
  Resource got = ComputePodRequests(pod);
  EXPECT_EQ(got.milli_cpu, 30);
  EXPECT_EQ(got.memory, 30'000'000);
  EXPECT_EQ(got.ephemeral_storage, 30'000'000'000);
}

TEST(ComputePodRequestsResize, InfeasibleResizeLeavesTheSpecOut) {
  api::Pod pod = MakePod({"", {}, {Named("c", RL({{"cpu", "6"}}))}});
  pod.status.container_statuses = {StatusOf("c", RL({{"cpu", "4"}}), RL({{"cpu", "2"}}))};
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 6000);  // resize in progress: spec counts
  SetResizePending(pod, "Infeasible");
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 4000);  // max(allocated 4, actuated 2)
  SetResizePending(pod, "Deferred");  // the first PodResizePending condition decides
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 4000);
}

TEST(ComputePodRequestsResize, InfeasibleWithoutStatusCountsNothingForTheContainer) {
  api::Pod pod = MakePod({"", {}, {Named("c", RL({{"cpu", "4"}}))}});
  SetResizePending(pod, "Infeasible");
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 0);
}

// 1.37: ordinary init containers use their status too (1.36 read it for sidecars only).
TEST(ComputePodRequestsResize, RegularInitContainerUsesItsStatus) {
  api::Pod pod =
      MakePod({"", {Named("init", RL({{"cpu", "1"}}))}, {Named("c", RL({{"cpu", "1"}}))}});
  pod.status.init_container_statuses = {StatusOf("init", RL({{"cpu", "3"}}), std::nullopt)};
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 3000);
}

TEST(ComputePodRequestsResize, WholePodAggregatesNotPerContainerMaxima) {
  // Spec sums to 4 (1+3), the allocated view to 4 (3+1): the maximum of the aggregates is 4,
  // where a per-container maximum would give 6.
  api::Pod pod =
      MakePod({"", {}, {Named("a", RL({{"cpu", "1"}})), Named("b", RL({{"cpu", "3"}}))}});
  pod.status.container_statuses = {StatusOf("a", RL({{"cpu", "3"}}), std::nullopt),
                                   StatusOf("b", RL({{"cpu", "1"}}), std::nullopt)};
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 4000);
}

TEST(ComputePodRequestsResize, PodLevelStatusReplacesContainerStatuses) {
  api::Pod pod = MakePod({"", {}, {Named("c", RL({{"cpu", "1"}}))}});
  pod.status.container_statuses = {StatusOf("c", RL({{"cpu", "5"}}), std::nullopt)};
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 5000);  // no pod-level status: containers'
  pod.status.allocated_resources = RL({{"cpu", "2"}});
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 5000);  // both pod-level lists are needed
  pod.status.resources = api::AppliedResources{RL({{"cpu", "3"}, {"memory", "1Mi"}}), {}};
  Resource got = ComputePodRequests(pod);
  EXPECT_EQ(got.milli_cpu, 3000);
  EXPECT_EQ(got.memory, kMi);
}

TEST(ComputePodRequestsResize, PodLevelRequestsTakeTheStatusMaximum) {
  api::Pod pod = MakePod({"", {}, {Named("c", RL({{"cpu", "1"}}))}, {}, RL({{"cpu", "4"}})});
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 4000);
  pod.status.allocated_resources = RL({{"cpu", "3"}});
  pod.status.resources = api::AppliedResources{RL({{"cpu", "2"}}), {}};
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 4000);
  pod.status.allocated_resources = RL({{"cpu", "6"}});
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 6000);
  pod.status.allocated_resources = RL({{"cpu", "3"}});
  SetResizePending(pod, "Infeasible");
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 3000);  // the pod-level spec is left out too
}

TEST(PodResize, DeferredAndInfeasible) {
  api::Pod pod;
  EXPECT_FALSE(IsPodResizeDeferred(pod));
  EXPECT_FALSE(IsPodResizeInfeasible(pod));
  SetResizePending(pod, "Deferred");
  EXPECT_TRUE(IsPodResizeDeferred(pod));
  EXPECT_FALSE(IsPodResizeInfeasible(pod));
}

// --- non-zero requests (the scorer's view, NonMissingContainerRequests) -------------------

TEST(ComputePodRequestsNonZero, MissingCpuAndMemoryBecomeDefaultsPerContainer) {
  PodSpecCase tc{"", {}, {C({}), C(RL({{"cpu", "300m"}})), C(RL({{"memory", "1Gi"}}))}};
  Resource got = ComputePodRequests(MakePod(tc), /*non_zero=*/true);
  EXPECT_EQ(got.milli_cpu, 100 + 300 + 100);
  EXPECT_EQ(got.memory, 200 * kMi + 200 * kMi + 1024 * kMi);
}

TEST(ComputePodRequestsNonZero, ExplicitZeroIsNotMissing) {
  PodSpecCase tc{"", {}, {C(RL({{"cpu", "0"}, {"memory", "0"}}))}};
  Resource got = ComputePodRequests(MakePod(tc), true);
  EXPECT_EQ(got.milli_cpu, 0);
  EXPECT_EQ(got.memory, 0);
}

TEST(ComputePodRequestsNonZero, InitContainersGetDefaultsToo) {
  PodSpecCase tc{"", {C(RL({{"cpu", "1"}}))}, {C({})}};
  Resource got = ComputePodRequests(MakePod(tc), true);
  EXPECT_EQ(got.milli_cpu, 1000);    // max(init 1000, container default 100)
  EXPECT_EQ(got.memory, 200 * kMi);  // both default to 200Mi; max is 200Mi
}

TEST(ComputePodRequestsNonZero, OverheadAddedAfterDefaults) {
  PodSpecCase tc{"", {}, {C({})}, RL({{"cpu", "50m"}, {"memory", "10Mi"}})};
  Resource got = ComputePodRequests(MakePod(tc), true);
  EXPECT_EQ(got.milli_cpu, 150);
  EXPECT_EQ(got.memory, 210 * kMi);
}

TEST(ComputePodRequestsNonZero, PodLevelOverridesDefaults) {
  PodSpecCase tc{"", {}, {C({}), C({})}, {}, RL({{"cpu", "250m"}})};
  Resource got = ComputePodRequests(MakePod(tc), true);
  EXPECT_EQ(got.milli_cpu, 250);
  EXPECT_EQ(got.memory, 400 * kMi);  // not set at the pod level: per-container defaults
}

// --- NewPodInfo: PodInfo.CalculateResource ------------------------------------------------

struct PodInfoCase {
  PodSpecCase pod;
  Resource want_requests;
  int64_t want_non0_cpu;
  int64_t want_non0_mem;
};

void PrintTo(const PodInfoCase& c, std::ostream* os) { *os << c.pod.name; }

class NewPodInfoTest : public ::testing::TestWithParam<PodInfoCase> {};

TEST_P(NewPodInfoTest, CalculateResource) {
  const PodInfoCase& tc = GetParam();
  PodInfoPtr info = NewPodInfo(std::make_shared<api::Pod>(MakePod(tc.pod)));
  EXPECT_EQ(info->requests, tc.want_requests) << tc.pod.name;
  EXPECT_EQ(info->non0_cpu, tc.want_non0_cpu) << tc.pod.name;
  EXPECT_EQ(info->non0_mem, tc.want_non0_mem) << tc.pod.name;
}

constexpr int64_t kM = 1000 * 1000;

INSTANTIATE_TEST_SUITE_P(
    Upstream, NewPodInfoTest,
    ::testing::Values(
        PodInfoCase{{"requestless container", {}, {C({})}}, Resource{}, 100, 200 * kMi},
        PodInfoCase{
            {"1X container with requests", {}, {C(RL({{"cpu", "500m"}, {"memory", "500M"}}))}},
            CpuMem(500, 500 * kM),
            500,
            500 * kM},
        PodInfoCase{{"2X container with requests",
                     {},
                     {C(RL({{"cpu", "500m"}, {"memory", "500M"}})),
                      C(RL({{"cpu", "700m"}, {"memory", "800M"}}))}},
                    CpuMem(1200, 1300 * kM),
                    1200,
                    1300 * kM},
        PodInfoCase{{"1X container and 1X init container with pod-level requests",
                     {C(RL({{"cpu", "500m"}, {"memory", "500M"}}))},
                     {C(RL({{"cpu", "500m"}, {"memory", "500M"}}))},
                     {},
                     RL({{"cpu", "1200m"}, {"memory", "1200M"}})},
                    CpuMem(1200, 1200 * kM),
                    1200,
                    1200 * kM},
        PodInfoCase{{"1X container and 1X sidecar container with pod-level requests",
                     {Sidecar(RL({{"cpu", "500m"}, {"memory", "500M"}}))},
                     {C(RL({{"cpu", "500m"}, {"memory", "500M"}}))},
                     {},
                     RL({{"cpu", "1200m"}, {"memory", "1200M"}})},
                    CpuMem(1200, 1200 * kM),
                    1200,
                    1200 * kM},
        PodInfoCase{{"1X container with pod-level memory requests",
                     {C({})},
                     {C({})},
                     {},
                     RL({{"memory", "1200M"}})},
                    CpuMem(0, 1200 * kM),
                    100,
                    1200 * kM},
        PodInfoCase{{"1X container with pod-level cpu requests",
                     {C({})},
                     {C({})},
                     {},
                     RL({{"cpu", "500m"}})},
                    CpuMem(500, 0),
                    500,
                    200 * kMi},
        PodInfoCase{{"1X container unsupported resources and pod-level supported resources",
                     {C(RL({{"ephemeral-storage", "500M"}}))},
                     {C(RL({{"ephemeral-storage", "800M"}}))},
                     {},
                     RL({{"cpu", "500m"}})},
                    [] {
                      Resource r = CpuMem(500, 0);
                      r.ephemeral_storage = 800 * kM;
                      return r;
                    }(),
                    500,
                    200 * kMi},
        // getNonMissingContainerRequests: with pod-level requests set, a resource some
        // container requests is not defaulted for the containers that omit it.
        PodInfoCase{{"pod-level memory, one of two containers requests cpu",
                     {},
                     {C(RL({{"cpu", "200m"}})), C({})},
                     {},
                     RL({{"memory", "1Gi"}})},
                    CpuMem(200, 1024 * kMi),
                    200,
                    1024 * kMi},
        // Without pod-level requests, every container missing cpu gets the default.
        PodInfoCase{{"no pod-level, one of two containers requests cpu",
                     {},
                     {C(RL({{"cpu", "200m"}})), C({})}},
                    CpuMem(200, 0),
                    300,
                    400 * kMi},
        PodInfoCase{{"overhead counts in non-zero requests",
                     {},
                     {C({})},
                     RL({{"cpu", "100m"}, {"memory", "200M"}})},
                    CpuMem(100, 200 * kM),
                    200,
                    200 * kMi + 200 * kM}),
    [](const ::testing::TestParamInfo<PodInfoCase>& info) {
      return "Case" + std::to_string(info.index);
    });

}  // namespace
}  // namespace stowage::framework::pod_requests_test
