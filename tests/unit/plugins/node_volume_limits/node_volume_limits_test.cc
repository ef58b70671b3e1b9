// NodeVolumeLimits, after upstream's csi_test.go: CSI volumes of claims bound, unbound, missing
// their volume or class, in-tree volumes through their CSI migration, inline volumes, ephemeral
// volumes, VolumeAttachments, the VolumeLimitScaling rule and the queueing hints.
#include "pkg/plugins/node_volume_limits/node_volume_limits.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "stowage/plugins/helper/csi_translation.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::node_volume_limits::node_volume_limits_test {
namespace {

using framework::Code;
using framework::QueueingHint;
using testing::BuildNode;
using testing::BuildPod;

constexpr std::string_view kEbs = helper::kAWSEBSDriverName;
constexpr std::string_view kGce = helper::kGCEPDDriverName;
constexpr std::string_view kEbsInTree = helper::kAWSEBSInTreePluginName;
constexpr std::string_view kHostPath = "kubernetes.io/hostpath";
constexpr std::string_view kNode = "node-for-max-pd-test-1";
constexpr std::string_view kClass = "csi-sc";

class LimitsHandle final : public testing::FakeHandle {
 public:
  testing::FakeLister<api::PersistentVolume> pvs;
  testing::FakeLister<api::PersistentVolumeClaim> pvcs;
  testing::FakeLister<api::StorageClass> classes;
  testing::FakeLister<api::CSINode> csi_node_list;
  testing::FakeLister<api::CSIDriver> csi_driver_list;
  testing::FakeLister<api::VolumeAttachment> vas;
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override { return pvs; }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return pvcs;
  }
  const framework::Lister<api::StorageClass>& storage_classes() override { return classes; }
  const framework::Lister<api::CSINode>& csi_nodes() override { return csi_node_list; }
  const framework::Lister<api::CSIDriver>& csi_drivers() override { return csi_driver_list; }
  const framework::Lister<api::VolumeAttachment>& volume_attachments() override { return vas; }
};

// "csi-<driver>-<i>": upstream's fixture names.
std::string Name(std::string_view driver, int i) {
  return "csi-" + std::string(driver) + "-" + std::to_string(i);
}

// Upstream's getFakeCSIPVLister, getFakeCSIPVCLister and getFakeCSIStorageClassLister: four
// bound claims per driver (an in-tree EBS or a host path volume for those plugin names, else a
// CSI volume), csi-4 unbound of class csi-sc, csi-5 without class, csi-6 of class csi-sc bound
// to a volume that does not exist. The class provisions with the first driver.
void AddVolumes(LimitsHandle& h, const std::vector<std::string_view>& drivers) {
  for (std::string_view driver : drivers) {
    for (int i = 0; i < 4; ++i) {
      api::PersistentVolume pv;
      pv.metadata.name = Name(driver, i);
      if (driver == kEbsInTree) {
        pv.source = "awsElasticBlockStore";
        pv.aws_volume_id = pv.metadata.name;
      } else if (driver == kHostPath) {
        pv.source = "hostPath";
      } else {
        pv.source = "csi";
        pv.csi_driver = driver;
        pv.csi_volume_handle = pv.metadata.name;
      }
      h.pvs.Add(pv);
      api::PersistentVolumeClaim c;
      c.metadata.name = Name(driver, i);
      c.metadata.namespace_ = "default";
      c.volume_name = c.metadata.name;
      h.pvcs.Add(c);
    }
  }
  auto claim = [&](std::string name, std::optional<std::string> cls, std::string volume) {
    api::PersistentVolumeClaim c;
    c.metadata.name = std::move(name);
    c.metadata.namespace_ = "default";
    c.storage_class_name = std::move(cls);
    c.volume_name = std::move(volume);
    h.pvcs.Add(c);
  };
  claim("csi-4", std::string(kClass), "");
  claim("csi-5", std::nullopt, "");
  claim("csi-6", std::string(kClass), "missing-in-action");
  api::StorageClass sc;
  sc.metadata.name = kClass;
  sc.provisioner = drivers[0];
  h.classes.Add(sc);
}

