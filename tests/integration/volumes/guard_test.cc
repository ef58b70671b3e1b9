// The volume plugins and DynamicResources' PreFilter on a real kube-apiserver with the PV
// controllers and a provisioner: a pod whose claims cannot be served stays pending with
// upstream's message, a new claim requeues it at once, a WaitForFirstConsumer claim is
// provisioned where the pod goes, and a bound claim's volume pins its pod to the nodes its
// affinity and its zone labels allow.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/metrics/registry.h"
#include "pkg/plugins/volume_binding/volume_binding.h"
#include "pkg/plugins/volume_restrictions/volume_restrictions.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::guard_test {
namespace {

// The cluster runs the PV controllers and the test provisioner (docs/test-cluster.md).
[[maybe_unused]] const bool kStorageFlow = testing::UseStorageFlow();

using json = nlohmann::json;
using testing::BuildClusterNode;
using testing::BuildPod;
using testing::RunningScheduler;

client::RestClient& Admin() { return testing::SharedCluster().Admin(); }

void Create(const std::string& path, const json& body) {
  auto r = Admin().Post(path, body.dump());
  ASSERT_TRUE(r.ok()) << path << ": " << r.status();
}

json Claim(const std::string& name, const std::string& cls, const std::string& volume = "") {
  json spec = {{"accessModes", {"ReadWriteOnce"}},
               {"resources", {{"requests", {{"storage", "1Gi"}}}}},
               {"storageClassName", cls}};
  if (!volume.empty()) spec["volumeName"] = volume;
  json c = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}}},
            {"spec", spec}};
  // With volume, the claim is pre-bound; the PV controller completes the binding.
  return c;
}

// The pod's PodScheduled condition message once the scheduler has written one, else "".
std::string PendingMessage(const std::string& ns, const std::string& pod) {
  auto p = client::GetObject<api::Pod>(Admin(), ns, pod);
  if (!p.ok()) return "";
  for (const auto& c : p->status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") return c.message;
  }
  return "";
}

bool WaitFor(const std::function<bool()>& cond) {
  return testing::Eventually(cond, std::chrono::seconds(30), std::chrono::milliseconds(200));
}

// The node the pod is bound to, once it is (empty if it is not within the wait).
std::string BoundNode(const std::string& ns, const std::string& pod) {
  std::string node;
  WaitFor([&] {
    auto p = client::GetObject<api::Pod>(Admin(), ns, pod);
    node = p.ok() ? p->spec.node_name : "";
    return !node.empty();
  });
  return node;
}

// The whole condition message of a pod rejected at PreFilter on every one of n nodes. When
// VolumeBinding rejects it, DynamicResources' PreFilter never runs and upstream's PostFilter
// answers "not found" in place of preemption's verdict.
std::string RejectedEverywhere(const std::string& reason, int n, bool before_dra = true) {
  const std::string all = std::to_string(n);
  std::string msg = "0/" + all + " nodes are available: " + reason + ".";
  if (before_dra) return msg + " not found";
  return msg + " preemption: 0/" + all + " nodes are available: " + all +
         " Preemption is not helpful for scheduling.";
}

class VolumeGuard : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(testing::EnsureNamespace(Admin(), kNs).ok());
    for (const char* zone : {"a", "b"}) {
      ASSERT_TRUE(testing::CreateNode(
                      Admin(), BuildClusterNode()
                                   .Name(std::string("vg-") + zone)
                                   .Label("kubernetes.io/hostname", std::string("vg-") + zone)
                                   .Label("stowage-test/zone", zone)
                                   .Label(kZoneLabel, std::string("zone-") + zone))
                      .ok());
    }
    Create("/apis/storage.k8s.io/v1/storageclasses",
           {{"apiVersion", "storage.k8s.io/v1"},
            {"kind", "StorageClass"},
            {"metadata", {{"name", "wffc"}}},
            {"provisioner", "example.com/none"},
            {"volumeBindingMode", "WaitForFirstConsumer"}});
    Create("/apis/storage.k8s.io/v1/storageclasses",
           json::parse(R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
             "metadata": {"name": "provisioned"}, "provisioner": "stowage.dev/test-provisioner",
             "volumeBindingMode": "WaitForFirstConsumer",
             "allowedTopologies": [{"matchLabelExpressions": [
               {"key": "stowage-test/zone", "values": ["b"]}]}]})"));
  }
  static constexpr const char* kNs = "volume-guard";
  static constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
  const std::string claims_ = std::string("/api/v1/namespaces/") + kNs + "/persistentvolumeclaims";
};

