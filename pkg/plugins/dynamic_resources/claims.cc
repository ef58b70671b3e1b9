#include "pkg/plugins/dynamic_resources/claims.h"

#include <cstdlib>
#include <optional>

#include "pkg/dra/extended_resources.h"

namespace stowage::plugins::dynamic_resources {
namespace {

bool IsControlledBy(const api::ResourceClaim& claim, const api::Pod& pod) {
  for (const api::OwnerReference& o : claim.metadata.owner_references) {
    if (o.controller) return o.uid == pod.metadata.uid;
  }
  return false;
}

Status NotForPod(const api::ResourceClaim& claim, const api::Pod& pod) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) {
    return FailedPreconditionError("ResourceClaim " + KObj(claim.metadata) +
                                   " is not in the same namespace as Pod " + KObj(pod.metadata));
  }
  if (!IsControlledBy(claim, pod)) {
    return FailedPreconditionError("ResourceClaim " + KObj(claim.metadata) +
                                   " was not created for Pod " + KObj(pod.metadata) +
                                   " (Pod is not owner)");
  }
  return OkStatus();
}

}  // namespace

std::string KObj(const api::ObjectMeta& meta) {
  return meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
}

namespace {

// PodClaims, with upstream's messages when explain is set and empty ones otherwise: the queueing
// hints ask this of many waiting pods per event and need only the answer.
StatusOr<std::vector<dra::ResourceClaimPtr>> ResolveClaims(const api::Pod& pod,
                                                           const ClaimTracker& tracker,
                                                           bool explain) {
  std::vector<dra::ResourceClaimPtr> out;
  auto pod_name = [&pod] { return "pod \"" + KObj(pod.metadata) + "\""; };
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) {
    const std::optional<std::string>* name = nullptr;
    bool must_check_owner = false;
    if (pc.resource_claim_name) {
      name = &pc.resource_claim_name;
    } else if (pc.resource_claim_template_name) {
      for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
        if (s.name != pc.name) continue;
        name = &s.resource_claim_name;
        must_check_owner = true;
        break;
      }
      if (name == nullptr) {
        return NotFoundError(explain ? pod_name() + ": ResourceClaim not created yet" : "");
      }
    } else {
      return InvalidArgumentError(explain ? pod_name() + ", spec.resourceClaim \"" + pc.name +
                                                "\": none of the supported fields are set"
                                          : "");
    }
    if (!*name) continue;  // the controller decided that no claim is needed
    dra::ResourceClaimPtr claim = tracker.Get(pod.metadata.namespace_, **name);
    if (claim == nullptr) {
      return NotFoundError(explain ? "could not find ResourceClaim \"" + pod.metadata.namespace_ +
                                         "/" + **name + "\""
                                   : "");
    }
    if (claim->metadata.deletion_timestamp) {
      return FailedPreconditionError(
          explain ? "resourceclaim \"" + claim->metadata.name + "\" is being deleted" : "");
    }
    if (must_check_owner) {
      if (!explain) {
        if (claim->metadata.namespace_ != pod.metadata.namespace_ || !IsControlledBy(*claim, pod)) {
          return FailedPreconditionError("");
        }
      } else if (Status s = NotForPod(*claim, pod); !s.ok()) {
        return s;
      }
    }
    out.push_back(std::move(claim));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<dra::ResourceClaimPtr>> PodClaims(const api::Pod& pod,
                                                       const ClaimTracker& tracker) {
  return ResolveClaims(pod, tracker, /*explain=*/true);
}

bool HasAllClaims(const api::Pod& pod, const ClaimTracker& tracker) {
  return ResolveClaims(pod, tracker, /*explain=*/false).ok();
}

void ClaimKeys(const api::Pod& pod, std::vector<std::string>& out) {
  auto add = [&](const std::optional<std::string>& name) {
    if (name) out.push_back(pod.metadata.namespace_ + "/" + *name);
  };
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) add(pc.resource_claim_name);
  for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
    add(s.resource_claim_name);
  }
}

bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  for (const api::ResourceClaimConsumerReference& r : claim.reserved_for) {
    if (r.uid == pod.metadata.uid) return true;
  }
  return false;
}

api::ResourceClaimConsumerReference ConsumerOf(const api::Pod& pod) {
  return {.api_group = "", .resource = "pods", .name = pod.metadata.name, .uid = pod.metadata.uid};
}

unsigned long long ResourceVersionOf(const api::ResourceClaim& claim) {
  return std::strtoull(claim.metadata.resource_version.c_str(), nullptr, 10);
}

bool IsExtendedResourceClaim(const api::ResourceClaim& claim) {
  const std::string* mark = claim.metadata.annotations.Get(dra::kExtendedResourceClaimAnnotation);
  return mark != nullptr && *mark == "true";
}

bool IsPodsExtendedClaim(const api::ResourceClaim& claim, const api::Pod& pod) {
  if (!IsExtendedResourceClaim(claim)) return false;
  for (const api::OwnerReference& o : claim.metadata.owner_references) {
    if (o.name == pod.metadata.name && o.controller && o.uid == pod.metadata.uid) return true;
  }
  return false;
}

}  // namespace stowage::plugins::dynamic_resources
