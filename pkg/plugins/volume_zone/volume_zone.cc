#include "pkg/plugins/volume_zone/volume_zone.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>

#include "stowage/plugins/helper/event_objects.h"
#include "stowage/plugins/helper/resize.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::volume_zone {
namespace {

constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
// In upstream's order, which decides which label a mismatch is found on first.
constexpr std::array<std::string_view, 4> kTopologyLabels = {kBetaZone, kBetaRegion, kZone,
                                                             kRegion};

std::string_view GaLabel(std::string_view key) {
  if (key == kBetaRegion) return kRegion;
  if (key == kBetaZone) return kZone;
  return key;
}

// One topology label of a volume: its key and the zones its value lists.
struct VolumeTopology {
  std::string_view key;  // one of kTopologyLabels
  std::vector<std::string> values;
};

// The zones of a label value: "a__b" lists a and b (upstream's LabelZonesToSet, each trimmed);
// false when an element is empty, and upstream then ignores the label.
bool ZonesOf(std::string_view value, std::vector<std::string>& out) {
  for (size_t start = 0;;) {
    size_t end = value.find("__", start);
    std::string_view zone = value.substr(start, end == std::string_view::npos ? end : end - start);
    while (!zone.empty() && std::isspace(static_cast<unsigned char>(zone.front()))) {
      zone.remove_prefix(1);
    }
    while (!zone.empty() && std::isspace(static_cast<unsigned char>(zone.back()))) {
      zone.remove_suffix(1);
    }
    if (zone.empty()) return false;
    out.emplace_back(zone);
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

// A volume's topology labels as upstream's PV hint compares them: the labels present, in
// kTopologyLabels' order, each with its zones as a set; a label whose value lists an empty zone
// is left out.
std::vector<std::pair<std::string_view, std::set<std::string>>> LabelTopologies(
    const api::PersistentVolume& pv) {
  std::vector<std::pair<std::string_view, std::set<std::string>>> out;
  for (std::string_view key : kTopologyLabels) {
    const std::string* value = pv.metadata.labels.Get(key);
    std::vector<std::string> zones;
    if (value == nullptr || !ZonesOf(*value, zones)) continue;
    out.emplace_back(key, std::set<std::string>(zones.begin(), zones.end()));
  }
  return out;
}

struct PreFilterState final : framework::StateData {
  std::vector<VolumeTopology> topologies;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// The claims of pod's persistentVolumeClaim volumes, in order.
std::vector<std::string_view> ClaimNames(const api::Pod& pod) {
  std::vector<std::string_view> out;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.source == "persistentVolumeClaim") out.push_back(v.claim_name);
  }
  return out;
}

// The topologies of the volumes of pod's bound claims (upstream's getPVbyPod).
framework::Status Topologies(const api::Pod& pod,
                             const framework::Lister<api::PersistentVolumeClaim>& claims_,
                             const framework::Lister<api::PersistentVolume>& volumes_,
                             const framework::Lister<api::StorageClass>& classes_,
                             std::vector<VolumeTopology>& out) {
  for (std::string_view name : ClaimNames(pod)) {
    if (name.empty()) return framework::Status::Unresolvable("PersistentVolumeClaim had no name");
    auto pvc = claims_.Get(pod.metadata.namespace_, name);
    if (pvc == nullptr) {
      return framework::Status::Unresolvable("persistentvolumeclaim \"" + std::string(name) +
                                             "\" not found");
    }
    if (pvc->volume_name.empty()) {
      std::string class_name = helper::ClaimClass(*pvc);
      if (class_name.empty()) {
        return framework::Status::Unresolvable(
            "PersistentVolumeClaim had no pv name and storageClass name");
      }
      auto sc = classes_.Get("", class_name);
      if (sc == nullptr) {
        return framework::Status::Unresolvable("storageclass.storage.k8s.io \"" + class_name +
                                               "\" not found");
      }
      if (sc->volume_binding_mode.empty()) {
        return framework::Status::Unresolvable("VolumeBindingMode not set for StorageClass \"" +
                                               class_name + "\"");
      }
      if (sc->volume_binding_mode == "WaitForFirstConsumer") continue;
      return framework::Status::Unresolvable("PersistentVolume had no name");
    }
    auto pv = volumes_.Get("", pvc->volume_name);
    if (pv == nullptr) {
      return framework::Status::Unresolvable("persistentvolume \"" + pvc->volume_name +
                                             "\" not found");
    }
    for (std::string_view key : kTopologyLabels) {
      const std::string* value = pv->metadata.labels.Get(key);
      if (value == nullptr) continue;
      VolumeTopology t{key, {}};
      if (ZonesOf(*value, t.values)) out.push_back(std::move(t));
    }
  }
  return {};
}

}  // namespace

VolumeZone::VolumeZone(framework::Handle& handle, bool skip_resize_deferred)
    : volumes_(handle.persistent_volumes()),
      claims_(handle.persistent_volume_claims()),
      classes_(handle.storage_classes()),
      skip_resize_deferred_(skip_resize_deferred) {}

framework::Status VolumeZone::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                        const std::vector<const framework::NodeInfo*>&,
                                        framework::PreFilterResult&) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return framework::Status::Skip();
  auto s = std::make_unique<PreFilterState>();
  if (framework::Status st = Topologies(*pod, claims_, volumes_, classes_, s->topologies);
      !st.IsSuccess()) {
    return st;
  }
  if (s->topologies.empty()) return framework::Status::Skip();
  state.Write(kStateKey, std::move(s));
  return {};
}

