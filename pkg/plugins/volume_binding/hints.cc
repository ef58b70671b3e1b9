// VolumeBinding's events and queueing hints (upstream volume_binding.go): which storage changes
// may make a pod it rejected schedulable.
#include "pkg/plugins/volume_binding/claims.h"
#include "pkg/plugins/volume_binding/volume_binding.h"
#include "stowage/plugins/helper/csi_translation.h"
#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::volume_binding {
namespace {

using framework::EventObject;
using framework::QueueingHint;

QueueingHint AfterStorageClassChange(const api::Pod&, const EventObject& o, const EventObject& n) {
  helper::TypedEventObjects<api::StorageClass> objs;
  if (!helper::As(o, n, objs)) return QueueingHint::kQueue;
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;  // a new class
  // Only allowedTopologies may change in a class that affects this plugin.
  if (objs.old_obj->allowed_topologies != objs.new_obj->allowed_topologies) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

QueueingHint AfterClaimChange(const api::Pod& pod, const EventObject& o, const EventObject& n) {
  helper::TypedEventObjects<api::PersistentVolumeClaim> objs;
  if (!helper::As(o, n, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  const api::PersistentVolumeClaim& pvc = *objs.new_obj;
  if (pvc.metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::kSkip;
  for (const api::Volume& v : pod.spec.volumes) {
    if (ClaimNameOf(pod, v) == pvc.metadata.name) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

QueueingHint AfterCSINodeChange(const api::Pod&, const EventObject& o, const EventObject& n) {
  helper::TypedEventObjects<api::CSINode> objs;
  if (!helper::As(o, n, objs) || objs.old_obj == nullptr || objs.new_obj == nullptr) {
    return QueueingHint::kQueue;  // a new CSINode, or objects of another kind
  }
  const std::string* before = objs.old_obj->metadata.annotations.Get(helper::kAnnMigratedPlugins);
  const std::string* after = objs.new_obj->metadata.annotations.Get(helper::kAnnMigratedPlugins);
  const std::string_view b = before ? std::string_view(*before) : "";
  const std::string_view a = after ? std::string_view(*after) : "";
  return a != b ? QueueingHint::kQueue : QueueingHint::kSkip;
}

QueueingHint AfterCSIDriverChange(const api::Pod& pod, const EventObject& o, const EventObject& n) {
  helper::TypedEventObjects<api::CSIDriver> objs;
  if (!helper::As(o, n, objs) || objs.old_obj == nullptr || objs.new_obj == nullptr) {
    return QueueingHint::kQueue;
  }
  // Turning capacity tracking off lifts the capacity check for the driver's inline volumes.
  const bool was = objs.old_obj->storage_capacity.value_or(false);
  const bool is = objs.new_obj->storage_capacity.value_or(false);
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source != "csi" || v.csi_driver != objs.new_obj->metadata.name) continue;
    if (was && !is) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

const std::optional<api::Quantity>& VolumeLimit(const api::CSIStorageCapacity& c) {
  return c.maximum_volume_size ? c.maximum_volume_size : c.capacity;
}

QueueingHint AfterCapacityChange(const api::Pod&, const EventObject& o, const EventObject& n) {
  helper::TypedEventObjects<api::CSIStorageCapacity> objs;
  if (!helper::As(o, n, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
  if (objs.old_obj == nullptr) return QueueingHint::kQueue;  // new capacity
  const auto& before = VolumeLimit(*objs.old_obj);
  const auto& after = VolumeLimit(*objs.new_obj);
  if (after && (!before || after->Value() > before->Value())) return QueueingHint::kQueue;
  return QueueingHint::kSkip;
}

}  // namespace

std::vector<framework::ClusterEventWithHint> VolumeBinding::EventsToRegister() const {
  using framework::EventResource;
  constexpr uint32_t kAddOrUpdate = framework::kAdd | framework::kUpdate;
  return {
      {{EventResource::kStorageClass, kAddOrUpdate}, AfterStorageClassChange},
      {{EventResource::kPersistentVolumeClaim, kAddOrUpdate}, AfterClaimChange},
      {{EventResource::kPersistentVolume, kAddOrUpdate}, nullptr},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel}, nullptr},
      {{EventResource::kCSINode, kAddOrUpdate}, AfterCSINodeChange},
      {{EventResource::kCSIDriver, framework::kUpdate}, AfterCSIDriverChange},
      {{EventResource::kCSIStorageCapacity, kAddOrUpdate}, AfterCapacityChange},
  };
}

}  // namespace stowage::plugins::volume_binding