// Upstream's buildFakeClientWithVALister: count attachments per driver of csi-<driver>-<i>.
void AddAttachments(LimitsHandle& h, const std::vector<std::string_view>& drivers, int count) {
  for (std::string_view driver : drivers) {
    for (int i = 0; i < count; ++i) {
      api::VolumeAttachment va;
      va.metadata.name = "va-" + std::string(driver) + "-" + std::to_string(i);
      va.node_name = kNode;
      va.attacher = driver;
      va.persistent_volume_name = Name(driver, i);
      h.vas.Add(va);
    }
  }
}

enum class Limits { kNone, kCount, kNoCount, kNoDrivers };

// The node's CSINode: none, every driver with allocatable.count limit, every driver without a
// count, or no driver at all.
void AddCSINode(LimitsHandle& h, Limits source, int32_t limit,
                const std::vector<std::string_view>& drivers) {
  if (source == Limits::kNone) return;
  api::CSINode n;
  n.metadata.name = kNode;
  if (source != Limits::kNoDrivers) {
    for (std::string_view driver : drivers) {
      api::CSINodeDriver d;
      d.name = driver;
      d.node_id = kNode;
      if (source == Limits::kCount) d.allocatable_count = limit;
      n.drivers.push_back(d);
    }
  }
  h.csi_node_list.Add(n);
}

api::PodPtr PodWithClaims(const std::vector<std::string>& claims) {
  auto p = BuildPod().Name("p").Namespace("default");
  for (const std::string& c : claims) p.PVC(c);
  return p.Obj();
}

api::Volume Inline(std::string source, std::string id, std::string name = "") {
  api::Volume v;
  v.name = std::move(name);
  v.source = std::move(source);
  v.aws_volume_id = id;
  v.gce_pd_name = id;
  return v;
}

api::Volume Ephemeral(std::string name) {
  api::Volume v;
  v.name = std::move(name);
  v.source = "ephemeral";
  return v;
}

// An ephemeral volume's claim: <pod>-<volume> in "test", controlled by the pod with uid (none:
// not owned), of class csi-sc.
api::PersistentVolumeClaim EphemeralClaim(std::string name, std::string uid) {
  api::PersistentVolumeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "test";
  if (!uid.empty()) c.metadata.owner_references.push_back({"v1", "Pod", "abc", uid, true});
  c.storage_class_name = std::string(kClass);
  return c;
}

struct Case {
  std::string name;
  api::PodPtr pod;
  std::vector<api::PodPtr> existing;
  std::vector<std::string_view> drivers;
  Limits limits = Limits::kNone;
  int32_t max_vols = 0;
  int va_count = 0;
  std::vector<api::PersistentVolumeClaim> extra_claims;
  Code want = Code::kSuccess;
  std::string want_message;
  bool want_skip = false;
};

// PreFilter then Filter, as upstream's TestCSILimits runs them.
void Check(const Case& c, bool volume_limit_scaling = true,
           std::vector<api::CSIDriver> csi_drivers = {}) {
  SCOPED_TRACE(c.name);
  LimitsHandle h;
  AddVolumes(h, c.drivers);
  AddAttachments(h, c.drivers, c.va_count);
  AddCSINode(h, c.limits, c.max_vols, c.drivers);
  for (const auto& claim : c.extra_claims) h.pvcs.Add(claim);
  for (auto& d : csi_drivers) h.csi_driver_list.Add(std::move(d));
  NodeVolumeLimits pl(h, {false, volume_limit_scaling, "random"});
  auto node = testing::MakeNodeInfo(BuildNode().Name(std::string(kNode)).Obj(), c.existing);
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::NewPodInfo(c.pod);
  framework::Status pre = pl.PreFilter(state, *info, {node.get()}, result);
  EXPECT_EQ(pre.IsSkip(), c.want_skip) << pre.Message();
  if (pre.IsSkip()) return;
  framework::Status s = pl.Filter(state, *info, *node);
  EXPECT_EQ(s.code(), c.want) << s.Message();
  if (c.want != Code::kSuccess) {
    EXPECT_EQ(s.Message(), c.want_message);
  }
}

const std::string kMax(kErrReasonMaxVolumeCountExceeded);

