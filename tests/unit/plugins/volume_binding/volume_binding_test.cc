// VolumeBinding's checks, table-driven after upstream's volume_binding_test.go PreFilter and
// Filter cases; binder_test.cc covers what it does with unbound delayed claims.
#include "pkg/plugins/volume_binding/volume_binding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "pkg/plugins/volume_binding/claims.h"
#include "stowage/plugins/helper/csi_translation.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/storage_handle.h"

namespace stowage::plugins::volume_binding::volume_binding_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;
using testing::Claim;
using testing::Class;

using testing::StorageHandle;

std::unique_ptr<VolumeBinding> Make(StorageHandle& handle) {
  auto p = New(config::VolumeBindingArgs{}, handle, framework::Features{});
  EXPECT_TRUE(p.ok());
  return std::unique_ptr<VolumeBinding>(dynamic_cast<VolumeBinding*>(p->release()));
}

// A claim the PV controller has bound to volume.
api::PersistentVolumeClaim BoundClaim(std::string name, std::string volume) {
  api::PersistentVolumeClaim c = Claim(std::move(name), std::move(volume));
  c.metadata.annotations = api::StringMap({{std::string(kAnnBindCompleted), "yes"}});
  c.phase = "Bound";
  return c;
}

// A PV whose node affinity requires label key to be value (no affinity when key is empty).
api::PersistentVolume Volume(std::string name, std::string key = "", std::string value = "") {
  api::PersistentVolume pv;
  pv.metadata.name = std::move(name);
  if (!key.empty()) {
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({std::move(key), "In", {std::move(value)}});
    pv.node_affinity.emplace().terms.push_back(std::move(term));
  }
  return pv;
}

api::Volume Ephemeral(std::string name) {
  api::Volume v;
  v.name = std::move(name);
  v.source = "ephemeral";
  return v;
}

struct Case {
  std::string name;
  api::PodPtr pod;
  std::vector<api::PersistentVolumeClaim> pvcs;
  std::vector<api::PersistentVolume> pvs;
  std::vector<api::StorageClass> classes;
  Code prefilter = Code::kSuccess;
  std::string prefilter_message;
  Code filter = Code::kSuccess;  // on a node labelled zone=a
  std::string filter_message;
};

api::PodPtr WithPVCs(std::vector<std::string> names) {
  auto pod = BuildPod().Name("pod-a").Namespace("default").UID("uid-a");
  for (auto& n : names) pod.PVC(std::move(n));
  return pod.Obj();
}

