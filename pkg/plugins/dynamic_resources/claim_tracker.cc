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

bool Whole(const api::DeviceRequestAllocationResult& r) {
  return !r.admin_access.value_or(false) && !r.share_id;  // admin access takes nothing
}

// Adds the claim's shares of devices, and its whole devices unless shares_only.
void AddDevices(const api::ResourceClaim& claim, dra::AllocatedState& state,
                bool shares_only = false) {
  if (!claim.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (r.admin_access.value_or(false)) continue;
    if (!r.share_id && shares_only) continue;
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

// Adds delta to each whole device the claim holds.
void Count(const api::ResourceClaim& claim, dra::DeviceCounts& counts, int delta) {
  if (!claim.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (!Whole(r)) continue;
    auto it = counts.try_emplace(dra::DeviceId{r.driver, r.pool, r.device}, 0).first;
    if ((it->second += delta) == 0) counts.erase(it);
  }
}

bool HasShares(const api::ResourceClaim& claim) {
  if (!claim.allocation) return false;
  for (const auto& r : claim.allocation->results) {
    if (r.share_id && !r.admin_access.value_or(false)) return true;
  }
  return false;
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

void ClaimTracker::Refresh(const std::vector<dra::ResourceClaimPtr>& claims,
                           std::optional<uint64_t> version) {
  // An Allocator of an earlier cycle may still read the counts: they are then copied first.
  if (base_ == nullptr) {
    base_ = std::make_shared<dra::DeviceCounts>();
  } else if (base_.use_count() > 1) {
    base_ = std::make_shared<dra::DeviceCounts>(*base_);
  }
  ++mark_;
  for (const dra::ResourceClaimPtr& c : claims) {
    auto [it, added] = known_.try_emplace(c.get());
    it->second.mark = mark_;
    if (!added) continue;
    it->second.claim = c;
    by_uid_.insert_or_assign(c->metadata.uid, c.get());
    by_key_.insert_or_assign(Key(c->metadata.namespace_, c->metadata.name), c.get());
    Count(*c, *base_, +1);
    if (HasShares(*c)) with_shares_.insert(c.get());
  }
  for (auto it = known_.begin(); it != known_.end();) {
    if (it->second.mark == mark_) {
      ++it;
      continue;
    }
    const api::ResourceClaim& gone = *it->second.claim;
    Count(gone, *base_, -1);
    with_shares_.erase(&gone);
    // A newer copy of the same claim may already own the entries.
    if (auto u = by_uid_.find(gone.metadata.uid); u != by_uid_.end() && u->second == &gone) {
      by_uid_.erase(u);
    }
    const std::string key = Key(gone.metadata.namespace_, gone.metadata.name);
    if (auto k = by_key_.find(key); k != by_key_.end() && k->second == &gone) by_key_.erase(k);
    it = known_.erase(it);
  }
  base_version_ = version;
}

dra::AllocatedState ClaimTracker::GatherAllocatedState() {
  // The version is read before the list, so a refresh kept under it is never newer than it says.
  const std::optional<uint64_t> version = informer_.Version();
  bool stale;
  {
    MutexLock l(mu_);
    stale = base_ == nullptr || !version || base_version_ != version;
  }
  std::vector<dra::ResourceClaimPtr> claims;
  if (stale) claims = informer_.List();

  dra::AllocatedState state;
  MutexLock l(mu_);
  if (stale) Refresh(claims, version);
  state.base = base_;
  std::set<const api::ResourceClaim*> replaced;
  auto replace = [&](const api::ResourceClaim& informer) {
    Count(informer, state.released, +1);
    replaced.insert(&informer);
  };
  // A written claim the informer has not caught up with counts instead of the informer's copy.
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    auto k = by_key_.find(it->first);
    if (k == by_key_.end()) {
      ++it;
      continue;
    }
    const api::ResourceClaim& informer = *k->second;
    if (CaughtUp(informer, *it->second)) {
      it = assumed_.erase(it);
      continue;
    }
    // A pending allocation of the same claim counts instead of both (below).
    if (!pending_.count(informer.metadata.uid)) {
      replace(informer);
      AddDevices(*it->second, state);
    }
    ++it;
  }
  for (const auto& [uid, claim] : pending_) {
    if (auto u = by_uid_.find(uid); u != by_uid_.end()) replace(*u->second);
    AddDevices(*claim, state);
  }
  for (const api::ResourceClaim* c : with_shares_) {
    if (!replaced.count(c)) AddDevices(*c, state, /*shares_only=*/true);
  }
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
