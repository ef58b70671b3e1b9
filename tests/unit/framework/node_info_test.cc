// NodeInfo's resource accounting against upstream's pkg/scheduler/framework/types_test.go
// (TestNodeInfoAddPod, TestNodeInfoRemovePod): Requested sums the pods' actual requests,
// NonZeroRequested their cpu/memory with defaults for missing requests; both include overhead.
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/framework/types.h"

namespace stowage::framework::node_info_test {
namespace {

api::ResourceList RL(std::initializer_list<std::pair<std::string, std::string>> entries) {
  std::vector<api::ResourceList::Entry> out;
  for (const auto& [name, q] : entries) out.emplace_back(name, api::Quantity::Parse(q).value());
  return api::ResourceList(std::move(out));
}

api::Container C(api::ResourceList requests, int32_t host_port = 0) {
  api::Container c;
  c.resources.requests = std::move(requests);
  if (host_port > 0) {
    api::ContainerPort p;
    p.host_ip = "127.0.0.1";
    p.host_port = host_port;
    p.protocol = "TCP";
    c.ports.push_back(p);
  }
  return c;
}

api::PodPtr Pod(std::string name, std::vector<api::Container> containers,
                std::vector<api::Container> init = {}, api::ResourceList overhead = {}) {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.namespace_ = "node_info_cache_test";
  pod->metadata.name = name;
  pod->metadata.uid = name;
  pod->spec.node_name = "test-node";
  pod->spec.containers = std::move(containers);
  pod->spec.init_containers = std::move(init);
  pod->spec.overhead = std::move(overhead);
  return pod;
}

api::NodePtr Node(api::ResourceList allocatable) {
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "test-node";
  node->status.allocatable = std::move(allocatable);
  return node;
}

constexpr int64_t kDefaultMem = 200 * 1024 * 1024;

TEST(NodeInfo, AddPodAccountsRequestsAndNonZeroRequests) {
  // TestNodeInfoAddPod's three pods.
  const api::ResourceList overhead_cpu = RL({{"cpu", "500m"}});
  const api::ResourceList overhead = RL({{"cpu", "500m"}, {"memory", "500"}});
  std::vector<api::PodPtr> pods = {
      Pod("test-1", {C(RL({{"cpu", "100m"}, {"memory", "500"}}), 80)}, {}, overhead_cpu),
      Pod("test-2", {C(RL({{"cpu", "200m"}}), 8080)}, {}, overhead),
      Pod("test-3", {C(RL({{"cpu", "200m"}}), 8080)},
          {C(RL({{"cpu", "500m"}, {"memory", "200Mi"}}))}, overhead),
  };
  NodeInfo ni;
  ni.SetNode(Node({}));
  int64_t gen = ni.generation();
  for (const auto& p : pods) {
    ni.AddPodInfo(NewPodInfo(p));
    EXPECT_GT(ni.generation(), gen);
    gen = ni.generation();
  }
  EXPECT_EQ(ni.requested().milli_cpu, 2300);
  EXPECT_EQ(ni.requested().memory, 209716700);  // 1500 + 200Mi of test-3's init container
  EXPECT_EQ(ni.requested().ephemeral_storage, 0);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 2300);
  EXPECT_EQ(ni.non_zero_requested().memory, 419431900);  // + the 200Mi default of test-2
  EXPECT_EQ(ni.pods().size(), 3u);
  EXPECT_TRUE(ni.pods_with_affinity().empty());

  // Per-pod values (the cachedResource of each PodInfo in the upstream expectation).
  PodInfoPtr p2 = NewPodInfo(pods[1]);
  EXPECT_EQ(p2->requests.milli_cpu, 700);
  EXPECT_EQ(p2->requests.memory, 500);
  EXPECT_EQ(p2->non0_cpu, 700);
  EXPECT_EQ(p2->non0_mem, kDefaultMem + 500);
  PodInfoPtr p3 = NewPodInfo(pods[2]);
  EXPECT_EQ(p3->requests.milli_cpu, 1000);
  EXPECT_EQ(p3->requests.memory, kDefaultMem + 500);
  EXPECT_EQ(p3->non0_cpu, 1000);
  EXPECT_EQ(p3->non0_mem, kDefaultMem + 500);

