#include "pkg/plugins/volume_binding/claims.h"

namespace stowage::plugins::volume_binding {
namespace {

// upstream's ephemeral.VolumeIsForPod: the pod must be the claim's controller.
bool OwnedByPod(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  if (pvc.metadata.namespace_ != pod.metadata.namespace_) return false;
  for (const auto& ref : pvc.metadata.owner_references) {
    if (ref.controller) return ref.uid == pod.metadata.uid;
  }
  return false;
}

}  // namespace

std::optional<std::string> ClaimNameOf(const api::Pod& pod, const api::Volume& v) {
  if (v.source == "persistentVolumeClaim") return v.claim_name;
  if (v.source == "ephemeral") return pod.metadata.name + "-" + v.name;
  return std::nullopt;
}

bool FullyBound(const api::PersistentVolumeClaim& pvc) {
  return !pvc.volume_name.empty() && pvc.metadata.annotations.Get(kAnnBindCompleted) != nullptr;
}

ClaimsOrReason SortPodClaims(const api::Pod& pod,
                             const framework::Lister<api::PersistentVolumeClaim>& claims,
                             const framework::Lister<api::PersistentVolumeClaim>& current,
                             const framework::Lister<api::StorageClass>& classes) {
  ClaimsOrReason out;
  std::vector<ClaimPtr> found;
  // First pass, upstream's podHasPVCs: the first volume whose claim is unusable names the reason.
  for (const api::Volume& v : pod.spec.volumes) {
    const bool ephemeral = v.source == "ephemeral";
    std::optional<std::string> name = ClaimNameOf(pod, v);
    if (!name) continue;
    out.claims.has_claims = true;
    ClaimPtr pvc = claims.Get(pod.metadata.namespace_, *name);
    if (pvc == nullptr) {
      out.unschedulable = ephemeral ? "waiting for ephemeral volume controller to create the "
                                      "persistentvolumeclaim \"" +
                                          *name + "\""
                                    : "persistentvolumeclaim \"" + *name + "\" not found";
      return out;
    }
    if (pvc->phase == "Lost") {
      out.unschedulable = "persistentvolumeclaim \"" + pvc->metadata.name +
                          "\" bound to non-existent persistentvolume \"" + pvc->volume_name + "\"";
      return out;
    }
    if (pvc->metadata.deletion_timestamp) {
      out.unschedulable = "persistentvolumeclaim \"" + pvc->metadata.name + "\" is being deleted";
      return out;
    }
    if (ephemeral && !OwnedByPod(pod, *pvc)) {
      out.unschedulable = "PVC " + pvc->metadata.namespace_ + "/" + pvc->metadata.name +
                          " was not created for pod " + pod.metadata.namespace_ + "/" +
                          pod.metadata.name + " (pod is not owner)";
      return out;
    }
    found.push_back(std::move(pvc));
  }
  // Second pass, GetPodVolumeClaims: bound, or unbound by the binding mode of the class.
  for (ClaimPtr& pvc : found) {
    if (ClaimPtr assumed = current.Get(pvc->metadata.namespace_, pvc->metadata.name)) {
      pvc = std::move(assumed);
    }
    if (FullyBound(*pvc)) {
      out.claims.bound.push_back(std::move(pvc));
      continue;
    }
    bool delayed = false;
    if (std::string cls = helper::ClaimClass(*pvc); !cls.empty()) {
      // A class that does not exist (yet) means immediate binding, as upstream.
      if (auto sc = classes.Get("", cls)) {
        if (sc->volume_binding_mode.empty()) {
          out.error = "VolumeBindingMode not set for StorageClass \"" + cls + "\"";
          return out;
        }
        delayed = sc->volume_binding_mode == "WaitForFirstConsumer";
      }
    }
    // A prebound claim (volumeName set, binding not completed) waits for the PV controller.
    if (delayed && pvc->volume_name.empty()) {
      out.claims.unbound_delayed.push_back(std::move(pvc));
    } else {
      out.claims.unbound_immediate.push_back(std::move(pvc));
    }
  }
  return out;
}

}  // namespace stowage::plugins::volume_binding
