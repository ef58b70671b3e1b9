#include "pkg/plugins/volume_binding/binder.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <thread>

#include "stowage/api/labels.h"
#include "stowage/common/log.h"
#include "stowage/plugins/helper/csi_translation.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::volume_binding {
namespace {

std::string ClaimKey(const api::PersistentVolumeClaim& c) {
  return c.metadata.namespace_ + "/" + c.metadata.name;
}

// The informer's version is older than the one the binder wrote: wait for it.
bool OlderThan(const api::ObjectMeta& seen, const api::ObjectMeta& written) {
  uint64_t a = 0, b = 0;
  const std::string& sa = seen.resource_version;
  const std::string& sb = written.resource_version;
  std::from_chars(sa.data(), sa.data() + sa.size(), a);
  std::from_chars(sb.data(), sb.data() + sb.size(), b);
  return a < b;
}

// The in-tree plugin of a PV the binder reads through CSI translation; empty for other PVs.
std::string_view MigrationOnPlugin(const api::PersistentVolume& pv) {
  std::optional<std::string_view> name = helper::InTreePluginNameOf(pv);
  return name && helper::CsiMigrationOn(*name) ? *name : std::string_view();
}

// Whether the node's CSINode names the plugin in its migrated-plugins annotation.
bool MigratedOn(std::string_view plugin, const api::CSINode* csi_node) {
  if (csi_node == nullptr) return false;
  const std::string* list = csi_node->metadata.annotations.Get(helper::kAnnMigratedPlugins);
  if (list == nullptr) return false;
  std::string_view rest = *list;
  while (true) {
    const size_t comma = rest.find(',');
    if (rest.substr(0, comma) == plugin) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}

// Whether the PV's node affinity admits the node, translating it first where upstream's
// tryTranslatePVToCSI would.
StatusOr<bool> AffinityFits(const api::PersistentVolume& pv, const api::Node& node,
                            const api::CSINode* csi_node) {
  std::string_view plugin = MigrationOnPlugin(pv);
  if (!plugin.empty() && MigratedOn(plugin, csi_node)) {
    auto translated = helper::TranslatePVToCsi(pv);
    if (!translated.ok()) {
      return FailedPreconditionError("could not translate pv: " +
                                     std::string(translated.status().message()));
    }
    std::optional<api::NodeSelector> affinity = helper::CsiNodeAffinityOf(pv);
    return !affinity ||
           api::NodeSelectorMatcher::Compile(*affinity).Matches(node.metadata.labels, "");
  }
  return !pv.node_affinity ||
         api::NodeSelectorMatcher::Compile(*pv.node_affinity).Matches(node.metadata.labels, "");
}

std::string AffinityMismatch(const api::PersistentVolume& pv, const api::Node& node) {
  return "pv \"" + pv.metadata.name + "\" node affinity doesn't match node \"" +
         node.metadata.name + "\": no matching NodeSelectorTerms";
}

}  // namespace

Binder::Binder(framework::Handle& handle, Options options)
    : handle_(handle),
      options_(std::move(options)),
      pv_cache_(handle.persistent_volumes()),
      pvc_cache_(handle.persistent_volume_claims()),
      classes_(handle.storage_classes()),
      drivers_(handle.csi_drivers()),
      csi_nodes_(handle.csi_nodes()),
      capacities_(handle.csi_storage_capacities()) {}

PodVolumeClaims Binder::Resolve(const PodClaims& claims) const {
  PodVolumeClaims out;
  for (const ClaimPtr& pvc : claims.bound) {
    BoundVolume& b = out.bound.emplace_back();
    auto pv = pv_cache_.Get("", pvc->volume_name);
    if (pv == nullptr) {
      b.missing = true;
      continue;
    }
    if (pv->node_affinity) b.affinity = api::NodeSelectorMatcher::Compile(*pv->node_affinity);
    b.migrated_plugin = MigrationOnPlugin(*pv);
    if (b.migrated_plugin.empty()) continue;
    if (auto translated = helper::TranslatePVToCsi(*pv); !translated.ok()) {
      b.translate_error = "could not translate pv: " + std::string(translated.status().message());
    } else if (auto affinity = helper::CsiNodeAffinityOf(*pv)) {
      b.csi_affinity = api::NodeSelectorMatcher::Compile(*affinity);
    }
  }
  out.unbound_delayed = claims.unbound_delayed;
  if (out.unbound_delayed.empty()) return out;
  std::set<std::string> classes;
  for (const ClaimPtr& pvc : out.unbound_delayed) {
    classes.insert(helper::ClaimClass(*pvc));
    out.candidates[helper::ClaimClass(*pvc)];
  }
  for (VolumePtr& pv : pv_cache_.List()) {
    auto it = out.candidates.find(VolumeClass(*pv));
    if (it != out.candidates.end()) it->second.push_back(MakeCandidate(std::move(pv)));
  }
  return out;
}

framework::Status Binder::FindPodVolumes(const PodVolumeClaims& claims, const api::NodePtr& node,
                                         PodVolumes& out,
                                         std::vector<std::string_view>& reasons) const {
  framework::Status s = FindPodVolumesOnNode(claims, node, out, reasons);
  if (!s.IsSuccess()) handle_.volume_metrics().StageError("predicate");
  return s;
}

framework::Status Binder::FindPodVolumesOnNode(const PodVolumeClaims& claims,
                                               const api::NodePtr& node_ptr, PodVolumes& out,
                                               std::vector<std::string_view>& reasons) const {
  const api::Node& node = *node_ptr;
  bool bound_satisfied = true, unbound_satisfied = true, sufficient = true, pvs_found = true;
  // As upstream's checkBoundClaims, the first volume that is missing or misses the node decides.
  std::shared_ptr<const api::CSINode> csi_node;
  bool csi_node_read = false;
  for (const BoundVolume& b : claims.bound) {
    if (b.missing) {
      pvs_found = false;
      break;
    }
    const std::optional<api::NodeSelectorMatcher>* affinity = &b.affinity;
    if (!b.migrated_plugin.empty()) {
      if (!csi_node_read) csi_node = csi_nodes_.Get("", node.metadata.name);
      csi_node_read = true;
      if (MigratedOn(b.migrated_plugin, csi_node.get())) {
        if (!b.translate_error.empty()) return framework::Status::Error(b.translate_error);
        affinity = &b.csi_affinity;
      }
    }
    if (*affinity && !(*affinity)->Matches(node.metadata.labels, "")) {
      bound_satisfied = false;
      break;
    }
  }
  out.node = node_ptr;
  if (!claims.unbound_delayed.empty()) {
    std::vector<ClaimPtr> to_match, to_provision;
    bool wrong_node = false;
    for (const ClaimPtr& pvc : claims.unbound_delayed) {
      if (const std::string* selected = pvc->metadata.annotations.Get(kAnnSelectedNode)) {
        if (*selected != node.metadata.name) {
          wrong_node = true;  // provisioning started for another node
          break;
        }
        to_provision.push_back(pvc);
      } else {
        to_match.push_back(pvc);
      }
    }
    if (wrong_node) {
      unbound_satisfied = false;
    } else {
      if (!to_match.empty()) {
        // The smallest claims first get the smallest volumes that fit them.
        std::stable_sort(to_match.begin(), to_match.end(),
                         [](const ClaimPtr& a, const ClaimPtr& b) {
                           return StorageBytes(a->requests) < StorageBytes(b->requests);
                         });
        std::set<std::string> chosen;
        static const std::vector<Candidate> kNone;
        for (const ClaimPtr& pvc : to_match) {
          auto it = claims.candidates.find(helper::ClaimClass(*pvc));
          std::string error;
          const Candidate* c =
              FindMatchingVolume(*pvc, it == claims.candidates.end() ? kNone : it->second,
                                 node.metadata.labels, chosen, &error);
          if (!error.empty()) return framework::Status::Error(std::move(error));
          if (c == nullptr) {
            to_provision.push_back(pvc);
            unbound_satisfied = false;
            continue;
          }
          chosen.insert(c->pv->metadata.name);
          out.static_bindings.push_back({pvc, c->pv});
        }
      }
      if (!to_provision.empty()) {
        framework::Status s =
            ProvisionOn(to_provision, node, unbound_satisfied, sufficient, out.dynamic_provisions);
        if (!s.IsSuccess()) return s;
      }
    }
  }
  if (!bound_satisfied) reasons.push_back(kErrReasonNodeConflict);
  if (!unbound_satisfied) reasons.push_back(kErrReasonBindConflict);
  if (!sufficient) reasons.push_back(kErrReasonNotEnoughSpace);
  if (!pvs_found) reasons.push_back(kErrReasonPVNotExist);
  return {};
}

framework::Status Binder::ProvisionOn(const std::vector<ClaimPtr>& claims, const api::Node& node,
                                      bool& satisfied, bool& sufficient,
                                      std::vector<DynamicProvision>& out) const {
  std::vector<DynamicProvision> provisions;
  for (const ClaimPtr& claim : claims) {
    const std::string cls = helper::ClaimClass(*claim);
    if (cls.empty())
      return framework::Status::Error("no class for claim \"" + ClaimKey(*claim) + "\"");
    auto sc = classes_.Get("", cls);
    if (sc == nullptr)
      return framework::Status::Error("failed to find storage class \"" + cls + "\"");
    if (sc->provisioner.empty() || sc->provisioner == kNotSupportedProvisioner ||
        !MatchTopology(sc->allowed_topologies, node.metadata.labels)) {
      satisfied = false;
      sufficient = true;
      return {};
    }
    bool enough = true;
    auto capacity = EnoughCapacity(sc->provisioner, *claim, *sc, node, enough);
    if (!capacity.ok()) return framework::Status::Error(std::string(capacity.status().message()));
    if (!enough) {
      satisfied = true;
      sufficient = false;
      return {};
    }
    provisions.push_back({claim, std::move(*capacity)});
  }
  satisfied = true;
  sufficient = true;
  for (auto& p : provisions) out.push_back(std::move(p));
  return {};
}

StatusOr<CapacityPtr> Binder::EnoughCapacity(const std::string& provisioner,
                                             const api::PersistentVolumeClaim& claim,
                                             const api::StorageClass& cls, const api::Node& node,
                                             bool& sufficient) const {
  sufficient = true;
  const api::Quantity* size = claim.requests.Get("storage");
  if (size == nullptr) return CapacityPtr();
  // Only drivers that publish capacity opt in; any other provisioner is not checked.
  auto driver = drivers_.Get("", provisioner);
  if (driver == nullptr || !driver->storage_capacity.value_or(false)) return CapacityPtr();
  const int64_t bytes = size->Value();
  for (CapacityPtr& c : capacities_.List()) {
    if (c->storage_class_name != cls.metadata.name) continue;
    const std::optional<api::Quantity>& limit =
        c->maximum_volume_size ? c->maximum_volume_size : c->capacity;
    if (!limit || limit->Value() < bytes || !c->node_topology) continue;
    auto selector = api::Selector::FromLabelSelector(&*c->node_topology);
    if (!selector.ok() || !selector->Matches(node.metadata.labels)) continue;
    return std::move(c);
  }
  sufficient = false;
  return CapacityPtr();
}

bool Binder::PodVolumesBound(const api::Pod& pod) const {
  for (const api::Volume& v : pod.spec.volumes) {
    std::optional<std::string> name = ClaimNameOf(pod, v);
    if (!name) continue;
    auto pvc = pvc_cache_.Get(pod.metadata.namespace_, *name);
    if (pvc == nullptr || !FullyBound(*pvc)) return false;
  }
  return true;
}

StatusOr<bool> Binder::AssumePodVolumes(const api::Pod& pod, std::string_view node,
                                        PodVolumes& volumes) {
  StatusOr<bool> done = Assume(pod, node, volumes);
  if (!done.ok()) handle_.volume_metrics().StageError("assume");
  return done;
}

StatusOr<bool> Binder::Assume(const api::Pod& pod, std::string_view node, PodVolumes& volumes) {
  if (PodVolumesBound(pod)) return true;
  std::vector<StaticBinding> bindings;
  std::vector<DynamicProvision> provisions;
  auto revert = [&] {
    for (const StaticBinding& b : bindings) pv_cache_.Restore(*b.pv);
    for (const DynamicProvision& p : provisions) pvc_cache_.Restore(*p.pvc);
  };
  for (const StaticBinding& b : volumes.static_bindings) {
    bool dirty = false;
    VolumePtr pv = BindVolumeToClaim(b.pv, *b.pvc, dirty);
    if (dirty) {
      if (stowage::Status s = pv_cache_.Assume(pv); !s.ok()) {
        revert();
        return s;
      }
    }
    bindings.push_back({b.pvc, std::move(pv)});
  }
  for (const DynamicProvision& p : volumes.dynamic_provisions) {
    ClaimPtr claim = WithSelectedNode(*p.pvc, node);
    if (stowage::Status s = pvc_cache_.Assume(claim); !s.ok()) {
      revert();
      return s;
    }
    provisions.push_back({std::move(claim), p.capacity});
  }
  volumes.static_bindings = std::move(bindings);
  volumes.dynamic_provisions = std::move(provisions);
  return false;
}

void Binder::RevertAssumedPodVolumes(const PodVolumes& volumes) {
  for (const StaticBinding& b : volumes.static_bindings) pv_cache_.Restore(*b.pv);
  for (const DynamicProvision& p : volumes.dynamic_provisions) pvc_cache_.Restore(*p.pvc);
}

framework::Status Binder::BindPodVolumes(const api::Pod& pod, PodVolumes& volumes) {
  framework::Status s = Bind(pod, volumes);
  if (!s.IsSuccess()) handle_.volume_metrics().StageError("bind");
  return s;
}

framework::Status Binder::Bind(const api::Pod& pod, PodVolumes& volumes) {
  framework::VolumeWriter* writer = handle_.volume_writer();
  if (writer == nullptr) return framework::Status::Error("no API to bind volumes through");
  // What was not written stays assumed no longer; what was written waits for the informer.
  size_t bound = 0, provisioned = 0;
  auto revert_unwritten = [&] {
    for (size_t i = bound; i < volumes.static_bindings.size(); ++i) {
      pv_cache_.Restore(*volumes.static_bindings[i].pv);
    }
    for (size_t i = provisioned; i < volumes.dynamic_provisions.size(); ++i) {
      pvc_cache_.Restore(*volumes.dynamic_provisions[i].pvc);
    }
  };
  for (StaticBinding& b : volumes.static_bindings) {
    auto pv = writer->UpdateVolume(*b.pv);
    if (!pv.ok()) {
      revert_unwritten();
      return framework::Status::Error(std::string(pv.status().message()));
    }
    STOWAGE_VLOG(2) << "Updated PersistentVolume with claim. Waiting for binding to complete pod=\""
                    << pod.metadata.namespace_ << "/" << pod.metadata.name << "\" PV=\""
                    << b.pv->metadata.name << "\" PVC=\"" << ClaimKey(*b.pvc) << "\"";
    b.pv = std::move(*pv);
    ++bound;
  }
  for (DynamicProvision& p : volumes.dynamic_provisions) {
    auto claim = writer->UpdateClaim(*p.pvc);
    if (!claim.ok()) {
      revert_unwritten();
      return framework::Status::Error(std::string(claim.status().message()));
    }
    p.pvc = std::move(*claim);
    ++provisioned;
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.bind_timeout;
  while (true) {
    // As upstream's poll, the first check comes one interval after the writes.
    auto wake = std::min(std::chrono::steady_clock::now() + options_.poll_interval, deadline);
    std::this_thread::sleep_until(wake);
    if (options_.stopping && options_.stopping()) {
      return framework::Status::Error("binding volumes: the scheduler is stopping");
    }
    auto done = CheckBindings(pod, volumes);
    if (!done.ok())
      return framework::Status::Error("binding volumes: " + std::string(done.status().message()));
    if (*done) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      return framework::Status::Error("binding volumes: context deadline exceeded");
    }
  }
}

StatusOr<bool> Binder::CheckBindings(const api::Pod& pod, const PodVolumes& volumes) const {
  const api::Node& node = *volumes.node;
  if (handle_.pods().Get(pod.metadata.namespace_, pod.metadata.name) == nullptr) {
    return NotFoundError("pod does not exist any more: pods \"" + pod.metadata.name +
                         "\" not found");
  }
  const auto csi_node = csi_nodes_.Get("", node.metadata.name);
  for (const StaticBinding& b : volumes.static_bindings) {
    auto pv = pv_cache_.GetApiObject("", b.pv->metadata.name);
    if (pv == nullptr) {
      return NotFoundError("failed to check binding: persistentvolumes \"" + b.pv->metadata.name +
                           "\" not found");
    }
    auto pvc = pvc_cache_.GetApiObject(b.pvc->metadata.namespace_, b.pvc->metadata.name);
    if (pvc == nullptr) {
      return NotFoundError("failed to check binding: persistentvolumeclaims \"" + ClaimKey(*b.pvc) +
                           "\" not found");
    }
    if (OlderThan(pv->metadata, b.pv->metadata)) return false;
    auto fits = AffinityFits(*pv, node, csi_node.get());
    if (!fits.ok()) {
      return FailedPreconditionError("failed to translate pv to csi: " +
                                     std::string(fits.status().message()));
    }
    if (!*fits) return FailedPreconditionError(AffinityMismatch(*pv, node));
    if (!pv->claim_ref || pv->claim_ref->uid.empty()) {
      return FailedPreconditionError("ClaimRef got reset for pv \"" + pv->metadata.name + "\"");
    }
    if (!FullyBound(*pvc)) return false;
  }
  for (const DynamicProvision& p : volumes.dynamic_provisions) {
    auto pvc = pvc_cache_.GetApiObject(p.pvc->metadata.namespace_, p.pvc->metadata.name);
    if (pvc == nullptr) {
      return NotFoundError("failed to check provisioning pvc: persistentvolumeclaims \"" +
                           ClaimKey(*p.pvc) + "\" not found");
    }
    if (OlderThan(pvc->metadata, p.pvc->metadata)) return false;
    if (pvc->metadata.annotations.empty()) {
      return FailedPreconditionError("selectedNode annotation reset for PVC \"" +
                                     pvc->metadata.name + "\"");
    }
    const std::string* selected = pvc->metadata.annotations.Get(kAnnSelectedNode);
    if (selected == nullptr || *selected != pod.spec.node_name) {
      // A provisioner that gives up removes the annotation to send the pod back.
      return FailedPreconditionError("provisioning failed for PVC \"" + pvc->metadata.name + "\"");
    }
    if (!pvc->volume_name.empty()) {
      auto pv = pv_cache_.GetApiObject("", pvc->volume_name);
      if (pv == nullptr) return false;  // not seen yet
      auto fits = AffinityFits(*pv, node, csi_node.get());
      if (!fits.ok()) return fits.status();
      if (!*fits) return FailedPreconditionError(AffinityMismatch(*pv, node));
    }
    if (!FullyBound(*pvc)) return false;
  }
  STOWAGE_VLOG(2) << "All PVCs for pod are bound pod=\"" << pod.metadata.namespace_ << "/"
                  << pod.metadata.name << "\"";
  return true;
}

}  // namespace stowage::plugins::volume_binding
