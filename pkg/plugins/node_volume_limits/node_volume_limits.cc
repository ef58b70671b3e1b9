#include "pkg/plugins/node_volume_limits/node_volume_limits.h"

#include <algorithm>
#include <random>

#include "stowage/plugins/helper/csi_translation.h"
#include "stowage/plugins/helper/resize.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::node_volume_limits {
namespace {

// The VolumeAttachments of the cycle, by node, read once at PreFilter.
struct PreFilterState final : framework::StateData {
  std::shared_ptr<const std::map<std::string, VolumeMap>> attachments;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

std::string UniqueName(const std::string& driver, const std::string& handle) {
  return driver + "/" + handle;
}

bool IsCsi(const api::PersistentVolume& pv) { return pv.source == "csi" || !pv.csi_driver.empty(); }

// Upstream's rand.String(32): lower-case consonants and digits.
std::string RandomString(size_t n) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device rd;
  std::mt19937_64 gen(rd());
  std::uniform_int_distribution<size_t> pick(0, kAlphabet.size() - 1);
  std::string s(n, ' ');
  for (char& c : s) c = kAlphabet[pick(gen)];
  return s;
}

}  // namespace

bool IsCSIMigrationOn(const api::CSINode* csi_node, std::string_view plugin_name) {
  if (csi_node == nullptr || plugin_name.empty()) return false;
  using namespace helper;  // NOLINT: the plugin names
  return plugin_name == kAWSEBSInTreePluginName || plugin_name == kPortworxInTreePluginName ||
         plugin_name == kGCEPDInTreePluginName || plugin_name == kAzureDiskInTreePluginName ||
         plugin_name == kCinderInTreePluginName;
}

std::map<std::string, int64_t> VolumeLimits(const api::CSINode* csi_node) {
  std::map<std::string, int64_t> limits;
  if (csi_node == nullptr) return limits;
  for (const api::CSINodeDriver& d : csi_node->drivers) {
    if (d.allocatable_count) limits[d.name] = *d.allocatable_count;
  }
  return limits;
}

NodeVolumeLimits::NodeVolumeLimits(framework::Handle& handle, Options options)
    : pvs_(handle.persistent_volumes()),
      claims_(handle.persistent_volume_claims()),
      classes_(handle.storage_classes()),
      csi_nodes_(handle.csi_nodes()),
      csi_drivers_(handle.csi_drivers()),
      attachments_(handle.volume_attachments()),
      options_(std::move(options)) {}

framework::Status NodeVolumeLimits::PreFilter(framework::CycleState& state,
                                              const framework::PodInfo& pod,
                                              const std::vector<const framework::NodeInfo*>&,
                                              framework::PreFilterResult&) {
  if (helper::IsDeferredResize(options_.skip_resize_deferred, *pod)) {
    return framework::Status::Skip();
  }
  const auto& volumes = pod->spec.volumes;
  if (std::none_of(volumes.begin(), volumes.end(), [](const api::Volume& v) {
        return v.source == "persistentVolumeClaim" || v.source == "ephemeral" ||
               helper::IsInlineMigratable(v);
      })) {
    return framework::Status::Skip();
  }
  auto s = std::make_unique<PreFilterState>();
  s->attachments = std::make_shared<const std::map<std::string, VolumeMap>>(AttachmentsByNode());
  state.Write(kStateKey, std::move(s));
  return {};
}