TEST_F(VolumeGuard, MissingClaimIsUpstreamsMessageAndItsCreationRequeuesThePod) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  ASSERT_TRUE(testing::CreatePod(
                  Admin(), BuildPod().Namespace(kNs).Name("missing").SchedulerName("stowage").PVC(
                               "does-not-exist"))
                  .ok());
  const std::string missing =
      RejectedEverywhere("persistentvolumeclaim \"does-not-exist\" not found", 2);
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "missing") == missing; }))
      << PendingMessage(kNs, "missing");
  // A claim of no class binds immediately; while no PV controller binds it, the pod waits with
  // upstream's next reason, reached through the PVC Add event rather than the periodic flush.
  Create(claims_, Claim("does-not-exist", ""));
  const std::string unbound =
      RejectedEverywhere(std::string(plugins::volume_binding::kErrUnboundImmediate), 2);
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "missing") == unbound; }))
      << PendingMessage(kNs, "missing");
}

TEST_F(VolumeGuard, WaitForFirstConsumerClaimIsProvisionedOnTheChosenNode) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Create(claims_, Claim("data", "provisioned"));
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(kNs).Name("wffc").SchedulerName("stowage").PVC("data"))
          .ok());
  // The class allows zone b only, so the claim is provisioned there and the pod follows it.
  EXPECT_EQ(BoundNode(kNs, "wffc"), "vg-b") << PendingMessage(kNs, "wffc");
  auto pvc = client::GetObject<api::PersistentVolumeClaim>(Admin(), kNs, "data");
  ASSERT_TRUE(pvc.ok()) << pvc.status();
  ASSERT_NE(pvc->metadata.annotations.Get("volume.kubernetes.io/selected-node"), nullptr);
  EXPECT_EQ(*pvc->metadata.annotations.Get("volume.kubernetes.io/selected-node"), "vg-b");
  EXPECT_FALSE(pvc->volume_name.empty());
}

// A provisioner that never answers: PreBind gives up after bindTimeoutSeconds, the pod goes back
// to the queue with upstream's error, and nothing stays assumed (it is retried, not lost).
TEST_F(VolumeGuard, ProvisionerThatNeverAnswersSendsThePodBack) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}) +
                         "  pluginConfig:\n  - name: VolumeBinding\n    args:\n"
                         "      bindTimeoutSeconds: 2\n");
  Create(claims_, Claim("silent", "wffc"));
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(kNs).Name("silent").SchedulerName("stowage").PVC("silent"))
          .ok());
  const std::string want =
      "running PreBind plugin \"VolumeBinding\": binding volumes: context "
      "deadline exceeded";
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "silent") == want; }))
      << PendingMessage(kNs, "silent");
  auto pod = client::GetObject<api::Pod>(Admin(), kNs, "silent");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->spec.node_name, "");
  // The claim keeps the node the scheduler selected, as upstream leaves it for the provisioner.
  auto pvc = client::GetObject<api::PersistentVolumeClaim>(Admin(), kNs, "silent");
  ASSERT_TRUE(pvc.ok());
  EXPECT_NE(pvc->metadata.annotations.Get("volume.kubernetes.io/selected-node"), nullptr);
  // The failed wait is counted as upstream counts it.
  EXPECT_NE(metrics::Registry::Global().Render().find(
                "scheduler_volume_scheduling_stage_error_total{operation=\"bind\"} "),
            std::string::npos);
}

TEST_F(VolumeGuard, BoundVolumeWithNodeAffinityPinsItsPod) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  const json pv = json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "vg-local"},
    "spec": {
      "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
      "storageClassName": "local", "local": {"path": "/mnt/disk"},
      "claimRef": {"namespace": "volume-guard", "name": "local-data"},
      "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "stowage-test/zone", "operator": "In", "values": ["b"]}]}]}}}})");
  Create("/api/v1/persistentvolumes", pv);
  Create(claims_, Claim("local-data", "local", "vg-local"));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod()
                                                .Namespace(kNs)
                                                .Name("local-" + std::to_string(i))
                                                .SchedulerName("stowage")
                                                .PVC("local-data"))
                    .ok());
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(BoundNode(kNs, "local-" + std::to_string(i)), "vg-b") << "local-" << i;
  }
}