TEST(NodeVolumeLimits, Filter) {
  const auto running = PodWithClaims({Name(kEbs, 3)});
  const auto pending = PodWithClaims({"csi-4"});
  const auto pending2 = PodWithClaims({"csi-4"});  // another pod of the same unbound claim
  const auto missing_pv = PodWithClaims({"csi-6"});
  const auto no_class = PodWithClaims({"csi-5"});
  const auto gce_two = PodWithClaims({Name(kGce, 1), Name(kGce, 2)});
  const auto in_tree_one = PodWithClaims({Name(kEbsInTree, 0)});
  const auto in_tree_two = PodWithClaims({Name(kEbsInTree, 1), Name(kEbsInTree, 2)});
  const auto ebs_one = PodWithClaims({Name(kEbs, 0)});
  const auto ebs_two = PodWithClaims({Name(kEbs, 1), Name(kEbs, 2)});
  const auto non_migratable = PodWithClaims({Name(kHostPath, 0)});
  const auto inline_one =
      BuildPod().Name("i").Volume(Inline("awsElasticBlockStore", "aws-inline1")).Obj();
  const auto inline_same_id =
      BuildPod().Name("i").Volume(Inline("awsElasticBlockStore", Name(kEbs, 1))).Obj();
  const auto ephemeral =
      BuildPod().Name("abc").Namespace("test").UID("12345").Volume(Ephemeral("xyz")).Obj();
  const auto ephemeral_two = BuildPod()
                                 .Name("abc")
                                 .Namespace("test")
                                 .UID("12345II")
                                 .Volume(Ephemeral("x"))
                                 .Volume(Ephemeral("y"))
                                 .Obj();
  api::Volume config_map, secret;
  config_map.source = "configMap";
  secret.source = "secret";
  const auto only_config =
      BuildPod().Name("c").Namespace("default").Volume(config_map).Volume(secret).Obj();
  const auto claim_and_config = BuildPod()
                                    .Name("c")
                                    .Namespace("default")
                                    .Volume(config_map)
                                    .Volume(secret)
                                    .PVC(Name(kEbs, 0))
                                    .Obj();
  const auto ephemeral_and_config = BuildPod()
                                        .Name("abc")
                                        .Namespace("test")
                                        .Volume(config_map)
                                        .Volume(secret)
                                        .Volume(Ephemeral("xyz"))
                                        .Obj();
  const auto inline_and_config = BuildPod()
                                     .Name("c")
                                     .Volume(config_map)
                                     .Volume(secret)
                                     .Volume(Inline("awsElasticBlockStore", "aws-inline1"))
                                     .Obj();
  const auto eph_claim = EphemeralClaim("abc-xyz", "12345");
  const auto not_owned = EphemeralClaim("abc-xyz", "");
  const auto eph_x = EphemeralClaim("abc-x", "12345II");
  const auto eph_y = EphemeralClaim("abc-y", "12345II");
  const std::string missing_eph =
      "looking up PVC test/abc-xyz: persistentvolumeclaims \"abc-xyz\" not found";
  const std::vector<std::string_view> ebs = {kEbs};
  const std::vector<std::string_view> in_tree = {kEbsInTree, kEbs};
  const Code kNo = Code::kUnschedulable;

  const std::vector<Case> cases = {
      {"VolumeAttachments count towards the limit when no pods exist",
       ebs_one,
       {},
       ebs,
       Limits::kCount,
       2,
       2,
       {},
       kNo,
       kMax},
      {"VolumeAttachments under the limit", ebs_one, {}, ebs, Limits::kCount, 2, 1},
      {"fits when node volume limit >= new pod's CSI volumes",
       ebs_one,
       {running, ebs_two},
       ebs,
       Limits::kCount,
       4},
      {"doesn't when node volume limit <= pods' CSI volumes",
       ebs_one,
       {running, ebs_two},
       ebs,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"fits when the driver reports no limit",
       ebs_one,
       {running, ebs_two},
       ebs,
       Limits::kNoCount,
       2},
      {"counts pending claims",
       ebs_one,
       {pending, ebs_two},
       ebs,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"counts one unbound claim of two pods once",
       ebs_one,
       {pending, pending2, ebs_two},
       ebs,
       Limits::kCount,
       4},
      {"counts claims whose volume is missing by their class",
       ebs_one,
       {missing_pv, ebs_two},
       ebs,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"does not count claims without class", ebs_one, {running, no_class}, ebs, Limits::kCount, 2},
      {"counts volumes of the same driver",
       ebs_one,
       {gce_two, ebs_two},
       {kEbs, kGce},
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"does not count volumes of another driver",
       gce_two,
       {ebs_two, running},
       {kEbs, kGce},
       Limits::kCount,
       2},
      {"counts migrated in-tree volumes",
       in_tree_one,
       {in_tree_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"no CSINode: inline volumes are not counted",
       inline_one,
       {in_tree_two},
       in_tree,
       Limits::kNone},
      {"counts unbound claims of a migrated class",
       pending,
       {in_tree_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"no limit for the migrated driver",
       in_tree_one,
       {in_tree_two},
       in_tree,
       Limits::kNoCount,
       2},
      {"does not count non-migratable in-tree volumes",
       non_migratable,
       {ebs_two},
       {kHostPath, kEbs},
       Limits::kCount,
       2},
      {"counts inline in-tree volumes",
       inline_one,
       {in_tree_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"counts in-tree and CSI volumes together (scheduling in-tree)",
       in_tree_one,
       {ebs_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"counts inline, in-tree and CSI volumes together",
       inline_one,
       {ebs_two, in_tree_one},
       in_tree,
       Limits::kCount,
       3,
       0,
       {},
       kNo,
       kMax},
      {"an inline volume with a CSI volume's handle counts once",
       inline_same_id,
       {ebs_two, in_tree_one},
       in_tree,
       Limits::kCount,
       3},
      {"counts in-tree and CSI volumes together (scheduling CSI)",
       ebs_one,
       {in_tree_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
      {"ephemeral volume missing",
       ephemeral,
       {},
       ebs,
       Limits::kNoCount,
       0,
       0,
       {},
       Code::kUnschedulableAndUnresolvable,
       missing_eph},
      {"ephemeral volume not owned",
       ephemeral,
       {},
       ebs,
       Limits::kNoCount,
       0,
       0,
       {not_owned},
       Code::kError,
       "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"},
      {"ephemeral volume unbound", ephemeral, {}, ebs, Limits::kNoCount, 0, 0, {eph_claim}},
      {"ephemeral volume over the limit",
       ephemeral,
       {running, ebs_two},
       ebs,
       Limits::kCount,
       2,
       0,
       {eph_claim},
       kNo,
       kMax},
      {"existing pods' ephemeral volumes count",
       ebs_one,
       {running, ephemeral_two},
       ebs,
       Limits::kCount,
       2,
       0,
       {eph_x, eph_y},
       kNo,
       kMax},
      {"ephemeral and persistent volumes over the limit",
       ebs_one,
       {running, ephemeral, ebs_two},
       ebs,
       Limits::kCount,
       3,
       0,
       {eph_claim},
       kNo,
       kMax},
      {"ephemeral and persistent volumes within the limit",
       ebs_one,
       {running, ephemeral, ebs_two},
       ebs,
       Limits::kCount,
       5,
       0,
       {eph_claim}},
      {"skips pods with only config maps and secrets",
       only_config,
       {},
       ebs,
       Limits::kCount,
       2,
       0,
       {},
       Code::kSuccess,
       "",
       true},
      {"filters pods with claims", claim_and_config, {}, ebs, Limits::kCount, 2},
      {"filters pods with ephemeral volumes",
       ephemeral_and_config,
       {},
       ebs,
       Limits::kNoCount,
       0,
       0,
       {},
       Code::kUnschedulableAndUnresolvable,
       missing_eph},
      {"filters pods with inline migratable volumes",
       inline_and_config,
       {in_tree_two},
       in_tree,
       Limits::kCount,
       2,
       0,
       {},
       kNo,
       kMax},
  };
  for (const Case& c : cases) Check(c, /*volume_limit_scaling=*/false);
  for (const Case& c : cases) Check(c, /*volume_limit_scaling=*/true);  // no CSIDriver: the same
}

// Upstream's TestVolumeLimitScalingGate: a driver whose CSIDriver sets
// preventPodSchedulingIfMissing must be on the node's CSINode.
TEST(NodeVolumeLimits, DriverNotInstalled) {
  const auto pod = PodWithClaims({Name(kEbs, 0)});
  auto driver = [](std::optional<bool> prevent) {
    api::CSIDriver d;
    d.metadata.name = kEbs;
    d.prevent_pod_scheduling_if_missing = prevent;
    return std::vector<api::CSIDriver>{d};
  };
  const std::string not_installed = std::string(kEbs) + " CSI driver is not installed on the node";
  Check({"without preventPodSchedulingIfMissing", pod, {}, {kEbs}, Limits::kNoDrivers}, true,
        driver(std::nullopt));
  Check({"missing from the CSINode",
         pod,
         {},
         {kEbs},
         Limits::kNoDrivers,
         0,
         0,
         {},
         Code::kUnschedulable,
         not_installed},
        true, driver(true));
  Check({"no CSINode at all",
         pod,
         {},
         {kEbs},
         Limits::kNone,
         0,
         0,
         {},
         Code::kUnschedulable,
         not_installed},
        true, driver(true));
  Check({"gate off", pod, {}, {kEbs}, Limits::kNoDrivers}, false, driver(true));
  Check({"installed, within the limit", pod, {}, {kEbs}, Limits::kCount, 2}, true, driver(true));
  Check({"no CSIDriver object", pod, {}, {kEbs}, Limits::kNoDrivers}, true, {});
}

TEST(NodeVolumeLimits, DeferredResizeIsSkipped) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {true, true, "random"});
  auto pod = BuildPod().Name("p").PVC("c").Condition("PodResizePending", "True", "Deferred").Obj();
  auto info = framework::NewPodInfo(pod);
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_TRUE(pl.PreFilter(state, *info, {}, result).IsSkip());
  auto node = testing::MakeNodeInfo(BuildNode().Name("n").Obj());
  EXPECT_TRUE(pl.Filter(state, *info, *node).IsSuccess());
}

// The hint registered for event on resource.
framework::QueueingHintFn HintOf(const NodeVolumeLimits& pl, framework::EventResource resource,
                                 uint32_t action) {
  for (const auto& e : pl.EventsToRegister()) {
    if (e.event.resource == resource && e.event.action == action) return e.hint;
  }
  ADD_FAILURE() << "no event registered";
  return nullptr;
}

TEST(NodeVolumeLimits, Events) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {});
  using R = framework::EventResource;
  const auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].event.Label(), "storage.k8s.io/CSINodeAdd");
  EXPECT_EQ(events[0].hint, nullptr);
  EXPECT_EQ(events[1].event.Label(), "storage.k8s.io/CSINodeUpdate");
  EXPECT_EQ(events[2].event.Label(), "AssignedPodDelete");
  EXPECT_EQ(events[3].event.Label(), "PersistentVolumeClaimAdd");
  EXPECT_EQ(events[4].event.Label(), "storage.k8s.io/VolumeAttachmentDelete");
  EXPECT_EQ(events[4].event.resource, R::kVolumeAttachment);
}