framework::Status NodeVolumeLimits::Filter(const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node_info) {
  if (helper::IsDeferredResize(options_.skip_resize_deferred, *pod)) return {};
  if (pod->spec.volumes.empty()) return {};
  const api::Node& node = *node_info.node();
  const auto csi_node_ptr = csi_nodes_.Get("", node.metadata.name);
  const api::CSINode* csi_node = csi_node_ptr.get();

  VolumeMap new_volumes;
  if (framework::Status s = AttachableVolumes(*pod, csi_node, /*new_pod=*/true, new_volumes);
      !s.IsSuccess()) {
    return s;
  }
  if (new_volumes.empty()) return {};

  if (options_.volume_limit_scaling) {
    for (const auto& [unique_name, driver] : new_volumes) {
      if (!DriverInstalled(driver, csi_node)) {
        return framework::Status::Unschedulable(driver +
                                                " CSI driver is not installed on the node");
      }
    }
  }

  const std::map<std::string, int64_t> limits = VolumeLimits(csi_node);
  if (limits.empty()) return {};

  VolumeMap attached;
  for (const framework::PodInfoPtr& existing : node_info.pods()) {
    if (framework::Status s = AttachableVolumes(*existing->pod, csi_node, false, attached);
        !s.IsSuccess()) {
      return framework::Status::Error(s.Message());
    }
  }
  std::map<std::string, int64_t> attached_count;
  for (const auto& [unique_name, driver] : attached) {
    new_volumes.erase(unique_name);  // a volume shared with a pod on the node counts once
    ++attached_count[driver];
  }

  const auto* s = state.Read<PreFilterState>(kStateKey);
  const auto attachments =
      s != nullptr ? s->attachments
                   : std::make_shared<const std::map<std::string, VolumeMap>>(AttachmentsByNode());
  if (auto it = attachments->find(node.metadata.name); it != attachments->end()) {
    for (const auto& [unique_name, driver] : it->second) {
      if (attached.count(unique_name) == 0) ++attached_count[driver];
    }
  }

  std::map<std::string, int64_t> new_count;
  for (const auto& [unique_name, driver] : new_volumes) ++new_count[driver];
  for (const auto& [driver, count] : new_count) {
    auto limit = limits.find(driver);
    if (limit != limits.end() && attached_count[driver] + count > limit->second) {
      return framework::Status::Unschedulable(std::string(kErrReasonMaxVolumeCountExceeded));
    }
  }
  return {};
}

bool NodeVolumeLimits::DriverInstalled(const std::string& driver,
                                       const api::CSINode* csi_node) const {
  // Without a CSIDriver the driver may not be a CSI one at all: the pod is let through.
  auto csi_driver = csi_drivers_.Get("", driver);
  if (csi_driver == nullptr || !csi_driver->prevent_pod_scheduling_if_missing.value_or(false)) {
    return true;
  }
  if (csi_node == nullptr) return false;
  return std::any_of(csi_node->drivers.begin(), csi_node->drivers.end(),
                     [&](const api::CSINodeDriver& d) { return d.name == driver; });
}

framework::Status NodeVolumeLimits::AttachableVolumes(const api::Pod& pod,
                                                      const api::CSINode* csi_node, bool new_pod,
                                                      VolumeMap& out) const {
  for (const api::Volume& v : pod.spec.volumes) {
    std::string claim_name;
    const bool ephemeral = v.source == "ephemeral";
    if (v.source == "persistentVolumeClaim") {
      claim_name = v.claim_name;
    } else if (ephemeral) {
      claim_name = helper::EphemeralClaimName(pod, v);
    } else {
      if (framework::Status s = AttachableInlineVolume(v, csi_node, out); !s.IsSuccess()) return s;
      continue;
    }
    if (claim_name.empty()) return framework::Status::Error("PersistentVolumeClaim had no name");
    auto pvc = claims_.Get(pod.metadata.namespace_, claim_name);
    if (pvc == nullptr) {
      // A new pod cannot run without it; an existing pod's is not counted.
      if (!new_pod) continue;
      return framework::Status::Unresolvable("looking up PVC " + pod.metadata.namespace_ + "/" +
                                             claim_name + ": persistentvolumeclaims \"" +
                                             claim_name + "\" not found");
    }
    if (ephemeral && !helper::EphemeralClaimIsForPod(pod, *pvc)) {
      return framework::Status::Error(helper::EphemeralClaimNotForPodMessage(pod, *pvc));
    }
    auto [driver, handle] = DriverInfo(csi_node, *pvc);
    if (driver.empty() || handle.empty()) continue;
    out[UniqueName(driver, handle)] = driver;
  }
  return {};
}

