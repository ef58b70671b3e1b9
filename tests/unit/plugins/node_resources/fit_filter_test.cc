// NodeResourcesFit PreFilter/Filter, mirroring upstream fit_test.go TestEnoughRequests,
// TestNotEnoughRequests, TestStorageRequests, TestRestartableInitContainers and
// TestPreFilterDisabled.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pkg/plugins/node_resources/fit.h"
#include "stowage/plugin_config/args.h"
#include "tests/testing/fixtures.h"
#include "tests/unit/plugins/node_resources/test_util.h"

namespace stowage::plugins::node_resources::fit_filter_test {
namespace {

using framework::Code;
using testutil::ResourcePod;
using testutil::Usage;

const std::string kA = "example.com/aaa";
const std::string kB = "example.com/bbb";
const std::string kKubeIOA = "kubernetes.io/something";
const std::string kKubeIOB = "subdomain.kubernetes.io/something";
const std::string kHugeA = "hugepages-2Mi";

// makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA).
api::NodePtr AllocatableNode(int64_t milli_cpu, int64_t memory, int64_t pods, int64_t ext_a,
                             int64_t storage, int64_t huge_a) {
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "node";
  node->status.allocatable = api::ResourceList({
      {"cpu", api::Quantity::FromMilli(milli_cpu)},
      {"memory", api::Quantity::FromValue(memory)},
      {"pods", api::Quantity::FromValue(pods)},
      {kA, api::Quantity::FromValue(ext_a)},
      {"ephemeral-storage", api::Quantity::FromValue(storage)},
      {kHugeA, api::Quantity::FromValue(huge_a)},
  });
  return node;
}

api::PodPtr WithOverhead(api::PodPtr pod, api::ResourceList overhead) {
  auto copy = std::make_shared<api::Pod>(*pod);
  copy->spec.overhead = std::move(overhead);
  return copy;
}

api::PodPtr WithPodLevel(api::PodPtr pod, api::ResourceList requests) {
  auto copy = std::make_shared<api::Pod>(*pod);
  copy->spec.resources = api::ResourceRequirements{std::move(requests), {}};
  return copy;
}

api::ResourceList RL(const stowage::testing::ResourceMap& m) {
  return stowage::testing::MakeResourceList(m);
}

struct FilterCase {
  std::string name;
  api::PodPtr pod;
  std::vector<api::PodPtr> existing;
  std::vector<InsufficientResource> want;  // empty: fits
  Code want_code = Code::kSuccess;
  config::NodeResourcesFitArgs args = {};
};
void PrintTo(const FilterCase& c, std::ostream* os) { *os << c.name; }

InsufficientResource R(const std::string& name, int64_t req, int64_t used, int64_t cap,
                       bool unresolvable = false) {
  return {name, "Insufficient " + name, req, used, cap, unresolvable};
}

framework::Status RunFilter(Fit& fit, const api::PodPtr& pod, const framework::NodeInfo& node) {
  framework::CycleState state;
  framework::PodInfoPtr info = framework::NewPodInfo(pod);
  framework::PreFilterResult result;
  framework::Status pre = fit.PreFilter(state, *info, {}, result);
  EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
  EXPECT_FALSE(result.node_names.has_value());
  return fit.Filter(state, *info, node);
}

class EnoughRequestsTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(EnoughRequestsTest, Filter) {
  const FilterCase& tc = GetParam();
  stowage::testing::FakeHandle handle;
  auto plugin = NewFit(tc.args, handle, {});
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  auto& fit = dynamic_cast<Fit&>(**plugin);
  auto node = stowage::testing::MakeNodeInfo(AllocatableNode(10, 20, 32, 5, 20, 5), tc.existing);

  framework::Status got = RunFilter(fit, tc.pod, *node);
  EXPECT_EQ(got.code(), tc.want_code) << got.Message();
  std::vector<std::string> want_reasons;
  for (const auto& r : tc.want) want_reasons.push_back(r.reason);
  if (!tc.want.empty()) {
    EXPECT_EQ(got.reasons(), want_reasons);
  }

