#include "pkg/plugins/node_volume_limits/node_volume_limits.h"

#include <algorithm>
#include <random>

#include "stowage/plugins/helper/csi_translation.h"
#include "stowage/plugins/helper/resize.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::node_volume_limits {

// The pod's volumes as Filter counts them on a node with a CSINode (with) and without (without).
struct NodeVolumeLimits::PodState final : framework::StateData {
  struct Volume {
    std::string unique_name;
    std::string driver;
    bool must_be_listed = false;  // its CSIDriver prevents scheduling where CSINode lacks it
  };
  struct Volumes {
    framework::Status status;     // not success: what Filter answers
    std::vector<Volume> volumes;  // sorted by unique name
  };
  Volumes with, without;
  std::optional<ListerVersions> versions;  // read before the objects
  std::shared_ptr<const std::map<std::string, VolumeMap>> attachments;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PodState>(*this);
  }
};

namespace {

// Upstream's Filter from the pod's volumes and the node's, without a map per node.
framework::Status Decide(const NodeVolumeLimits::PodState& pod, const NodeVolumes& node,
                         bool volume_limit_scaling) {
  const auto& mine = node.csi_node != nullptr ? pod.with : pod.without;
  if (!mine.status.IsSuccess()) return mine.status;
  if (mine.volumes.empty()) return {};
  if (volume_limit_scaling) {
    for (const auto& v : mine.volumes) {
      if (v.must_be_listed && !node.Lists(v.driver)) {
        return framework::Status::Unschedulable(v.driver +
                                                " CSI driver is not installed on the node");
      }
    }
  }
  if (node.limits.empty()) return {};
  if (node.error) return framework::Status::Error(*node.error);
  const auto& vs = mine.volumes;
  for (size_t i = 0; i < vs.size(); ++i) {
    auto first = [&](const auto& v) { return v.driver == vs[i].driver; };
    if (std::find_if(vs.begin(), vs.begin() + i, first) != vs.begin() + i) continue;
    const std::optional<int64_t> limit = node.Limit(vs[i].driver);
    if (!limit) continue;
    // A volume a pod of the node already uses counts once.
    int64_t count = 0;
    for (size_t j = i; j < vs.size(); ++j) {
      if (vs[j].driver == vs[i].driver && !node.UsedByPod(vs[j].unique_name)) ++count;
    }
    if (node.Attached(vs[i].driver) + count > *limit) {
      return framework::Status::Unschedulable(std::string(kErrReasonMaxVolumeCountExceeded));
    }
  }
  return {};
}

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
  return csi_node != nullptr && helper::CsiMigrationOn(plugin_name);
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
                                              const std::vector<const framework::NodeInfo*>& nodes,
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
  nodes_.Prune(nodes.size());
  state.Write(kStateKey, NewPodState(*pod));
  return {};
}

framework::Status NodeVolumeLimits::Filter(const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node_info) {
  if (helper::IsDeferredResize(options_.skip_resize_deferred, *pod)) return {};
  if (pod->spec.volumes.empty()) return {};
  const auto* s = state.Read<PodState>(kStateKey);
  std::unique_ptr<PodState> own;  // Filter without PreFilter (tests)
  if (s == nullptr) s = (own = NewPodState(*pod)).get();
  if (!s->versions) {
    NodeVolumes node;
    ComputeNode(node_info, *s->attachments, node);
    return Decide(*s, node, options_.volume_limit_scaling);
  }
  const std::shared_ptr<NodeVolumesCache::Entry> entry = nodes_.Get(node_info.name());
  MutexLock l(entry->mu);
  if (entry->generation != node_info.generation() || entry->versions != *s->versions) {
    ComputeNode(node_info, *s->attachments, entry->volumes);
    entry->generation = node_info.generation();
    entry->versions = *s->versions;
  }
  return Decide(*s, entry->volumes, options_.volume_limit_scaling);
}

std::optional<ListerVersions> NodeVolumeLimits::Versions() const {
  auto pvs = pvs_.Version(), claims = claims_.Version(), classes = classes_.Version(),
       csi_nodes = csi_nodes_.Version(), attachments = attachments_.Version();
  if (!pvs || !claims || !classes || !csi_nodes || !attachments) return std::nullopt;
  return ListerVersions{*pvs, *claims, *classes, *csi_nodes, *attachments};
}

std::unique_ptr<NodeVolumeLimits::PodState> NodeVolumeLimits::NewPodState(const api::Pod& pod) {
  auto s = std::make_unique<PodState>();
  s->versions = Versions();
  s->attachments = Attachments(s->versions);
  // The pod's volumes depend on the node only through whether it has a CSINode.
  const api::CSINode any_csi_node;
  for (const api::CSINode* csi_node : {&any_csi_node, static_cast<const api::CSINode*>(nullptr)}) {
    PodState::Volumes& out = csi_node != nullptr ? s->with : s->without;
    VolumeMap volumes;
    out.status = AttachableVolumes(pod, csi_node, /*new_pod=*/true, volumes);
    if (!out.status.IsSuccess()) continue;
    for (auto& [unique_name, driver] : volumes) {
      bool must_be_listed = false;
      // Without a CSIDriver the driver may not be a CSI one at all: the pod is let through.
      if (options_.volume_limit_scaling) {
        auto csi_driver = csi_drivers_.Get("", driver);
        must_be_listed =
            csi_driver != nullptr && csi_driver->prevent_pod_scheduling_if_missing.value_or(false);
      }
      out.volumes.push_back({unique_name, driver, must_be_listed});
    }
  }
  return s;
}

void NodeVolumeLimits::ComputeNode(const framework::NodeInfo& node_info,
                                   const std::map<std::string, VolumeMap>& attachments,
                                   NodeVolumes& out) const {
  out.Clear();
  out.csi_node = csi_nodes_.Get("", node_info.name());
  const api::CSINode* csi_node = out.csi_node.get();
  for (auto& limit : VolumeLimits(csi_node)) out.limits.push_back(limit);
  if (out.limits.empty()) return;  // nothing is counted on the node
  VolumeMap used;
  for (const framework::PodInfoPtr& existing : node_info.pods()) {
    if (framework::Status s = AttachableVolumes(*existing->pod, csi_node, false, used);
        !s.IsSuccess()) {
      out.error = s.Message();
      return;
    }
  }
  std::map<std::string, int64_t> count;
  for (const auto& [unique_name, driver] : used) {
    out.pod_volumes.push_back(unique_name);
    ++count[driver];
  }
  if (auto it = attachments.find(node_info.name()); it != attachments.end()) {
    for (const auto& [unique_name, driver] : it->second) {
      if (used.count(unique_name) == 0) ++count[driver];
    }
  }
  out.attached.assign(count.begin(), count.end());
}

std::shared_ptr<const std::map<std::string, VolumeMap>> NodeVolumeLimits::Attachments(
    const std::optional<ListerVersions>& versions) {
  if (!versions)
    return std::make_shared<const std::map<std::string, VolumeMap>>(AttachmentsByNode());
  MutexLock l(attachments_mu_);
  if (attachments_by_node_ == nullptr ||
      attachments_by_node_versions_->attachments != versions->attachments ||
      attachments_by_node_versions_->pvs != versions->pvs) {
    attachments_by_node_ =
        std::make_shared<const std::map<std::string, VolumeMap>>(AttachmentsByNode());
    attachments_by_node_versions_ = versions;
  }
  return attachments_by_node_;
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
