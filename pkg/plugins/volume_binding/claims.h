// How a pod's volumes stand with their PersistentVolumeClaims, as upstream's volume binder sorts
// them (GetPodVolumeClaims and podHasPVCs): each claim found, bound, unbound with immediate
// binding, or unbound with binding delayed until a node is chosen (WaitForFirstConsumer).
// Pure functions over listers; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pkg/plugins/volume_binding/matching.h"
#include "stowage/api/types.h"
#include "stowage/framework/handle.h"
#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::volume_binding {

// The annotations upstream's helpers read.
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
using helper::kAnnBetaStorageClass;

struct PodClaims {
  bool has_claims = false;  // the pod names a claim (persistentVolumeClaim or ephemeral)
  std::vector<ClaimPtr> bound;
  std::vector<ClaimPtr> unbound_immediate;  // prebound claims count here, as upstream
  std::vector<ClaimPtr> unbound_delayed;
};

// True when the claim names a volume and the PV controller finished binding it.
bool FullyBound(const api::PersistentVolumeClaim& pvc);

// The claims of pod's volumes, or the reason the pod cannot be scheduled now with upstream's
// words: a missing claim ("persistentvolumeclaim \"x\" not found", or the wait for the
// ephemeral volume controller), a lost or terminating claim, an ephemeral claim the pod does not
// own. error is set instead when a class cannot be read (a class without volumeBindingMode).
struct ClaimsOrReason {
  PodClaims claims;
  std::optional<std::string> unschedulable;
  std::optional<std::string> error;
};
// claims is the informer's view (upstream's PVC lister), current the binder's assumed view, in
// which a claim whose provisioning this scheduler started already names its node.
ClaimsOrReason SortPodClaims(const api::Pod& pod,
                             const framework::Lister<api::PersistentVolumeClaim>& claims,
                             const framework::Lister<api::PersistentVolumeClaim>& current,
                             const framework::Lister<api::StorageClass>& classes);

}  // namespace stowage::plugins::volume_binding