  // The pure helper reports the same resources with their numbers.
  IgnoredResources ignored;
  ignored.names.insert(tc.args.ignored_resources.begin(), tc.args.ignored_resources.end());
  ignored.groups.insert(tc.args.ignored_resource_groups.begin(),
                        tc.args.ignored_resource_groups.end());
  EXPECT_EQ(FitsRequest(framework::ComputePodRequests(*tc.pod), *node, ignored), tc.want);
}

const auto kUnsched = Code::kUnschedulable;
const auto kUnres = Code::kUnschedulableAndUnresolvable;

INSTANTIATE_TEST_SUITE_P(
    Upstream, EnoughRequestsTest,
    ::testing::Values(
        FilterCase{
            "no resources requested always fits", ResourcePod({}), {ResourcePod({{10, 20}})}},
        FilterCase{"too many resources fails",
                   ResourcePod({{1, 1}}),
                   {ResourcePod({{10, 20}})},
                   {R("cpu", 1, 10, 10), R("memory", 1, 20, 20)},
                   kUnsched},
        FilterCase{"too many resources fails due to init container cpu",
                   ResourcePod({{1, 1}}, {{3, 1}}),
                   {ResourcePod({{8, 19}})},
                   {R("cpu", 3, 8, 10)},
                   kUnsched},
        FilterCase{"too many resources fails due to highest init container cpu",
                   ResourcePod({{1, 1}}, {{3, 1}, {2, 1}}),
                   {ResourcePod({{8, 19}})},
                   {R("cpu", 3, 8, 10)},
                   kUnsched},
        FilterCase{"too many resources fails due to init container memory",
                   ResourcePod({{1, 1}}, {{1, 3}}),
                   {ResourcePod({{9, 19}})},
                   {R("memory", 3, 19, 20)},
                   kUnsched},
        FilterCase{"too many resources fails due to highest init container memory",
                   ResourcePod({{1, 1}}, {{1, 3}, {1, 2}}),
                   {ResourcePod({{9, 19}})},
                   {R("memory", 3, 19, 20)},
                   kUnsched},
        FilterCase{"init container fits because it's the max, not sum",
                   ResourcePod({{1, 1}}, {{1, 1}}),
                   {ResourcePod({{9, 19}})}},
        FilterCase{"multiple init containers fit because it's the max, not sum",
                   ResourcePod({{1, 1}}, {{1, 1}, {1, 1}}),
                   {ResourcePod({{9, 19}})}},
        FilterCase{"both resources fit", ResourcePod({{1, 1}}), {ResourcePod({{5, 5}})}},
        FilterCase{"one resource memory fits",
                   ResourcePod({{2, 1}}),
                   {ResourcePod({{9, 5}})},
                   {R("cpu", 2, 9, 10)},
                   kUnsched},
        FilterCase{"one resource cpu fits",
                   ResourcePod({{1, 2}}),
                   {ResourcePod({{5, 19}})},
                   {R("memory", 2, 19, 20)},
                   kUnsched},
        FilterCase{"equal edge case", ResourcePod({{5, 1}}), {ResourcePod({{5, 19}})}},
        FilterCase{"equal edge case for init container",
                   ResourcePod({{4, 1}}, {{5, 1}}),
                   {ResourcePod({{5, 19}})}},
        FilterCase{"extended resource fits", ResourcePod({{0, 0, {{kA, 1}}}}), {ResourcePod({{}})}},
        FilterCase{"extended resource fits for init container",
                   ResourcePod({{}}, {{0, 0, {{kA, 1}}}}),
                   {ResourcePod({{}})}},
        FilterCase{"extended resource capacity enforced",
                   ResourcePod({{1, 1, {{kA, 10}}}}),
                   {ResourcePod({{0, 0, {{kA, 0}}}})},
                   {R(kA, 10, 0, 5, true)},
                   kUnres},
        FilterCase{"extended resource capacity enforced for init container",
                   ResourcePod({{}}, {{1, 1, {{kA, 10}}}}),
                   {ResourcePod({{0, 0, {{kA, 0}}}})},
                   {R(kA, 10, 0, 5, true)},
                   kUnres},
        FilterCase{"extended resource allocatable enforced",
                   ResourcePod({{1, 1, {{kA, 1}}}}),
                   {ResourcePod({{0, 0, {{kA, 5}}}})},
                   {R(kA, 1, 5, 5)},
                   kUnsched},
        FilterCase{"extended resource allocatable enforced for init container",
                   ResourcePod({{}}, {{1, 1, {{kA, 1}}}}),
                   {ResourcePod({{0, 0, {{kA, 5}}}})},
                   {R(kA, 1, 5, 5)},
                   kUnsched},
        FilterCase{"extended resource allocatable enforced for multiple containers",
                   ResourcePod({{1, 1, {{kA, 3}}}, {1, 1, {{kA, 3}}}}),
                   {ResourcePod({{0, 0, {{kA, 2}}}})},
                   {R(kA, 6, 2, 5, true)},
                   kUnres},
        FilterCase{"extended resource allocatable admits multiple init containers",
                   ResourcePod({{}}, {{1, 1, {{kA, 3}}}, {1, 1, {{kA, 3}}}}),
                   {ResourcePod({{0, 0, {{kA, 2}}}})}},
        FilterCase{"extended resource allocatable enforced for multiple init containers",
                   ResourcePod({{}}, {{1, 1, {{kA, 6}}}, {1, 1, {{kA, 3}}}}),
                   {ResourcePod({{0, 0, {{kA, 2}}}})},
                   {R(kA, 6, 2, 5, true)},
                   kUnres},
        FilterCase{"extended resource allocatable enforced for unknown resource",
                   ResourcePod({{1, 1, {{kB, 1}}}}),
                   {ResourcePod({{}})},
                   {R(kB, 1, 0, 0, true)},
                   kUnres},
        FilterCase{"extended resource allocatable enforced for unknown resource for init",
                   ResourcePod({{}}, {{1, 1, {{kB, 1}}}}),
                   {ResourcePod({{}})},
                   {R(kB, 1, 0, 0, true)},
                   kUnres},
        FilterCase{"kubernetes.io resource capacity enforced",
                   ResourcePod({{1, 1, {{kKubeIOA, 10}}}}),
                   {ResourcePod({{}})},
                   {R(kKubeIOA, 10, 0, 0, true)},
                   kUnres},
        FilterCase{"kubernetes.io resource capacity enforced for init container",
                   ResourcePod({{}}, {{1, 1, {{kKubeIOB, 10}}}}),
                   {ResourcePod({{}})},
                   {R(kKubeIOB, 10, 0, 0, true)},
                   kUnres},
        FilterCase{"hugepages resource capacity enforced",
                   ResourcePod({{1, 1, {{kHugeA, 10}}}}),
                   {ResourcePod({{0, 0, {{kHugeA, 0}}}})},
                   {R(kHugeA, 10, 0, 5, true)},
                   kUnres},
        FilterCase{"hugepages resource capacity enforced for init container",
                   ResourcePod({{}}, {{1, 1, {{kHugeA, 10}}}}),
                   {ResourcePod({{0, 0, {{kHugeA, 0}}}})},
                   {R(kHugeA, 10, 0, 5, true)},
                   kUnres},
        FilterCase{"hugepages resource allocatable enforced for multiple containers",
                   ResourcePod({{1, 1, {{kHugeA, 3}}}, {1, 1, {{kHugeA, 3}}}}),
                   {ResourcePod({{0, 0, {{kHugeA, 2}}}})},
                   {R(kHugeA, 6, 2, 5, true)},
                   kUnres},
        FilterCase{"skip checking ignored extended resource",
                   ResourcePod({{1, 1, {{kB, 1}}}}),
                   {ResourcePod({{}})},
                   {},
                   Code::kSuccess,
                   config::NodeResourcesFitArgs{{kB}, {}, std::nullopt}},
        FilterCase{"resources + pod overhead fits",
                   WithOverhead(ResourcePod({{1, 1}}), RL({{"cpu", "3m"}, {"memory", "13"}})),
                   {ResourcePod({{5, 5}})}},
        FilterCase{"requests + overhead does not fit for memory",
                   WithOverhead(ResourcePod({{1, 1}}), RL({{"cpu", "1m"}, {"memory", "15"}})),
                   {ResourcePod({{5, 5}})},
                   {R("memory", 16, 5, 20)},
                   kUnsched},
        FilterCase{"skip checking ignored extended resource via resource groups",
                   ResourcePod({{1, 1, {{kB, 1}, {kKubeIOA, 1}}}}),
                   {ResourcePod({{}})},
                   {R(kKubeIOA, 1, 0, 0, true)},
                   kUnres,
                   config::NodeResourcesFitArgs{{}, {"example.com"}, std::nullopt}},
        FilterCase{"skip checking extended resource request with quantity zero",
                   ResourcePod({{1, 1, {{kA, 0}}}}),
                   {ResourcePod({{0, 0, {{kA, 6}}}})}},
        FilterCase{"skip checking resource request with quantity zero",
                   ResourcePod({{0, 0, {{kA, 1}}}}),
                   {ResourcePod({{20, 30, {{kA, 1}}}})}},
        FilterCase{"both pod-level and container-level resources fit",
                   WithPodLevel(ResourcePod({{1, 1}}), RL({{"cpu", "1m"}, {"memory", "2"}})),
                   {ResourcePod({{5, 5}})}},
        FilterCase{"pod-level cpu resource not fit",
                   WithPodLevel(ResourcePod({{1, 1}}), RL({{"cpu", "7m"}, {"memory", "2"}})),
                   {ResourcePod({{5, 5}})},
                   {R("cpu", 7, 5, 10)},
                   kUnsched},
        FilterCase{"pod-level memory resource not fit",
                   WithPodLevel(ResourcePod({{1, 1}}), RL({{"cpu", "3m"}, {"memory", "2"}})),
                   {ResourcePod({{5, 19}})},
                   {R("memory", 2, 19, 20)},
                   kUnsched},
        FilterCase{
            "pod-level hugepages resource fit",
            WithPodLevel(ResourcePod({}), RL({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}})),
            {}},
        FilterCase{"both pod-level and container-level hugepages resource fit",
                   WithPodLevel(ResourcePod({{1, 1, {{kHugeA, 3}}}}),
                                RL({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "5"}})),
                   {}},
        FilterCase{
            "pod-level hugepages resource not fit",
            WithPodLevel(ResourcePod({}), RL({{"cpu", "3m"}, {"memory", "2"}, {kHugeA, "10"}})),
            {},
            {R(kHugeA, 10, 0, 5, true)},
            kUnres},
        FilterCase{
            "one pod-level cpu resource fits and all init and non-init containers fit",
            WithPodLevel(ResourcePod({{1, 1}}, {{1, 1}}), RL({{"cpu", "3m"}, {"memory", "2"}})),
            {ResourcePod({{5, 19}})},
            {R("memory", 2, 19, 20)},
            kUnsched}),
    [](const ::testing::TestParamInfo<FilterCase>& info) {
      return "Case" + std::to_string(info.index);
    });