TEST(NodeVolumeLimits, HintAssignedPodDeleted) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {});
  auto hint = HintOf(pl, framework::EventResource::kAssignedPod, framework::kDelete);
  const auto pod = PodWithClaims({Name(kEbs, 2)});
  auto deleted = [&](api::PodPtr p) { return hint(*pod, framework::EventObject(p), {}); };
  EXPECT_EQ(deleted(BuildPod().Name("d").Node("n").PVC("placeholder").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(
      deleted(BuildPod().Name("d").Node("n").Volume(Inline("awsElasticBlockStore", "")).Obj()),
      QueueingHint::kQueue);
  EXPECT_EQ(deleted(BuildPod().Name("d").Node("n").Obj()), QueueingHint::kSkip);
  EXPECT_EQ(deleted(BuildPod().Name("d").PVC(Name(kEbs, 0)).Obj()), QueueingHint::kSkip);
  EXPECT_EQ(deleted(BuildPod().Name("d").NominatedNodeName("n").PVC("x").Obj()),
            QueueingHint::kQueue);
  api::Volume config_map;
  config_map.source = "configMap";
  EXPECT_EQ(deleted(BuildPod().Name("d").Node("n").Volume(config_map).Obj()), QueueingHint::kSkip);
}

TEST(NodeVolumeLimits, HintPVCAdded) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {});
  auto hint = HintOf(pl, framework::EventResource::kPersistentVolumeClaim, framework::kAdd);
  auto added = [&](const api::PodPtr& pod, std::string name, std::string ns) {
    api::PersistentVolumeClaim c;
    c.metadata.name = std::move(name);
    c.metadata.namespace_ = std::move(ns);
    return hint(*pod, {}, std::make_shared<const api::PersistentVolumeClaim>(c));
  };
  const auto with_claim = BuildPod().Name("p").Namespace("ns1").PVC("pvc1").Obj();
  const auto with_ephemeral =
      BuildPod().Name("pod1").Namespace("ns1").Volume(Ephemeral("ephemeral")).Obj();
  const auto without = BuildPod().Name("p").Namespace("ns1").Obj();
  EXPECT_EQ(added(without, "pvc1", "ns2"), QueueingHint::kSkip);
  EXPECT_EQ(added(with_claim, "pvc1", "ns1"), QueueingHint::kQueue);
  EXPECT_EQ(added(with_claim, "pvc1", "ns2"), QueueingHint::kSkip);
  EXPECT_EQ(added(with_ephemeral, "pod1-ephemeral", "ns1"), QueueingHint::kQueue);
  EXPECT_EQ(added(with_claim, "pvc2", "ns1"), QueueingHint::kSkip);
  EXPECT_EQ(added(without, "pvc2", "ns1"), QueueingHint::kSkip);
}