// DynamicResources (no guard any more): a claim whose DeviceClass does not exist keeps its pod
// pending with upstream's PreFilter reason; the allocation itself is tested with the DRA flow
// (tests/integration/dra).
TEST_F(VolumeGuard, PodWhoseClaimNamesNoClassStaysPending) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Create(std::string("/apis/resource.k8s.io/v1/namespaces/") + kNs + "/resourceclaims",
         json::parse(R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "one-gpu"}, "spec": {"devices": {"requests": [
             {"name": "gpu", "exactly": {"deviceClassName": "missing.example.com"}}]}}})"));
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(kNs).Name("gpu").SchedulerName("stowage").ResourceClaims(
                       {{"gpu", "one-gpu", std::nullopt}}))
          .ok());
  const std::string want =
      RejectedEverywhere("request gpu: device class missing.example.com does not exist", 2, false);
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "gpu") == want; }))
      << PendingMessage(kNs, "gpu");
}

// VolumeZone: a bound volume labelled with a zone keeps its pods in that zone, and one labelled
// with a zone no node is in keeps its pod pending with upstream's reason.
TEST_F(VolumeGuard, ZoneLabelledVolumeKeepsItsPodsInItsZone) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  for (const char* zone : {"b", "c"}) {
    const std::string name = std::string("vz-") + zone;
    Create("/api/v1/persistentvolumes",
           {{"apiVersion", "v1"},
            {"kind", "PersistentVolume"},
            {"metadata", {{"name", name}, {"labels", {{kZoneLabel, std::string("zone-") + zone}}}}},
            {"spec",
             {{"capacity", {{"storage", "1Gi"}}},
              {"accessModes", {"ReadWriteOnce"}},
              {"storageClassName", "zonal"},
              {"hostPath", {{"path", "/mnt/" + name}}},
              {"claimRef", {{"namespace", kNs}, {"name", name}}}}}});
    Create(claims_, Claim(name, "zonal", name));
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod()
                                                .Namespace(kNs)
                                                .Name("zonal-" + std::to_string(i))
                                                .SchedulerName("stowage")
                                                .PVC("vz-b"))
                    .ok());
  }
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(kNs).Name("nowhere").SchedulerName("stowage").PVC("vz-c"))
          .ok());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(BoundNode(kNs, "zonal-" + std::to_string(i)), "vg-b") << "zonal-" << i;
  }
  const std::string want = RejectedEverywhere("2 node(s) had no available volume zone", 2, false);
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "nowhere") == want; }))
      << PendingMessage(kNs, "nowhere");
}

// VolumeRestrictions: a ReadWriteOncePod claim in use keeps a second pod of the same priority
// pending with upstream's reason, and a pod of higher priority preempts the claim's user.
TEST_F(VolumeGuard, ReadWriteOncePodClaimHasOneUserAndPreemptionFreesIt) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, int>>{{"vr-high", 1000}}) {
    auto pc = Admin().Post(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        R"({"metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) + "}");
    ASSERT_TRUE(pc.ok() || client::IsAlreadyExists(pc.status())) << pc.status();
  }
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Create("/api/v1/persistentvolumes", {{"apiVersion", "v1"},
                                       {"kind", "PersistentVolume"},
                                       {"metadata", {{"name", "vr-rwop"}}},
                                       {"spec",
                                        {{"capacity", {{"storage", "1Gi"}}},
                                         {"accessModes", {"ReadWriteOncePod"}},
                                         {"storageClassName", "single"},
                                         {"hostPath", {{"path", "/mnt/vr-rwop"}}},
                                         {"claimRef", {{"namespace", kNs}, {"name", "solo"}}}}}});
  json claim = Claim("solo", "single", "vr-rwop");
  claim["spec"]["accessModes"] = {"ReadWriteOncePod"};
  Create(claims_, claim);
  auto pod = [&](const std::string& name) {
    return BuildPod().Namespace(kNs).Name(name).SchedulerName("stowage").PVC("solo");
  };
  ASSERT_TRUE(testing::CreatePod(Admin(), pod("first")).ok());
  const std::string first_node = BoundNode(kNs, "first");
  ASSERT_FALSE(first_node.empty());
  ASSERT_TRUE(testing::CreatePod(Admin(), pod("second")).ok());
  const std::string want =
      "0/2 nodes are available: 2 " +
      std::string(plugins::volume_restrictions::kErrReasonReadWriteOncePodConflict) +
      ". preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
  ASSERT_TRUE(WaitFor([&] { return PendingMessage(kNs, "second") == want; }))
      << PendingMessage(kNs, "second");
  ASSERT_TRUE(testing::CreatePod(Admin(), pod("urgent").PriorityClassName("vr-high")).ok());
  ASSERT_TRUE(WaitFor([&] {
    auto first = client::GetObject<api::Pod>(Admin(), kNs, "first");
    return !first.ok() || first->metadata.deletion_timestamp.has_value();
  })) << "the claim's user was not preempted";
  std::string nominated;
  ASSERT_TRUE(WaitFor([&] {
    auto p = client::GetObject<api::Pod>(Admin(), kNs, "urgent");
    nominated = p.ok() ? p->status.nominated_node_name : "";
    return !nominated.empty();
  }));
  EXPECT_EQ(nominated, first_node);
}

