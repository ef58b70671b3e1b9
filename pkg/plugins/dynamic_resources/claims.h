// How a pod names its ResourceClaims (upstream's k8s.io/dynamic-resource-allocation/resourceclaim
// helpers): a claim by name, or one the resourceclaim controller created from a template and
// recorded in the pod's status; and who a claim is reserved for.
//
// Pure functions over API objects and the tracker; safe from any thread.
#pragma once

#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/plugins/dynamic_resources/claim_tracker.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::plugins::dynamic_resources {

// resourceapi.ResourceClaimReservedForMaxSize: how many consumers one claim may be reserved for.
inline constexpr size_t kReservedForMaxSize = 256;
// resourceapi.Finalizer: keeps an allocated claim until the controller deallocates it.
inline constexpr std::string_view kClaimFinalizer = "resource.kubernetes.io/delete-protection";

// The pod's claims in the order of spec.resourceClaims, skipping template claims for which the
// controller decided no claim is needed. An error carries upstream's text: a template claim not
// created yet (`pod "ns/name": ResourceClaim not created yet`), a claim unknown
// (`could not find ResourceClaim "ns/name"`), being deleted, or not owned by the pod.
StatusOr<std::vector<dra::ResourceClaimPtr>> PodClaims(const api::Pod& pod,
                                                       const ClaimTracker& tracker);

// Whether PodClaims would succeed, without building its messages.
bool HasAllClaims(const api::Pod& pod, const ClaimTracker& tracker);
// Adds "namespace/name" of every claim the pod names, by name or through its status (a superset
// of the claims PodClaims returns, found without the tracker).
void ClaimKeys(const api::Pod& pod, std::vector<std::string>& out);

// Whether the claim's status.reservedFor names the pod (by UID).
bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim);

// Whether claim carries the annotation of a claim the scheduler made for extended resources.
bool IsExtendedResourceClaim(const api::ResourceClaim& claim);
// The claim's resourceVersion as a number, as upstream's assume cache compares them (etcd's
// are); 0 when it is not one.
unsigned long long ResourceVersionOf(const api::ResourceClaim& claim);
// Whether claim is the one an earlier attempt created for pod's extended resources (annotated,
// and the pod its controller), as upstream's findExtendedResourceClaim asks.
bool IsPodsExtendedClaim(const api::ResourceClaim& claim, const api::Pod& pod);

// Whether one more consumer may be added to the claim's reservedFor.
inline bool CanBeReserved(const api::ResourceClaim& claim) {
  return claim.reserved_for.size() < kReservedForMaxSize;
}
// The pod as a claim's consumer: {resource: pods, name, uid}.
api::ResourceClaimConsumerReference ConsumerOf(const api::Pod& pod);

// "namespace/name", as klog.KObj prints an object in upstream's messages.
std::string KObj(const api::ObjectMeta& meta);

}  // namespace stowage::plugins::dynamic_resources