TEST(NodeVolumeLimits, HintVolumeAttachmentDeleted) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {});
  auto hint = HintOf(pl, framework::EventResource::kVolumeAttachment, framework::kDelete);
  auto deleted = [&](const api::PodPtr& pod, std::string attacher) {
    api::VolumeAttachment va;
    va.metadata.name = "volumeattachment1";
    va.node_name = "fake-node";
    va.attacher = std::move(attacher);
    return hint(*pod, std::make_shared<const api::VolumeAttachment>(va), {});
  };
  const auto claim = BuildPod().Name("p").Namespace("ns1").PVC("pvc1").Obj();
  const auto ebs = BuildPod().Name("p").Volume(Inline("awsElasticBlockStore", "test")).Obj();
  const auto gce = BuildPod().Name("p").Volume(Inline("gcePersistentDisk", "test")).Obj();
  const auto both =
      BuildPod().Name("p").Volume(Inline("awsElasticBlockStore", "test")).PVC("pvc1").Obj();
  const auto bad_ebs =
      BuildPod().Name("p").Volume(Inline("awsElasticBlockStore", "aws://zone/bad")).Obj();
  EXPECT_EQ(deleted(claim, "test.storage.gke.io"), QueueingHint::kQueue);
  EXPECT_EQ(deleted(ebs, std::string(kEbs)), QueueingHint::kQueue);
  EXPECT_EQ(deleted(gce, std::string(kEbs)), QueueingHint::kSkip);
  EXPECT_EQ(deleted(both, std::string(kEbs)), QueueingHint::kQueue);
  EXPECT_EQ(deleted(both, "test.storage.gke.io"), QueueingHint::kQueue);
  EXPECT_EQ(deleted(BuildPod().Name("p").Obj(), "test.storage.gke.io"), QueueingHint::kSkip);
  EXPECT_EQ(deleted(bad_ebs, "other"), QueueingHint::kQueue);  // a translation error queues
}