framework::Status NodeVolumeLimits::AttachableInlineVolume(const api::Volume& v,
                                                           const api::CSINode* csi_node,
                                                           VolumeMap& out) const {
  const std::optional<std::string_view> plugin = helper::InTreePluginNameOf(v);
  if (!plugin || !IsCSIMigrationOn(csi_node, *plugin)) return {};
  StatusOr<helper::CsiVolume> translated = helper::TranslateInlineVolumeToCsi(v);
  if (!translated.ok()) {
    return framework::Status::Error("converting volume(" + v.name + ") from inline to csi: " +
                                    std::string(translated.status().message()));
  }
  const std::string driver(*helper::CsiDriverOfInTreePlugin(*plugin));
  out[UniqueName(driver, translated->volume_handle)] = driver;
  return {};
}

NodeVolumeLimits::CsiInfo NodeVolumeLimits::DriverInfo(
    const api::CSINode* csi_node, const api::PersistentVolumeClaim& pvc) const {
  // An unbound claim, or one whose PV is gone or not created yet, counts by its class.
  if (pvc.volume_name.empty()) return DriverInfoFromClass(csi_node, pvc);
  auto pv = pvs_.Get("", pvc.volume_name);
  if (pv == nullptr) return DriverInfoFromClass(csi_node, pvc);
  if (IsCsi(*pv)) return {pv->csi_driver, pv->csi_volume_handle};
  const std::optional<std::string_view> plugin = helper::InTreePluginNameOf(*pv);
  if (!plugin || !IsCSIMigrationOn(csi_node, *plugin)) return {};
  StatusOr<helper::CsiVolume> translated = helper::TranslatePVToCsi(*pv);
  if (!translated.ok()) return {};
  return {translated->driver, translated->volume_handle};
}

NodeVolumeLimits::CsiInfo NodeVolumeLimits::DriverInfoFromClass(
    const api::CSINode* csi_node, const api::PersistentVolumeClaim& pvc) const {
  // Without a class the claim binds immediately, so it is bound before it is scheduled.
  const std::string class_name = helper::ClaimClass(pvc);
  if (class_name.empty()) return {};
  auto sc = classes_.Get("", class_name);
  if (sc == nullptr) return {};
  // A handle no real volume has: two pods of the node using the claim count it once, and a
  // claim bound meanwhile to a volume of the node is counted twice at worst.
  std::string handle =
      options_.random_volume_id_prefix + "-" + pvc.metadata.namespace_ + "/" + pvc.metadata.name;
  if (helper::IsMigratableInTreePluginByName(sc->provisioner)) {
    if (!IsCSIMigrationOn(csi_node, sc->provisioner)) return {};
    return {std::string(*helper::CsiDriverOfInTreePlugin(sc->provisioner)), std::move(handle)};
  }
  return {sc->provisioner, std::move(handle)};
}

std::map<std::string, VolumeMap> NodeVolumeLimits::AttachmentsByNode() const {
  std::map<std::string, VolumeMap> out;
  for (const auto& va : attachments_.List()) {
    if (va->attacher.empty() || !va->persistent_volume_name) continue;
    auto pv = pvs_.Get("", *va->persistent_volume_name);
    if (pv == nullptr || !IsCsi(*pv)) continue;
    out[va->node_name][UniqueName(va->attacher, pv->csi_volume_handle)] = va->attacher;
  }
  return out;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  NodeVolumeLimits::Options options;
  options.skip_resize_deferred = features.in_place_pod_vertical_scaling_scheduler_preemption;
  options.volume_limit_scaling = features.volume_limit_scaling;
  options.random_volume_id_prefix = RandomString(32);
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeVolumeLimits>(handle, std::move(options)));
}

}  // namespace stowage::plugins::node_volume_limits
