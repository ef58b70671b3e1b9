#include "pkg/plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <set>
#include <string>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/resize.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::volume_restrictions {
namespace {

struct PreFilterState final : framework::StateData {
  std::set<std::string> rwop_claims;  // the pod's ReadWriteOncePod claims, by name
  int conflicting_ref_count = 0;      // uses of them by pods in the snapshot
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  // How many of pod's volumes use one of rwop_claims.
  int ConflictsOf(const api::Pod& pod) const {
    int n = 0;
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.source == "persistentVolumeClaim" && rwop_claims.count(v.claim_name) > 0) ++n;
    }
    return n;
  }
};

bool NeedsRestrictionsCheck(const api::Volume& v) {
  return v.source == "gcePersistentDisk" || v.source == "awsElasticBlockStore" ||
         v.source == "rbd" || v.source == "iscsi";
}

bool HaveOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) {
    return std::find(b.begin(), b.end(), x) != b.end();
  });
}

// Whether volume v of the incoming pod conflicts with a volume of existing (upstream's
// isVolumeConflict): the same disk, unless both mount it read-only; an EBS volume always.
bool IsVolumeConflict(const api::Volume& v, const api::Pod& existing) {
  for (const api::Volume& e : existing.spec.volumes) {
    if (e.source != v.source) continue;
    if (v.source == "gcePersistentDisk" && v.gce_pd_name == e.gce_pd_name &&
        !(v.gce_read_only && e.gce_read_only)) {
      return true;
    }
    if (v.source == "awsElasticBlockStore" && v.aws_volume_id == e.aws_volume_id) return true;
    if (v.source == "iscsi" && v.iscsi_iqn == e.iscsi_iqn &&
        !(v.iscsi_read_only && e.iscsi_read_only)) {
      return true;
    }
    if (v.source == "rbd" && HaveOverlap(v.rbd_monitors, e.rbd_monitors) &&
        v.rbd_pool == e.rbd_pool && v.rbd_image == e.rbd_image &&
        !(v.rbd_read_only && e.rbd_read_only)) {
      return true;
    }
  }
  return false;
}

// Whether a disk of pod is in use by existing.
bool DiskConflict(const api::Pod& pod, const api::Pod& existing) {
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const api::Volume& v) {
    return NeedsRestrictionsCheck(v) && IsVolumeConflict(v, existing);
  });
}

framework::Status MissingState() {
  return framework::Status::Error("cannot read \"" + std::string(kStateKey) + "\" from cycleState");
}

}  // namespace

VolumeRestrictions::VolumeRestrictions(framework::Handle& handle, bool skip_resize_deferred)
    : claims_(handle.persistent_volume_claims()), skip_resize_deferred_(skip_resize_deferred) {}

framework::Status VolumeRestrictions::PreFilter(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& nodes, framework::PreFilterResult&) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return framework::Status::Skip();
  const bool needs_check =
      std::any_of(pod->spec.volumes.begin(), pod->spec.volumes.end(), NeedsRestrictionsCheck);
  auto s = std::make_unique<PreFilterState>();
  for (const api::Volume& v : pod->spec.volumes) {
    if (v.source != "persistentVolumeClaim") continue;
    auto pvc = claims_.Get(pod->metadata.namespace_, v.claim_name);
    if (pvc == nullptr) {
      return framework::Status::Unresolvable("persistentvolumeclaim \"" + v.claim_name +
                                             "\" not found");
    }
    const auto& modes = pvc->access_modes;
    if (std::find(modes.begin(), modes.end(), "ReadWriteOncePod") != modes.end()) {
      s->rwop_claims.insert(v.claim_name);
    }
  }
  // As upstream's snapshot-wide set of used claims: each claim counts once, however many pods
  // on however many nodes use it.
  for (const std::string& claim : s->rwop_claims) {
    const std::string key = pod->metadata.namespace_ + "/" + claim;
    if (std::any_of(nodes.begin(), nodes.end(), [&](const framework::NodeInfo* n) {
          return n->pvc_ref_counts().count(key) > 0;
        })) {
      ++s->conflicting_ref_count;
    }
  }
  if (!needs_check && s->conflicting_ref_count == 0) return framework::Status::Skip();
  state.Write(kStateKey, std::move(s));
  return {};
}