framework::Status VolumeZone::Filter(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     const framework::NodeInfo& node) {
  if (helper::IsDeferredResize(skip_resize_deferred_, *pod)) return {};
  if (pod->spec.volumes.empty()) return {};
  // Without PreFilter's state (a Filter called on its own), the topologies are read again.
  std::vector<VolumeTopology> computed;
  const std::vector<VolumeTopology>* topologies = &computed;
  if (const auto* s = state.Read<PreFilterState>(kStateKey)) {
    topologies = &s->topologies;
  } else if (framework::Status st = Topologies(*pod, claims_, volumes_, classes_, computed);
             !st.IsSuccess()) {
    return st;
  }
  const api::StringMap& labels = node.node()->metadata.labels;
  if (std::none_of(kTopologyLabels.begin(), kTopologyLabels.end(),
                   [&](std::string_view key) { return labels.Has(key); })) {
    return {};
  }
  for (const VolumeTopology& t : *topologies) {
    const std::string* value = labels.Get(t.key);
    if (value == nullptr) value = labels.Get(GaLabel(t.key));
    if (value == nullptr || std::find(t.values.begin(), t.values.end(), *value) == t.values.end()) {
      return framework::Status::Unresolvable(std::string(kErrReasonConflict));
    }
  }
  return {};
}

std::vector<framework::ClusterEventWithHint> VolumeZone::EventsToRegister() const {
  using framework::EventResource;
  constexpr uint32_t kAddOrUpdate = framework::kAdd | framework::kUpdate;
  using framework::EventObject;
  using framework::QueueingHint;
  // Only a WaitForFirstConsumer class changes what PreFilter skips (the mode is immutable).
  auto class_added = [](const api::Pod&, const EventObject& o, const EventObject& n) {
    helper::TypedEventObjects<api::StorageClass> objs;
    if (!helper::As(o, n, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
    return objs.new_obj->volume_binding_mode == "WaitForFirstConsumer" ? QueueingHint::kQueue
                                                                       : QueueingHint::kSkip;
  };
  auto claim_changed = [](const api::Pod& pod, const EventObject& o, const EventObject& n) {
    helper::TypedEventObjects<api::PersistentVolumeClaim> objs;
    if (!helper::As(o, n, objs) || objs.new_obj == nullptr) return QueueingHint::kQueue;
    return helper::PodNamesClaim(pod, *objs.new_obj) ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  // A new volume, or one whose topology labels changed (its node affinity is immutable).
  auto volume_changed = [](const api::Pod&, const EventObject& o, const EventObject& n) {
    helper::TypedEventObjects<api::PersistentVolume> objs;
    if (!helper::As(o, n, objs) || objs.old_obj == nullptr || objs.new_obj == nullptr) {
      return QueueingHint::kQueue;
    }
    return LabelTopologies(*objs.old_obj) != LabelTopologies(*objs.new_obj) ? QueueingHint::kQueue
                                                                            : QueueingHint::kSkip;
  };
  return {
      {{EventResource::kStorageClass, framework::kAdd}, class_added},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel}, nullptr},
      {{EventResource::kPersistentVolumeClaim, kAddOrUpdate}, claim_changed},
      {{EventResource::kPersistentVolume, kAddOrUpdate}, volume_changed},
  };
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeZone>(
      handle, features.in_place_pod_vertical_scaling_scheduler_preemption));
}

}  // namespace stowage::plugins::volume_zone