  HostPort http{"127.0.0.1", "TCP", 80};
  HostPort alt{"127.0.0.1", "TCP", 8080};
  EXPECT_TRUE(ni.used_ports().CheckConflict(http));
  EXPECT_TRUE(ni.used_ports().CheckConflict(alt));
  EXPECT_FALSE(ni.used_ports().CheckConflict(HostPort{"127.0.0.1", "UDP", 80}));
}

class NodeInfoRemovePodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const api::ResourceList overhead = RL({{"cpu", "500m"}, {"memory", "500"}});
    test1_ = Pod("test-1", {C(RL({{"cpu", "100m"}, {"memory", "500"}}), 80)}, {}, overhead);
    test2_ = Pod("test-2", {C(RL({{"cpu", "200m"}, {"memory", "1Ki"}}), 8080)}, {}, overhead);
    ni_.SetNode(Node(RL({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})));
    ni_.AddPodInfo(NewPodInfo(test1_));
    ni_.AddPodInfo(NewPodInfo(test2_));
  }
  api::PodPtr test1_, test2_;
  NodeInfo ni_;
};

TEST_F(NodeInfoRemovePodTest, BeforeRemoval) {
  EXPECT_EQ(ni_.requested().milli_cpu, 1300);
  EXPECT_EQ(ni_.requested().memory, 2524);
  EXPECT_EQ(ni_.non_zero_requested().milli_cpu, 1300);
  EXPECT_EQ(ni_.non_zero_requested().memory, 2524);
  EXPECT_EQ(ni_.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni_.allocatable().memory, 8LL * 1024 * 1024 * 1024);
  EXPECT_EQ(ni_.allocatable().allowed_pod_number, 110);
}

TEST_F(NodeInfoRemovePodTest, RemovingAnAbsentPodFailsAndChangesNothing) {
  api::Pod absent;
  absent.metadata.namespace_ = "node_info_cache_test";
  absent.metadata.uid = "non-exist";
  const int64_t gen = ni_.generation();
  EXPECT_FALSE(ni_.RemovePod(absent));
  EXPECT_EQ(ni_.pods().size(), 2u);
  EXPECT_EQ(ni_.requested().milli_cpu, 1300);
  EXPECT_EQ(ni_.generation(), gen);
}

TEST_F(NodeInfoRemovePodTest, RemovingAPodSubtractsItsResourcesAndPorts) {
  const int64_t gen = ni_.generation();
  EXPECT_TRUE(ni_.RemovePod(*test1_));
  EXPECT_GT(ni_.generation(), gen);
  EXPECT_EQ(ni_.requested().milli_cpu, 700);
  EXPECT_EQ(ni_.requested().memory, 1524);
  EXPECT_EQ(ni_.non_zero_requested().milli_cpu, 700);
  EXPECT_EQ(ni_.non_zero_requested().memory, 1524);
  ASSERT_EQ(ni_.pods().size(), 1u);
  EXPECT_EQ(ni_.pods()[0]->pod->metadata.name, "test-2");
  EXPECT_FALSE(ni_.used_ports().CheckConflict(HostPort{"127.0.0.1", "TCP", 80}));
  EXPECT_TRUE(ni_.used_ports().CheckConflict(HostPort{"127.0.0.1", "TCP", 8080}));
  // Allocatable belongs to the node, not the pods.
  EXPECT_EQ(ni_.allocatable().milli_cpu, 4000);
}

TEST_F(NodeInfoRemovePodTest, RemovingEveryPodReturnsToZero) {
  EXPECT_TRUE(ni_.RemovePod(*test2_));
  EXPECT_TRUE(ni_.RemovePod(*test1_));
  EXPECT_TRUE(ni_.pods().empty());
  EXPECT_EQ(ni_.requested().milli_cpu, 0);
  EXPECT_EQ(ni_.requested().memory, 0);
  EXPECT_EQ(ni_.non_zero_requested().milli_cpu, 0);
  EXPECT_EQ(ni_.non_zero_requested().memory, 0);
  EXPECT_EQ(ni_.used_ports().size(), 0u);
}

