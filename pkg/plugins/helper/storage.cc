#include "stowage/plugins/helper/storage.h"

#include <algorithm>

namespace stowage::plugins::helper {

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  if (const std::string* c = pvc.metadata.annotations.Get(kAnnBetaStorageClass)) return *c;
  return pvc.storage_class_name.value_or("");
}

std::string EphemeralClaimName(const api::Pod& pod, const api::Volume& volume) {
  return pod.metadata.name + "-" + volume.name;
}

bool EphemeralClaimIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  for (const api::OwnerReference& ref : claim.metadata.owner_references) {
    if (ref.controller) return ref.uid == pod.metadata.uid;
  }
  return false;
}

std::string EphemeralClaimNotForPodMessage(const api::Pod& pod,
                                           const api::PersistentVolumeClaim& claim) {
  return "PVC " + claim.metadata.namespace_ + "/" + claim.metadata.name +
         " was not created for pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
         " (pod is not owner)";
}

bool PodNamesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const api::Volume& v) {
    return v.source == "persistentVolumeClaim" && v.claim_name == claim.metadata.name;
  });
}

}  // namespace stowage::plugins::helper
