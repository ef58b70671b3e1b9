#include "pkg/plugins/dynamic_resources/claim_tracker.h"

#include <cstdlib>
#include <utility>

namespace stowage::plugins::dynamic_resources {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  return std::string(ns) + "/" + std::string(name);
}

// Whether the informer's copy is at least as new as the written one: resource versions are
// compared as numbers, as upstream's assume cache does (etcd's are).
bool CaughtUp(const api::ResourceClaim& informer, const api::ResourceClaim& written) {
  const unsigned long long a =
      std::strtoull(informer.metadata.resource_version.c_str(), nullptr, 10);
  const unsigned long long b =
      std::strtoull(written.metadata.resource_version.c_str(), nullptr, 10);
  return a >= b;
}

void AddDevices(const api::ResourceClaim& claim, dra::AllocatedState& state) {
  if (!claim.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.admin_access.value_or(false)) continue;  // admin access takes nothing
    dra::DeviceId id{r.driver, r.pool, r.device};
    if (r.share_id) {
      dra::CapacityAmounts& consumed = state.aggregated_capacity[id];
      for (const auto& [name, q] : r.consumed_capacity.entries()) consumed[name] += q.Nanos();
      state.shared_devices.insert(std::move(id));
      continue;
    }
    state.devices.insert(std::move(id));
  }
}

}  // namespace

dra::ResourceClaimPtr ClaimTracker::Assumed(const std::string& key,
                                            const dra::ResourceClaimPtr& informer) const {
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return nullptr;
  if (informer != nullptr && CaughtUp(*informer, *it->second)) {
    assumed_.erase(it);
    return nullptr;
  }
  return it->second;
}

dra::ResourceClaimPtr ClaimTracker::Get(std::string_view ns, std::string_view name) const {
  dra::ResourceClaimPtr informer = informer_.Get(ns, name);
  MutexLock l(mu_);
  if (dra::ResourceClaimPtr assumed = Assumed(Key(ns, name), informer)) return assumed;
  return informer;
}

dra::AllocatedState ClaimTracker::GatherAllocatedState() const {
  std::vector<dra::ResourceClaimPtr> claims = informer_.List();
  dra::AllocatedState state;
  MutexLock l(mu_);
  for (const dra::ResourceClaimPtr& c : claims) {
    dra::ResourceClaimPtr assumed = Assumed(Key(c->metadata.namespace_, c->metadata.name), c);
    // A pending allocation replaces the claim's own (none yet), so it is counted below.
    if (pending_.count(c->metadata.uid)) continue;
    AddDevices(assumed ? *assumed : *c, state);
  }
  for (const auto& [uid, claim] : pending_) AddDevices(*claim, state);
  return state;
}

void ClaimTracker::SignalPendingAllocation(dra::ResourceClaimPtr claim) {
  MutexLock l(mu_);
  pending_[claim->metadata.uid] = std::move(claim);
}

dra::ResourceClaimPtr ClaimTracker::GetPendingAllocation(std::string_view uid) const {
  MutexLock l(mu_);
  auto it = pending_.find(uid);
  return it == pending_.end() ? nullptr : it->second;
}

bool ClaimTracker::RemovePendingAllocation(std::string_view uid) {
  MutexLock l(mu_);
  auto it = pending_.find(uid);
  if (it == pending_.end()) return false;
  pending_.erase(it);
  return true;
}

void ClaimTracker::AssumeAfterWrite(dra::ResourceClaimPtr written) {
  const std::string key = Key(written->metadata.namespace_, written->metadata.name);
  MutexLock l(mu_);
  assumed_[key] = std::move(written);
}

void ClaimTracker::Restore(std::string_view ns, std::string_view name) {
  MutexLock l(mu_);
  assumed_.erase(Key(ns, name));
}

}  // namespace stowage::plugins::dynamic_resources