TEST(NodeInfo, NonZeroRequestedUsesDefaultsForRequestlessPods) {
  NodeInfo ni;
  ni.SetNode(Node(RL({{"cpu", "1"}, {"memory", "1Gi"}})));
  ni.AddPodInfo(NewPodInfo(Pod("besteffort", {C({}), C({})})));
  EXPECT_EQ(ni.requested().milli_cpu, 0);
  EXPECT_EQ(ni.requested().memory, 0);
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 200);
  EXPECT_EQ(ni.non_zero_requested().memory, 2 * kDefaultMem);
}

TEST(NodeInfo, ScalarAndEphemeralRequestsAreAccounted) {
  NodeInfo ni;
  ni.SetNode(Node(
      RL({{"example.com/gpu", "8"}, {"ephemeral-storage", "10Gi"}, {"hugepages-2Mi", "1Gi"}})));
  auto p1 = Pod("a", {C(RL({{"example.com/gpu", "2"}, {"ephemeral-storage", "1Gi"}}))});
  auto p2 = Pod("b", {C(RL({{"example.com/gpu", "3"}, {"hugepages-2Mi", "4Mi"}}))});
  ni.AddPodInfo(NewPodInfo(p1));
  ni.AddPodInfo(NewPodInfo(p2));
  EXPECT_EQ(ni.requested().Scalar("example.com/gpu"), 5);
  EXPECT_EQ(ni.requested().Scalar("hugepages-2Mi"), 4 * 1024 * 1024);
  EXPECT_EQ(ni.requested().ephemeral_storage, 1LL << 30);
  EXPECT_EQ(ni.allocatable().Scalar("example.com/gpu"), 8);
  EXPECT_EQ(ni.allocatable().Scalar("hugepages-2Mi"), 1LL << 30);
  EXPECT_EQ(ni.allocatable().ephemeral_storage, 10LL << 30);
  EXPECT_TRUE(ni.RemovePod(*p1));
  EXPECT_EQ(ni.requested().Scalar("example.com/gpu"), 3);
  EXPECT_EQ(ni.requested().ephemeral_storage, 0);
}

TEST(NodeInfo, PodsWithAffinityAreTrackedAndRemoved) {
  auto with_affinity = std::make_shared<api::Pod>(*Pod("aff", {C({})}));
  with_affinity->spec.affinity = api::Affinity{};
  with_affinity->spec.affinity->pod_anti_affinity = api::PodAffinity{};
  with_affinity->spec.affinity->pod_anti_affinity->required.push_back(api::PodAffinityTerm{});
  auto node_affinity_only = std::make_shared<api::Pod>(*Pod("nodeaff", {C({})}));
  node_affinity_only->spec.affinity = api::Affinity{};
  node_affinity_only->spec.affinity->node_affinity = api::NodeAffinity{};

  NodeInfo ni;
  ni.SetNode(Node({}));
  ni.AddPodInfo(NewPodInfo(with_affinity));
  ni.AddPodInfo(NewPodInfo(node_affinity_only));
  EXPECT_EQ(ni.pods_with_affinity().size(), 1u);  // node affinity alone does not count
  EXPECT_EQ(ni.pods_with_required_anti_affinity().size(), 1u);
  EXPECT_TRUE(ni.RemovePod(*with_affinity));
  EXPECT_TRUE(ni.pods_with_affinity().empty());
  EXPECT_TRUE(ni.pods_with_required_anti_affinity().empty());
  EXPECT_EQ(ni.pods().size(), 1u);
}