// A StatefulSet with a volume claim template of a WaitForFirstConsumer class: each replica's
// claim is provisioned on the node its pod is scheduled to; scaled to zero and back, each pod
// returns to its volume's node.
TEST_F(VolumeGuard, StatefulSetScalesToThreeAndBack) {
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  Create("/apis/storage.k8s.io/v1/storageclasses",
         json::parse(R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
           "metadata": {"name": "sts-local"}, "provisioner": "stowage.dev/test-provisioner",
           "volumeBindingMode": "WaitForFirstConsumer"})"));
  const std::string sts = std::string("/apis/apps/v1/namespaces/") + kNs + "/statefulsets";
  Create(sts, json::parse(R"({"apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "web"},
    "spec": {"replicas": 3, "podManagementPolicy": "Parallel", "serviceName": "web",
      "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"schedulerName": "stowage", "containers": [{"name": "c", "image": "x"}]}},
      "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "sts-local",
        "resources": {"requests": {"storage": "1Gi"}}}}]}})"));
  // Each pod is on the node its claim's volume was provisioned for.
  auto placed = [&] {
    std::vector<std::string> nodes;
    for (int i = 0; i < 3; ++i) {
      const std::string pod = "web-" + std::to_string(i);
      const std::string node = BoundNode(kNs, pod);
      auto pvc = client::GetObject<api::PersistentVolumeClaim>(Admin(), kNs, "data-" + pod);
      EXPECT_TRUE(pvc.ok()) << pod << ": " << pvc.status();
      if (!pvc.ok()) return nodes;
      const std::string* selected =
          pvc->metadata.annotations.Get("volume.kubernetes.io/selected-node");
      EXPECT_NE(selected, nullptr) << pod;
      if (selected != nullptr) EXPECT_EQ(*selected, node) << pod;
      EXPECT_TRUE(WaitFor([&] {
        auto c = client::GetObject<api::PersistentVolumeClaim>(Admin(), kNs, "data-" + pod);
        return c.ok() && c->phase == "Bound";
      })) << pod
          << "'s claim is not bound";
      nodes.push_back(node);
    }
    return nodes;
  };
  const std::vector<std::string> first = placed();
  ASSERT_EQ(first.size(), 3u);
  for (const auto& n : first) EXPECT_FALSE(n.empty());
  auto scale = [&](int replicas) {
    auto r =
        Admin().Patch(sts + "/web", R"({"spec":{"replicas":)" + std::to_string(replicas) + "}}",
                      client::kMergePatch);
    ASSERT_TRUE(r.ok()) << r.status();
  };
  scale(0);
  // No kubelet confirms the graceful deletions, so the test does.
  for (int i = 0; i < 3; ++i) {
    const std::string pod = "web-" + std::to_string(i);
    ASSERT_TRUE(WaitFor([&] {
      auto p = client::GetObject<api::Pod>(Admin(), kNs, pod);
      if (!p.ok()) return true;
      if (p->metadata.deletion_timestamp) (void)testing::DeletePod(Admin(), kNs, pod);
      return false;
    })) << pod
        << " was not deleted";
  }
  scale(3);
  EXPECT_EQ(placed(), first);
}

}  // namespace
}  // namespace stowage::guard_test