framework::Status VolumeRestrictions::AddPod(framework::CycleState& state, const api::Pod&,
                                             const framework::PodInfo& pod_to_add,
                                             const framework::NodeInfo&) {
  auto* s = state.ReadMutable<PreFilterState>(kStateKey);
  if (s == nullptr) return MissingState();
  s->conflicting_ref_count += s->ConflictsOf(*pod_to_add);
  return {};
}

framework::Status VolumeRestrictions::RemovePod(framework::CycleState& state, const api::Pod&,
                                                const framework::PodInfo& pod_to_remove,
                                                const framework::NodeInfo&) {
  auto* s = state.ReadMutable<PreFilterState>(kStateKey);
  if (s == nullptr) return MissingState();
  s->conflicting_ref_count -= s->ConflictsOf(*pod_to_remove);
  return {};
}

framework::Status VolumeRestrictions::Filter(const framework::CycleState& state,
                                             const framework::PodInfo& pod,
                                             const framework::NodeInfo& node) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return {};
  for (const framework::PodInfoPtr& existing : node.pods()) {
    if (DiskConflict(*pod, *existing->pod)) {
      return framework::Status::Unschedulable(std::string(kErrReasonDiskConflict));
    }
  }
  const auto* s = state.Read<PreFilterState>(kStateKey);
  if (s == nullptr) return MissingState();
  if (s->conflicting_ref_count > 0) {
    return framework::Status::Unschedulable(std::string(kErrReasonReadWriteOncePodConflict));
  }
  return {};
}

std::vector<framework::ClusterEventWithHint> VolumeRestrictions::EventsToRegister() const {
  using framework::EventResource;
  using framework::QueueingHint;
  // Upstream's isSchedulableAfterAssignedPodDeleted: a deleted pod of the same namespace that
  // held one of the pod's disks or claims.
  auto deleted_hint = [](const api::Pod& pod, const framework::EventObject& old_obj,
                         const framework::EventObject& new_obj) {
    helper::TypedEventObjects<api::Pod> objs;
    if (!helper::As(old_obj, new_obj, objs) || objs.old_obj == nullptr) {
      return QueueingHint::kQueue;
    }
    const api::Pod& deleted = *objs.old_obj;
    if (deleted.metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kSkip;
    if (DiskConflict(pod, deleted)) return QueueingHint::kQueue;
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.source != "persistentVolumeClaim") continue;
      for (const api::Volume& d : deleted.spec.volumes) {
        if (d.source == "persistentVolumeClaim" && d.claim_name == v.claim_name) {
          return QueueingHint::kQueue;
        }
      }
    }
    return QueueingHint::kSkip;
  };
  return {
      {{EventResource::kAssignedPod, framework::kDelete}, deleted_hint},
      {{EventResource::kNode, framework::kAdd}, nullptr},
      {{EventResource::kPersistentVolumeClaim, framework::kAdd},
       [](const api::Pod& pod, const framework::EventObject& old_obj,
          const framework::EventObject& new_obj) {
         helper::TypedEventObjects<api::PersistentVolumeClaim> objs;
         if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) {
           return QueueingHint::kQueue;
         }
         // Only one of the pod's own claims, now created, can lift its not-found rejection.
         return helper::PodNamesClaim(pod, *objs.new_obj) ? QueueingHint::kQueue
                                                          : QueueingHint::kSkip;
       }},
  };
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeRestrictions>(
      handle, features.in_place_pod_vertical_scaling_scheduler_preemption));
}

}  // namespace stowage::plugins::volume_restrictions
