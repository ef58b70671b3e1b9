// NodeVolumeLimits' cluster events and queueing hints (upstream's EventsToRegister and its
// isSchedulableAfter* functions).
#include <map>

#include "pkg/plugins/node_volume_limits/node_volume_limits.h"
#include "stowage/plugins/helper/csi_translation.h"
#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::node_volume_limits {
namespace {

using framework::EventObject;
using framework::QueueingHint;

// A CSINode update queues when some driver's limit rose (a driver new to it counts from 0).
QueueingHint AfterCSINodeUpdated(const api::Pod&, const EventObject& old_obj,
                                 const EventObject& new_obj) {
  helper::TypedEventObjects<api::CSINode> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.old_obj == nullptr || objs.new_obj == nullptr) {
    return QueueingHint::kQueue;
  }
  std::map<std::string, int32_t> old_limits;
  for (const api::CSINodeDriver& d : objs.old_obj->drivers) {
    old_limits[d.name] = d.allocatable_count.value_or(0);
  }
  for (const api::CSINodeDriver& d : objs.new_obj->drivers) {
    auto it = old_limits.find(d.name);
    const int32_t old_limit = it == old_limits.end() ? 0 : it->second;
    if (d.allocatable_count.value_or(0) > old_limit) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

// A deleted pod frees attachments when it was on (or nominated to) a node and had a claim, an
// ephemeral volume or a migratable in-tree volume.
QueueingHint AfterAssignedPodDeleted(const api::Pod&, const EventObject& old_obj,
                                     const EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.old_obj == nullptr) return QueueingHint::kQueue;
  const api::Pod& deleted = *objs.old_obj;
  if (deleted.spec.volumes.empty()) return QueueingHint::kSkip;
  if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
    return QueueingHint::kSkip;
  }
  for (const api::Volume& v : deleted.spec.volumes) {
    if (v.source == "persistentVolumeClaim" || v.source == "ephemeral" ||
        helper::IsInlineMigratable(v)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kSkip;
}

// A new claim of the pod's namespace that one of its volumes (or ephemeral volumes) names.
QueueingHint AfterPVCAdded(const api::Pod& pod, const EventObject& old_obj,
                           const EventObject& new_obj) {
  helper::TypedEventObjects<api::PersistentVolumeClaim> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  const api::PersistentVolumeClaim& added = *objs.new_obj;
  if (added.metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    std::string name;
    if (v.source == "persistentVolumeClaim") {
      name = v.claim_name;
    } else if (v.source == "ephemeral") {
      name = helper::EphemeralClaimName(pod, v);
    } else {
      continue;
    }
    if (name == added.metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

// A deleted VolumeAttachment may free room when the pod has a claim, or an in-tree volume whose
// CSI driver is the attachment's.
QueueingHint AfterVolumeAttachmentDeleted(const api::Pod& pod, const EventObject& old_obj,
                                          const EventObject& new_obj) {
  helper::TypedEventObjects<api::VolumeAttachment> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.old_obj == nullptr) return QueueingHint::kQueue;
  const api::VolumeAttachment& deleted = *objs.old_obj;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source == "persistentVolumeClaim") return QueueingHint::kQueue;
    if (!helper::IsInlineMigratable(v)) continue;
    StatusOr<helper::CsiVolume> translated = helper::TranslateInlineVolumeToCsi(v);
    if (!translated.ok()) return QueueingHint::kQueue;  // upstream's error, which queues
    if (translated->driver == deleted.attacher) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

}  // namespace

std::vector<framework::ClusterEventWithHint> NodeVolumeLimits::EventsToRegister() const {
  using framework::EventResource;
  return {
      // Any new CSINode may make room, so it has no hint.
      {{EventResource::kCSINode, framework::kAdd}, nullptr},
      {{EventResource::kCSINode, framework::kUpdate}, AfterCSINodeUpdated},
      {{EventResource::kAssignedPod, framework::kDelete}, AfterAssignedPodDeleted},
      {{EventResource::kPersistentVolumeClaim, framework::kAdd}, AfterPVCAdded},
      {{EventResource::kVolumeAttachment, framework::kDelete}, AfterVolumeAttachmentDeleted},
  };
}

}  // namespace stowage::plugins::node_volume_limits