// Upstream's PVCRefCounts: each claim counted once per pod using it, and gone with its last user.
TEST(NodeInfo, ClaimsInUseAreCountedAndForgotten) {
  auto claim_volume = [](std::string claim) {
    api::Volume v;
    v.name = claim;
    v.source = "persistentVolumeClaim";
    v.claim_name = std::move(claim);
    return v;
  };
  auto a = std::make_shared<api::Pod>(*Pod("a", {C({})}));
  a->metadata.namespace_ = "ns";
  a->spec.volumes = {claim_volume("data"), claim_volume("logs")};
  auto b = std::make_shared<api::Pod>(*Pod("b", {C({})}));
  b->metadata.namespace_ = "ns";
  b->spec.volumes = {claim_volume("data")};
  NodeInfo ni;
  ni.SetNode(Node({}));
  ni.AddPodInfo(NewPodInfo(a));
  ni.AddPodInfo(NewPodInfo(b));
  EXPECT_EQ(ni.pvc_ref_counts(),
            (std::unordered_map<std::string, int>{{"ns/data", 2}, {"ns/logs", 1}}));
  EXPECT_TRUE(ni.RemovePod(*a));
  EXPECT_EQ(ni.pvc_ref_counts(), (std::unordered_map<std::string, int>{{"ns/data", 1}}));
  EXPECT_TRUE(ni.RemovePod(*b));
  EXPECT_TRUE(ni.pvc_ref_counts().empty());
}

// The snapshot copies a cache NodeInfo over its own copy of the node: whatever the source lacks
// (pods with affinity, host ports, claims, images) must be gone from the target afterwards, and
// a copy must not share what the original changes later.
TEST(NodeInfo, CopiesCarryAndClearPodsWithAffinityPortsClaimsAndImages) {
  auto rich = std::make_shared<api::Pod>(*Pod("rich", {C({}, 8080)}));
  rich->spec.affinity = api::Affinity{};
  rich->spec.affinity->pod_anti_affinity = api::PodAffinity{};
  rich->spec.affinity->pod_anti_affinity->required.push_back(api::PodAffinityTerm{});
  api::Volume claim;
  claim.name = "data";
  claim.source = "persistentVolumeClaim";
  claim.claim_name = "data";
  rich->spec.volumes = {claim};
  auto plain = Pod("plain", {C(RL({{"cpu", "1"}}))});

  NodeInfo with;
  with.SetNode(Node({}));
  with.AddPodInfo(NewPodInfo(rich));
  with.SetImageStates({{"img:1", ImageStateSummary{100, 1}}});
  NodeInfo without;
  without.SetNode(Node({}));
  without.AddPodInfo(NewPodInfo(plain));

  NodeInfo copy(with);
  EXPECT_EQ(copy.pods_with_affinity().size(), 1u);
  EXPECT_EQ(copy.pods_with_required_anti_affinity().size(), 1u);
  EXPECT_EQ(copy.used_ports().size(), 1u);
  EXPECT_EQ(copy.pvc_ref_counts().size(), 1u);
  EXPECT_EQ(copy.image_states().size(), 1u);

  with.RemovePod(*rich);  // the copy keeps what it had
  EXPECT_TRUE(with.pods_with_affinity().empty());
  EXPECT_EQ(copy.pods_with_affinity().size(), 1u);
  EXPECT_EQ(copy.used_ports().size(), 1u);

  copy = without;  // assigned over: nothing of the rich pod is left
  EXPECT_TRUE(copy.pods_with_affinity().empty());
  EXPECT_TRUE(copy.pods_with_required_anti_affinity().empty());
  EXPECT_EQ(copy.used_ports().size(), 0u);
  EXPECT_TRUE(copy.pvc_ref_counts().empty());
  EXPECT_TRUE(copy.image_states().empty());
  EXPECT_EQ(copy.pods().size(), 1u);
  EXPECT_EQ(copy.requested().milli_cpu, 1000);

  NodeInfo target(without);
  target = with;  // and over a node without them, the images come along
  EXPECT_EQ(target.image_states().size(), 1u);
  EXPECT_TRUE(target.pods().empty());
  with.SetImageStates({});
  EXPECT_TRUE(with.image_states().empty());
  EXPECT_EQ(target.image_states().size(), 1u);
}

TEST(NodeInfo, SetNodeTakesAllocatable) {
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "n";
  node->status.allocatable = RL({{"cpu", "7500m"}, {"memory", "15Gi"}, {"pods", "110"}});
  NodeInfo ni;
  ni.SetNode(node);
  EXPECT_EQ(ni.allocatable().milli_cpu, 7500);
  EXPECT_EQ(ni.allocatable().memory, 15LL << 30);
  EXPECT_EQ(ni.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(ni.name(), "n");
}

}  // namespace
}  // namespace stowage::framework::node_info_test
