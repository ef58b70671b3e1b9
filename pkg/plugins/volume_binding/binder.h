// Binder: upstream's volume binder (volumebinding/binder.go) for one profile. Filter asks it
// which volumes a node would give the pod's unbound WaitForFirstConsumer claims (a matching
// static PV, or provisioning where the class's topology and the driver's CSIStorageCapacity
// allow); Reserve assumes that choice in the PV and PVC assume caches; PreBind writes it (the
// PV's claimRef, the claim's selected-node annotation) and waits for the PV controller to
// finish the binding. Thread-safe: Filter runs for many nodes at once.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/plugins/volume_binding/assume_cache.h"
#include "pkg/plugins/volume_binding/claims.h"
#include "pkg/plugins/volume_binding/matching.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/status.h"

namespace stowage::plugins::volume_binding {

// Upstream's reasons (binder.go, volume_binding.go); Filter reports the first four in this order.
inline constexpr std::string_view kErrReasonNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrReasonBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrReasonNotEnoughSpace =
    "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view kErrUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";

using CapacityPtr = std::shared_ptr<const api::CSIStorageCapacity>;

struct StaticBinding {
  ClaimPtr pvc;
  VolumePtr pv;
};
struct DynamicProvision {
  ClaimPtr pvc;
  CapacityPtr capacity;  // the capacity that allowed it, when the driver reports capacity
};
// What one node would give the pod's unbound delayed claims.
struct PodVolumes {
  api::NodePtr node;
  std::vector<StaticBinding> static_bindings;
  std::vector<DynamicProvision> dynamic_provisions;
};

// A bound claim's volume as Filter checks it: missing, or its node affinity compiled once.
struct BoundVolume {
  bool missing = false;
  std::optional<api::NodeSelectorMatcher> affinity;  // none: any node
  // An in-tree volume whose CSI migration is on: on nodes whose CSINode lists its plugin as
  // migrated, upstream checks the translated volume, so its affinity or translation error.
  std::string_view migrated_plugin;  // empty: not migratable
  std::optional<api::NodeSelectorMatcher> csi_affinity;
  std::string translate_error;
};

// The pod's claims as PreFilter found them (upstream's PodVolumeClaims).
struct PodVolumeClaims {
  std::vector<BoundVolume> bound;
  std::vector<ClaimPtr> unbound_delayed;
  std::map<std::string, std::vector<Candidate>> candidates;  // by class of the claims above
};

class Binder {
 public:
  struct Options {
    std::chrono::seconds bind_timeout{600};
    std::chrono::milliseconds poll_interval{1000};
    // Asked between polls: true ends the wait (the scheduler is stopping).
    std::function<bool()> stopping;
  };
  Binder(framework::Handle& handle, Options options);

  AssumeCache<api::PersistentVolume>& volumes() { return pv_cache_; }
  AssumeCache<api::PersistentVolumeClaim>& claims() { return pvc_cache_; }

  // PreFilter's part: the bound claims' volumes and the candidate volumes of each class of
  // unbound delayed claims.
  PodVolumeClaims Resolve(const PodClaims& claims) const;
  // What node gives the pod, or the reasons it gives nothing (empty on success); an error for
  // claims that cannot be read (a claim without class, a class that does not exist).
  framework::Status FindPodVolumes(const PodVolumeClaims& claims, const api::NodePtr& node,
                                   PodVolumes& out, std::vector<std::string_view>& reasons) const;
  // Reserve: true when every claim is bound already; otherwise assumes volumes' bindings and
  // claims' selected node, replacing them in volumes with the assumed objects.
  StatusOr<bool> AssumePodVolumes(const api::Pod& pod, std::string_view node, PodVolumes& volumes);
  void RevertAssumedPodVolumes(const PodVolumes& volumes);
  // PreBind: writes volumes to the API and waits until the PV controller has bound them all.
  framework::Status BindPodVolumes(const api::Pod& pod, PodVolumes& volumes);

 private:
  // The three above without counting their errors in scheduler_volume_scheduling_stage_error_total.
  framework::Status FindPodVolumesOnNode(const PodVolumeClaims& claims, const api::NodePtr& node,
                                         PodVolumes& out,
                                         std::vector<std::string_view>& reasons) const;
  StatusOr<bool> Assume(const api::Pod& pod, std::string_view node, PodVolumes& volumes);
  framework::Status Bind(const api::Pod& pod, PodVolumes& volumes);
  bool PodVolumesBound(const api::Pod& pod) const;
  // True when bound, false to wait longer, an error to give up.
  StatusOr<bool> CheckBindings(const api::Pod& pod, const PodVolumes& volumes) const;
  framework::Status ProvisionOn(const std::vector<ClaimPtr>& claims, const api::Node& node,
                                bool& satisfied, bool& sufficient,
                                std::vector<DynamicProvision>& out) const;
  StatusOr<CapacityPtr> EnoughCapacity(const std::string& provisioner,
                                       const api::PersistentVolumeClaim& claim,
                                       const api::StorageClass& cls, const api::Node& node,
                                       bool& sufficient) const;

  framework::Handle& handle_;
  const Options options_;
  AssumeCache<api::PersistentVolume> pv_cache_;
  AssumeCache<api::PersistentVolumeClaim> pvc_cache_;
  const framework::Lister<api::StorageClass>& classes_;
  const framework::Lister<api::CSIDriver>& drivers_;
  const framework::Lister<api::CSINode>& csi_nodes_;
  const framework::Lister<api::CSIStorageCapacity>& capacities_;
};

}  // namespace stowage::plugins::volume_binding