TEST(VolumeBinding, PreFilterAndFilter) {
  api::PersistentVolumeClaim deleting = BoundClaim("pvc-a", "pv-a");
  deleting.metadata.deletion_timestamp = "2026-11-29T00:00:00Z";
  api::PersistentVolumeClaim lost = Claim("pvc-a", "pv-a");
  lost.phase = "Lost";
  api::PersistentVolumeClaim beta = Claim("pvc-a", "", "immediate");
  beta.metadata.annotations = api::StringMap({{std::string(kAnnBetaStorageClass), "wait"}});
  api::PersistentVolumeClaim ephemeral_owned = Claim("pod-a-scratch");
  ephemeral_owned.metadata.owner_references.push_back({"v1", "Pod", "pod-a", "uid-a", true});
  ephemeral_owned.storage_class_name = "wait";
  api::PersistentVolumeClaim ephemeral_foreign = ephemeral_owned;
  ephemeral_foreign.metadata.owner_references[0].uid = "uid-b";
  api::PersistentVolume by_name = Volume("pv-a");
  api::NodeSelectorTerm fields;
  fields.match_fields.push_back({"metadata.name", "In", {"node-a"}});
  by_name.node_affinity.emplace().terms.push_back(fields);
  const std::vector<api::StorageClass> classes = {Class("wait", "WaitForFirstConsumer"),
                                                  Class("immediate", "Immediate")};

  std::vector<Case> cases = {
      {"no volumes", BuildPod().Obj(), {}, {}, {}, Code::kSkip},
      {"only other volumes",
       BuildPod().ImageVolume("img", "busybox").Obj(),
       {},
       {},
       {},
       Code::kSkip},
      {"claim not found",
       WithPVCs({"pvc-a"}),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-a\" not found"},
      {"second claim not found",
       WithPVCs({"pvc-a", "pvc-b"}),
       {BoundClaim("pvc-a", "pv-a")},
       {Volume("pv-a")},
       {},
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-b\" not found"},
      {"claim lost",
       WithPVCs({"pvc-a"}),
       {lost},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\""},
      {"claim being deleted",
       WithPVCs({"pvc-a"}),
       {deleting},
       {Volume("pv-a")},
       {},
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"pvc-a\" is being deleted"},
      {"ephemeral claim not created yet",
       BuildPod().Name("pod-a").Namespace("default").Volume(Ephemeral("scratch")).Obj(),
       {},
       {},
       {},
       Code::kUnschedulableAndUnresolvable,
       "waiting for ephemeral volume controller to create the persistentvolumeclaim "
       "\"pod-a-scratch\""},
      {"ephemeral claim of another pod",
       BuildPod()
           .Name("pod-a")
           .Namespace("default")
           .UID("uid-a")
           .Volume(Ephemeral("scratch"))
           .Obj(),
       {ephemeral_foreign},
       {},
       classes,
       Code::kUnschedulableAndUnresolvable,
       "PVC default/pod-a-scratch was not created for pod default/pod-a (pod is not owner)"},
      {"ephemeral claim waiting for its first consumer",
       BuildPod()
           .Name("pod-a")
           .Namespace("default")
           .UID("uid-a")
           .Volume(Ephemeral("scratch"))
           .Obj(),
       {ephemeral_owned},
       {},
       classes,
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrReasonBindConflict)},
      {"unbound claim without a class binds immediately",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a")},
       {},
       classes,
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrUnboundImmediate)},
      {"unbound claim of an Immediate class",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a", "", "immediate")},
       {},
       classes,
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrUnboundImmediate)},
      {"unbound claim of a missing class binds immediately",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a", "", "gone")},
       {},
       classes,
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrUnboundImmediate)},
      {"prebound claim of a delayed class waits like an immediate one",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a", "pv-a", "wait")},
       {Volume("pv-a")},
       classes,
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrUnboundImmediate)},
      {"unbound claim of a WaitForFirstConsumer class is guarded",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a", "", "wait")},
       {},
       classes,
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrReasonBindConflict)},
      {"the beta annotation names the class",
       WithPVCs({"pvc-a"}),
       {beta},
       {},
       classes,
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrReasonBindConflict)},
      {"a class without a binding mode is an error",
       WithPVCs({"pvc-a"}),
       {Claim("pvc-a", "", "odd")},
       {},
       {Class("odd", "")},
       Code::kError,
       "VolumeBindingMode not set for StorageClass \"odd\""},
      {"bound claim, volume without affinity",
       WithPVCs({"pvc-a"}),
       {BoundClaim("pvc-a", "pv-a")},
       {Volume("pv-a")}},
      {"bound claim, volume affinity matches",
       WithPVCs({"pvc-a"}),
       {BoundClaim("pvc-a", "pv-a")},
       {Volume("pv-a", "zone", "a")}},
      {"bound claim, volume affinity conflicts",
       WithPVCs({"pvc-a"}),
       {BoundClaim("pvc-a", "pv-a")},
       {Volume("pv-a", "zone", "b")},
       {},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       testing::UpstreamFailureReason("VolumeBinding.ErrReasonNodeConflict")},
      // Upstream matches the volume's affinity against a node that has labels but no name, and
      // matchFields are skipped for a node without fields.
      {"volume affinity by node name is ignored, as upstream",
       WithPVCs({"pvc-a"}),
       {BoundClaim("pvc-a", "pv-a")},
       {by_name}},
      {"bound claim, volume missing",
       WithPVCs({"pvc-a"}),
       {BoundClaim("pvc-a", "pv-a")},
       {},
       {},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       testing::UpstreamFailureReason("VolumeBinding.ErrReasonPVNotExist")},
      {"the first failing volume decides",
       WithPVCs({"pvc-a", "pvc-b"}),
       {BoundClaim("pvc-a", "pv-a"), BoundClaim("pvc-b", "pv-b")},
       {Volume("pv-a", "zone", "b")},
       {},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       std::string(kErrReasonNodeConflict)},
  };
  auto node = testing::MakeNodeInfo(BuildNode().Name("node-a").Label("zone", "a").Obj());
  for (const Case& c : cases) {
    StorageHandle handle;
    for (const auto& o : c.pvcs) handle.pvcs.Add(o);
    for (const auto& o : c.pvs) handle.pvs.Add(o);
    for (const auto& o : c.classes) handle.classes.Add(o);
    auto owned = Make(handle);
    VolumeBinding& pl = *owned;
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pod = framework::NewPodInfo(c.pod);
    framework::Status pre = pl.PreFilter(state, *pod, {node.get()}, result);
    EXPECT_EQ(pre.code(), c.prefilter) << c.name << ": " << pre.Message();
    EXPECT_EQ(pre.Message(), c.prefilter_message) << c.name;
    EXPECT_FALSE(result.node_names.has_value()) << c.name;
    if (!pre.IsSuccess()) continue;
    framework::Status s = pl.Filter(state, *pod, *node);
    EXPECT_EQ(s.code(), c.filter) << c.name;
    EXPECT_EQ(s.Message(), c.filter_message) << c.name;
  }
}

