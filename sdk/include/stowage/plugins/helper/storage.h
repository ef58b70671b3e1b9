// What several volume plugins read of storage objects, as component-helpers' storage/volume
// helpers define it. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The annotation that named a claim's class before spec.storageClassName existed; it still wins.
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";

// The claim's class: the beta annotation first, then spec.storageClassName (upstream's
// GetPersistentVolumeClaimClass); empty for none.
std::string ClaimClass(const api::PersistentVolumeClaim& pvc);

// Whether one of pod's persistentVolumeClaim volumes names claim, in pod's namespace (ephemeral
// volumes' claims do not count): the test of VolumeZone's and VolumeRestrictions' claim hints.
bool PodNamesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& claim);

// The name of the claim the ephemeral volume controller creates for a generic ephemeral volume
// of pod: <pod>-<volume> (component-helpers' ephemeral.VolumeClaimName).
std::string EphemeralClaimName(const api::Pod& pod, const api::Volume& volume);

// Whether pod is the controller of claim, in its namespace (ephemeral.VolumeIsForPod): an
// ephemeral volume's claim must be. When not, upstream's error names both.
bool EphemeralClaimIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& claim);
std::string EphemeralClaimNotForPodMessage(const api::Pod& pod,
                                           const api::PersistentVolumeClaim& claim);

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