TEST(NodeVolumeLimits, HintCSINodeUpdated) {
  LimitsHandle h;
  NodeVolumeLimits pl(h, {});
  auto hint = HintOf(pl, framework::EventResource::kCSINode, framework::kUpdate);
  auto csi_node = [](std::optional<int32_t> count, std::string driver = std::string(kEbs)) {
    api::CSINode n;
    n.metadata.name = "test-node";
    api::CSINodeDriver d;
    d.name = std::move(driver);
    d.node_id = "test-node";
    d.allocatable_count = count;
    n.drivers.push_back(d);
    return std::make_shared<const api::CSINode>(n);
  };
  const auto pod = PodWithClaims({Name(kEbs, 0)});
  EXPECT_EQ(hint(*pod, csi_node(1), csi_node(2)), QueueingHint::kQueue);
  EXPECT_EQ(hint(*pod, csi_node(2), csi_node(1)), QueueingHint::kSkip);
  EXPECT_EQ(hint(*pod, csi_node(1), csi_node(1)), QueueingHint::kSkip);
  EXPECT_EQ(hint(*pod, csi_node(std::nullopt), csi_node(1)), QueueingHint::kQueue);
  EXPECT_EQ(hint(*pod, csi_node(3), csi_node(1, "other")), QueueingHint::kQueue);
}

TEST(NodeVolumeLimits, RegisteredName) { EXPECT_EQ(kName, names::kNodeVolumeLimits); }

}  // namespace
}  // namespace stowage::plugins::node_volume_limits::node_volume_limits_test
