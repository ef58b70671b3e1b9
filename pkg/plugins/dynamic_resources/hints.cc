// The cluster events DynamicResources waits for, and its queueing hints (upstream's
// EventsToRegister, isSchedulableAfterClaimChange, isSchedulableAfterTargetPodUpdate).
#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"

namespace stowage::plugins::dynamic_resources {

using framework::EventResource;
using framework::QueueingHint;

namespace {

using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

ClaimPtr AsClaim(const framework::EventObject& o) {
  const ClaimPtr* c = std::get_if<ClaimPtr>(&o);
  return c == nullptr ? nullptr : *c;
}

bool SameStatus(const api::ResourceClaim& a, const api::ResourceClaim& b) {
  return a.allocation == b.allocation && a.reserved_for == b.reserved_for &&
         a.device_status == b.device_status;
}

}  // namespace

QueueingHint DynamicResources::AfterClaimChange(const api::Pod& pod,
                                                const framework::EventObject& old_obj,
                                                const framework::EventObject& new_obj) const {
  const ClaimPtr original = AsClaim(old_obj);
  const ClaimPtr modified = AsClaim(new_obj);
  if (modified == nullptr) {
    // A deleted claim frees devices only if it had some.
    return original != nullptr && !original->allocation ? QueueingHint::kSkip
                                                        : QueueingHint::kQueue;
  }
  auto claims = PodClaims(pod, tracker_);
  // The pod still lacks a claim: this change did not bring it.
  if (!claims.ok()) return QueueingHint::kSkip;
  // A deallocated claim frees devices that any pod may need.
  if (original != nullptr && original->allocation && !modified->allocation) {
    return QueueingHint::kQueue;
  }
  bool uses_claim = false;
  for (const auto& c : *claims) uses_claim |= c->metadata.uid == modified->metadata.uid;
  if (!uses_claim) return QueueingHint::kSkip;
  if (original == nullptr) return QueueingHint::kQueue;
  return SameStatus(*original, *modified) ? QueueingHint::kSkip : QueueingHint::kQueue;
}

std::vector<framework::ClusterEventWithHint> DynamicResources::EventsToRegister() const {
  auto after_claim = [this](const api::Pod& pod, const framework::EventObject& o,
                            const framework::EventObject& n) {
    return AfterClaimChange(pod, o, n);
  };
  // Once the pod's status names every claim and they all exist, it may be scheduled.
  auto after_own_update = [this](const api::Pod&, const framework::EventObject&,
                                 const framework::EventObject& n) {
    const api::PodPtr* pod = std::get_if<api::PodPtr>(&n);
    if (pod == nullptr || *pod == nullptr) return QueueingHint::kQueue;
    return PodClaims(**pod, tracker_).ok() ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  // A claim event concerns the pods that name the claim, unless it frees devices (a
  // deallocation, or the deletion of an allocated or unknown claim): AfterClaimChange skips
  // every other pod.
  framework::EventNarrowing by_claim{
      .pod_keys = [](const api::Pod& pod, std::vector<std::string>& out) { ClaimKeys(pod, out); },
      .event_keys =
          [](const framework::EventObject& o, const framework::EventObject& n,
             std::vector<std::string>& out) {
            const ClaimPtr original = AsClaim(o);
            const ClaimPtr modified = AsClaim(n);
            if (modified == nullptr) return original != nullptr && !original->allocation;
            if (original != nullptr && original->allocation && !modified->allocation) return false;
            out.push_back(modified->metadata.namespace_ + "/" + modified->metadata.name);
            return true;
          }};
  // Devices, classes and nodes cannot help a pod still missing a claim: PreEnqueue would hold it
  // again, and the claim's own event brings it back. Upstream queues it each time.
  auto has_claims = [this](const api::Pod& pod, const framework::EventObject&,
                           const framework::EventObject&) {
    return HasAllClaims(pod, tracker_) ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  return {
      {{EventResource::kNode,
        framework::kAdd | framework::kUpdateNodeLabel | framework::kUpdateNodeAllocatable},
       has_claims},
      {{EventResource::kResourceClaim, framework::kAdd | framework::kUpdate | framework::kDelete},
       after_claim,
       std::move(by_claim)},
      {{EventResource::kTargetPod, framework::kUpdatePodGeneratedResourceClaim}, after_own_update},
      {{EventResource::kDeviceClass, framework::kAdd | framework::kUpdate}, has_claims},
      {{EventResource::kResourceSlice, framework::kAdd | framework::kUpdate}, has_claims},
  };
}

}  // namespace stowage::plugins::dynamic_resources