// A bound in-tree volume is checked as its CSI translation on nodes whose CSINode lists its
// plugin as migrated (upstream's tryTranslatePVToCSI), and as it is elsewhere.
TEST(VolumeBinding, InTreeVolumesAreTranslatedOnMigratedNodes) {
  const std::string ga = "topology.kubernetes.io/zone";
  const std::string gke = "topology.gke.io/zone";
  api::PersistentVolume pd = Volume("pv-a", ga, "us-east1-a");
  pd.source = "gcePersistentDisk";
  pd.gce_pd_name = "disk";
  api::PersistentVolume ebs = Volume("pv-a");
  ebs.source = "awsElasticBlockStore";
  ebs.aws_volume_id = "aws://us-east-1a/not-a-volume";
  auto csi_node = [](std::string node, std::string migrated) {
    api::CSINode n;
    n.metadata.name = std::move(node);
    if (!migrated.empty()) {
      n.metadata.annotations =
          api::StringMap({{std::string(helper::kAnnMigratedPlugins), std::move(migrated)}});
    }
    return n;
  };
  struct TranslationCase {
    std::string name;
    api::PersistentVolume pv;
    std::string node_label;                // the node's zone label key (value us-east1-a)
    std::optional<api::CSINode> csi_node;  // of node-a
    Code filter;
    std::string message;
  };
  const std::string conflict(kErrReasonNodeConflict);
  std::vector<TranslationCase> cases = {
      {"not migrated: the GA key matches", pd, ga, std::nullopt, Code::kSuccess, ""},
      {"not migrated: the CSI key alone does not", pd, gke, std::nullopt,
       Code::kUnschedulableAndUnresolvable, conflict},
      {"annotation without the plugin", pd, gke, csi_node("node-a", "kubernetes.io/aws-ebs"),
       Code::kUnschedulableAndUnresolvable, conflict},
      {"migrated: the CSI key matches", pd, gke,
       csi_node("node-a", "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"), Code::kSuccess, ""},
      {"migrated: the GA key no longer does", pd, ga, csi_node("node-a", "kubernetes.io/gce-pd"),
       Code::kUnschedulableAndUnresolvable, conflict},
      {"another node's CSINode does not count", pd, gke, csi_node("node-b", "kubernetes.io/gce-pd"),
       Code::kUnschedulableAndUnresolvable, conflict},
      {"a volume that cannot be translated is an error where migrated", ebs, ga,
       csi_node("node-a", "kubernetes.io/aws-ebs"), Code::kError,
       "could not translate pv: failed to translate Kubernetes ID to EBS Volume ID Invalid format "
       "for AWS volume (aws://us-east-1a/not-a-volume)"},
      {"and is left alone elsewhere", ebs, ga, std::nullopt, Code::kSuccess, ""},
  };
  for (const TranslationCase& c : cases) {
    StorageHandle handle;
    handle.pvcs.Add(BoundClaim("pvc-a", "pv-a"));
    handle.pvs.Add(c.pv);
    if (c.csi_node) handle.csinodes.Add(*c.csi_node);
    auto pl = Make(handle);
    auto node =
        testing::MakeNodeInfo(BuildNode().Name("node-a").Label(c.node_label, "us-east1-a").Obj());
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pod = framework::NewPodInfo(WithPVCs({"pvc-a"}));
    ASSERT_TRUE(pl->PreFilter(state, *pod, {node.get()}, result).IsSuccess()) << c.name;
    framework::Status s = pl->Filter(state, *pod, *node);
    EXPECT_EQ(s.code(), c.filter) << c.name << ": " << s.Message();
    EXPECT_EQ(s.Message(), c.message) << c.name;
    // Only errors count in scheduler_volume_scheduling_stage_error_total, as predicate ones.
    EXPECT_EQ(handle.stage_errors(), c.filter == Code::kError
                                         ? std::vector<std::string>{"predicate"}
                                         : std::vector<std::string>{})
        << c.name;
  }
}

TEST(VolumeBinding, MessagesAreUpstreams) {
  EXPECT_EQ(kErrReasonNodeConflict,
            testing::UpstreamFailureReason("VolumeBinding.ErrReasonNodeConflict"));
  EXPECT_EQ(kErrReasonPVNotExist,
            testing::UpstreamFailureReason("VolumeBinding.ErrReasonPVNotExist"));
  EXPECT_EQ(kName, names::kVolumeBinding);
}

TEST(VolumeBinding, FilterWithoutPreFilterIsAnError) {
  StorageHandle handle;
  auto owned = Make(handle);
  VolumeBinding& pl = *owned;
  framework::CycleState state;
  auto info = testing::MakeNodeInfo(BuildNode().Obj());
  framework::Status s = pl.Filter(state, *framework::NewPodInfo(BuildPod().Obj()), *info);
  EXPECT_EQ(s.code(), Code::kError);
}

TEST(VolumeBinding, RegistersTheStorageEvents) {
  using framework::EventResource;
  StorageHandle handle;
  auto owned = Make(handle);
  VolumeBinding& pl = *owned;
  std::vector<std::pair<EventResource, uint32_t>> got;
  for (const auto& e : pl.EventsToRegister()) got.emplace_back(e.event.resource, e.event.action);
  const uint32_t add_update = framework::kAdd | framework::kUpdate;
  EXPECT_EQ(got, (std::vector<std::pair<EventResource, uint32_t>>{
                     {EventResource::kStorageClass, add_update},
                     {EventResource::kPersistentVolumeClaim, add_update},
                     {EventResource::kPersistentVolume, add_update},
                     {EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel},
                     {EventResource::kCSINode, add_update},
                     {EventResource::kCSIDriver, framework::kUpdate},
                     {EventResource::kCSIStorageCapacity, add_update}}));
}

}  // namespace
}  // namespace stowage::plugins::volume_binding::volume_binding_test
