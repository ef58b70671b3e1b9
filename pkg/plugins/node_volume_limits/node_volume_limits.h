// NodeVolumeLimits (upstream plugins/nodevolumelimits, CSILimits): a node takes no more volumes
// of a CSI driver than its CSINode's allocatable.count for that driver.
//
// Counted per driver, each volume once by "<driver>/<volume handle>": the CSI volumes of the
// pods on the node (a claim's bound PV, or for an unbound claim its class's provisioner and a
// handle of its own), the in-tree GCE PD, AWS EBS, Azure Disk, Cinder and Portworx volumes under
// the CSI driver that replaces them (helper/csi_translation.h; only on a node with a CSINode),
// and the node's VolumeAttachments of CSI PVs. The pod's own new volumes are added; more than
// the limit is Unschedulable with "node(s) exceed max volume count". A driver without a count
// has no limit, nor has a node without a CSINode.
//
// PreFilter skips pods with no claim, no generic ephemeral volume and no migratable in-tree
// volume. Filter: the pod's missing claim is UnschedulableAndUnresolvable ("looking up PVC
// ns/name: persistentvolumeclaims \"name\" not found"); an ephemeral claim the pod does not own
// or an in-tree volume that cannot be translated is an error. With VolumeLimitScaling (beta, on
// in 1.37) a driver whose CSIDriver sets preventPodSchedulingIfMissing must be listed in the
// node's CSINode, else "<driver> CSI driver is not installed on the node" (Unschedulable).
//
// Upstream recounts every node's volumes per pod. Here PreFilter reads the pod's volumes once
// (for a node with a CSINode and for one without, the only node fact they depend on), and the
// node's side (limits, its pods' volumes, its VolumeAttachments) is kept per node in a
// NodeVolumesCache until the NodeInfo or a lister it read changes, so Filter only counts.
//
// Upstream's events and hints: CSINode Add, CSINode Update (a limit raised), AssignedPod Delete
// (a pod with volumes), PersistentVolumeClaim Add (one of the pod's claims) and VolumeAttachment
// Delete. Thread-safe: the caches have locks of their own.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/plugins/node_volume_limits/node_cache.h"
#include "stowage/common/mutex.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_volume_limits {

inline constexpr std::string_view kName = "NodeVolumeLimits";
inline constexpr std::string_view kStateKey = "PreFilterNodeVolumeLimits";
inline constexpr std::string_view kErrReasonMaxVolumeCountExceeded =
    "node(s) exceed max volume count";

// Volumes by unique name ("<driver>/<handle>"), each with its CSI driver.
using VolumeMap = std::map<std::string, std::string>;

class NodeVolumeLimits final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  struct Options {
    bool skip_resize_deferred = false;  // InPlacePodVerticalScalingSchedulerPreemption
    bool volume_limit_scaling = true;   // VolumeLimitScaling
    // Makes the handles of unbound claims unlike any real handle (upstream's random 32 letters).
    std::string random_volume_id_prefix;
  };
  NodeVolumeLimits(framework::Handle& handle, Options options);
  std::string_view Name() const override { return kName; }
  // Skip unless the pod has a claim, an ephemeral volume or a migratable in-tree volume; else
  // reads the pod's volumes and the VolumeAttachments once for the cycle's Filter calls.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  size_t CachedNodesForTest() { return nodes_.SizeForTest(); }

  // The pod's volumes, read once per cycle (defined in the .cc).
  struct PodState;

 private:
  // A driver and volume handle; both empty when the volume is not counted.
  using CsiInfo = std::pair<std::string, std::string>;

  // Adds pod's countable volumes to out (upstream's filterAttachableVolumes). A missing claim
  // of a new pod is Unresolvable; of a pod already on the node it is not counted.
  framework::Status AttachableVolumes(const api::Pod& pod, const api::CSINode* csi_node,
                                      bool new_pod, VolumeMap& out) const;
  framework::Status AttachableInlineVolume(const api::Volume& volume, const api::CSINode* csi_node,
                                           VolumeMap& out) const;
  CsiInfo DriverInfo(const api::CSINode* csi_node, const api::PersistentVolumeClaim& pvc) const;
  CsiInfo DriverInfoFromClass(const api::CSINode* csi_node,
                              const api::PersistentVolumeClaim& pvc) const;
  // The node's VolumeAttachments of CSI PVs, by node name.
  std::map<std::string, VolumeMap> AttachmentsByNode() const;
  // The same, kept while versions (when known) show no change of attachments and volumes.
  std::shared_ptr<const std::map<std::string, VolumeMap>> Attachments(
      const std::optional<ListerVersions>& versions);
  // The listers' versions, or nullopt when one cannot tell (nothing is then cached).
  std::optional<ListerVersions> Versions() const;
  std::unique_ptr<PodState> NewPodState(const api::Pod& pod);
  // Fills out with node's limits and, when it has some, its attached volumes.
  void ComputeNode(const framework::NodeInfo& node,
                   const std::map<std::string, VolumeMap>& attachments, NodeVolumes& out) const;

  const framework::Lister<api::PersistentVolume>& pvs_;
  const framework::Lister<api::PersistentVolumeClaim>& claims_;
  const framework::Lister<api::StorageClass>& classes_;
  const framework::Lister<api::CSINode>& csi_nodes_;
  const framework::Lister<api::CSIDriver>& csi_drivers_;
  const framework::Lister<api::VolumeAttachment>& attachments_;
  const Options options_;
  NodeVolumesCache nodes_;
  Mutex attachments_mu_;
  std::shared_ptr<const std::map<std::string, VolumeMap>> attachments_by_node_
      GUARDED_BY(attachments_mu_);
  std::optional<ListerVersions> attachments_by_node_versions_ GUARDED_BY(attachments_mu_);
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, NodeVolumeLimits>);
static_assert(std::is_base_of_v<framework::FilterPlugin, NodeVolumeLimits>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, NodeVolumeLimits>);

// Whether in-tree volumes of plugin_name count under their CSI driver on a node with csi_node
// (upstream's isCSIMigrationOn): never without a CSINode, always for GCE PD, AWS EBS, Azure
// Disk, Cinder and Portworx, never for the others.
bool IsCSIMigrationOn(const api::CSINode* csi_node, std::string_view plugin_name);

// The allocatable.count of each driver of csi_node that has one.
std::map<std::string, int64_t> VolumeLimits(const api::CSINode* csi_node);

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::node_volume_limits