// TestNotEnoughRequests: a node allowing 1 pod that already runs one.
TEST(FitFilter, TooManyPods) {
  stowage::testing::FakeHandle handle;
  Fit fit{FitOptions{}};
  const std::vector<std::pair<api::PodPtr, api::PodPtr>> cases = {
      {ResourcePod({}), ResourcePod({{10, 20}})},
      {ResourcePod({{1, 1}}), ResourcePod({{5, 5}})},
      {ResourcePod({{5, 1}}), ResourcePod({{5, 19}})},
      {ResourcePod({{5, 1}}, {{5, 1}}), ResourcePod({{5, 19}})},
  };
  for (const auto& [pod, existing] : cases) {
    auto node = stowage::testing::MakeNodeInfo(AllocatableNode(10, 20, 1, 0, 0, 0), {existing});
    framework::Status got = RunFilter(fit, pod, *node);
    EXPECT_EQ(got.code(), Code::kUnschedulable);
    EXPECT_EQ(got.reasons(), std::vector<std::string>{"Too many pods"});
  }
}

TEST(FitFilter, AllReasonsAreKept) {
  Fit fit{FitOptions{}};
  auto node =
      stowage::testing::MakeNodeInfo(AllocatableNode(10, 20, 1, 5, 20, 5), {ResourcePod({{5, 5}})});
  framework::Status got = RunFilter(fit, ResourcePod({{20, 16, {{kA, 6}, {kB, 1}}, 30}}), *node);
  EXPECT_EQ(got.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(got.reasons(),
            (std::vector<std::string>{"Too many pods", "Insufficient cpu", "Insufficient memory",
                                      "Insufficient ephemeral-storage", "Insufficient " + kA,
                                      "Insufficient " + kB}));
}

// TestStorageRequests.
TEST(FitFilter, EphemeralStorage) {
  Fit fit{FitOptions{}};
  auto node_with = [](std::vector<api::PodPtr> pods) {
    return stowage::testing::MakeNodeInfo(AllocatableNode(10, 20, 32, 5, 20, 5), pods);
  };
  EXPECT_TRUE(
      RunFilter(fit, ResourcePod({{1, 1}}), *node_with({ResourcePod({{2, 10}})})).IsSuccess());
  framework::Status too_much =
      RunFilter(fit, ResourcePod({{0, 0, {}, 25}}), *node_with({ResourcePod({{2, 2}})}));
  EXPECT_EQ(too_much.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(too_much.reasons(), std::vector<std::string>{"Insufficient ephemeral-storage"});
  EXPECT_TRUE(
      RunFilter(fit, ResourcePod({}, {{0, 0, {}, 5}}), *node_with({ResourcePod({{2, 2, {}, 10}})}))
          .IsSuccess());
  EXPECT_TRUE(RunFilter(fit, ResourcePod({{0, 0, {}, 10}}), *node_with({ResourcePod({{2, 2}})}))
                  .IsSuccess());
}

// TestRestartableInitContainers (SidecarContainers is GA: never rejected in PreFilter).
TEST(FitFilter, RestartableInitContainers) {
  Fit fit{FitOptions{}};
  auto node = stowage::testing::MakeNodeInfo(AllocatableNode(2, 0, 1, 0, 0, 0));
  auto sidecar_pod = [](const char* req, const char* sidecar) {
    return stowage::testing::BuildPod()
        .Name("p")
        .Req({{"cpu", req}})
        .SidecarReq({{"cpu", sidecar}})
        .Obj();
  };
  EXPECT_TRUE(
      RunFilter(
          fit,
          stowage::testing::BuildPod().Name("p").SidecarReq({{"memory", "0"}}).Container("c").Obj(),
          *node)
          .IsSuccess());
  EXPECT_TRUE(RunFilter(fit, sidecar_pod("1m", "1m"), *node).IsSuccess());
  framework::Status got = RunFilter(fit, sidecar_pod("1m", "2m"), *node);
  EXPECT_EQ(got.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(got.reasons(), std::vector<std::string>{"Insufficient cpu"});
}

// 1.37: an assigned pod whose resize the kubelet allocated holds the larger allocation on the
// node, so a pod that fits its spec alone is turned away.
TEST(FitFilter, AssignedPodHoldsItsAllocatedResize) {
  Fit fit{FitOptions{}};
  auto assigned = stowage::testing::BuildPod().Name("a").Node("node").Req({{"cpu", "1"}});
  assigned.pod().spec.containers[0].name = "c";
  api::ContainerStatus cs;
  cs.name = "c";
  cs.allocated_resources = RL({{"cpu", "3"}});
  assigned.pod().status.container_statuses = {cs};
  auto node =
      stowage::testing::MakeNodeInfo(AllocatableNode(4000, 0, 10, 0, 0, 0), {assigned.Obj()});
  auto pending = stowage::testing::BuildPod().Name("p").Req({{"cpu", "2"}}).Obj();
  framework::Status got = RunFilter(fit, pending, *node);
  EXPECT_EQ(got.code(), Code::kUnschedulable);
  EXPECT_EQ(got.reasons(), std::vector<std::string>{"Insufficient cpu"});
}

// TestPreFilterDisabled: Filter without PreFilter's state is an error.
TEST(FitFilter, PreFilterNotRun) {
  Fit fit{FitOptions{}};
  auto node = stowage::testing::MakeNodeInfo(AllocatableNode(2, 0, 1, 0, 0, 0));
  framework::CycleState state;
  framework::PodInfoPtr info = framework::NewPodInfo(ResourcePod({}));
  EXPECT_EQ(fit.Filter(state, *info, *node).code(), Code::kError);
}

// The state survives CycleState::Clone (preemption's dry runs).
TEST(FitFilter, StateClones) {
  Fit fit{FitOptions{}};
  framework::CycleState state;
  framework::PodInfoPtr info = framework::NewPodInfo(ResourcePod({{3, 1}}));
  framework::PreFilterResult result;
  ASSERT_TRUE(fit.PreFilter(state, *info, {}, result).IsSuccess());
  auto clone = state.Clone();
  auto node = stowage::testing::MakeNodeInfo(AllocatableNode(2, 10, 10, 0, 0, 0));
  EXPECT_EQ(fit.Filter(*clone, *info, *node).reasons(),
            std::vector<std::string>{"Insufficient cpu"});
}

// The reasons are upstream's, as generated into tests/fixtures/failure_messages.tsv: every
// resource short on a node that has none, in upstream's order, and the pod count.
TEST(FitFilter, MessagesMatchUpstream) {
  Fit fit{FitOptions{}};
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "n";
  node->status.allocatable = RL({{"pods", "1"}});
  auto pod = stowage::testing::BuildPod()
                 .Name("req")
                 .Req({{"cpu", "1"},
                       {"memory", "1Gi"},
                       {"ephemeral-storage", "1Gi"},
                       {"example.com/gpu", "1"}})
                 .Obj();
  std::vector<std::string> want;
  for (int i = 0; i < 4; ++i) {
    want.push_back(stowage::testing::UpstreamFailureReason("NodeResourcesFit.Filter.Resources." +
                                                           std::to_string(i)));
  }
  EXPECT_EQ(RunFilter(fit, pod, *stowage::testing::MakeNodeInfo(node)).reasons(), want);
  auto full = stowage::testing::MakeNodeInfo(node, {stowage::testing::BuildPod().Name("e").Obj()});
  EXPECT_EQ(RunFilter(fit, stowage::testing::BuildPod().Name("p").Obj(), *full).reasons(),
            std::vector<std::string>{
                stowage::testing::UpstreamFailureReason("NodeResourcesFit.Filter.TooManyPods")});
}

}  // namespace
}  // namespace stowage::plugins::node_resources::fit_filter_test
