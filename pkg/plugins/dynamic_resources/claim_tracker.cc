#include "pkg/plugins/dynamic_resources/claim_tracker.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "pkg/plugins/dynamic_resources/claims.h"

namespace stowage::plugins::dynamic_resources {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  return std::string(ns) + "/" + std::string(name);
}

// Whether the informer's copy is at least as new as the written one.
bool CaughtUp(const api::ResourceClaim& informer, const api::ResourceClaim& written) {
  return ResourceVersionOf(informer) >= ResourceVersionOf(written);
}

bool Whole(const api::DeviceRequestAllocationResult& r) {
  return !r.admin_access.value_or(false) && !r.share_id;  // admin access takes nothing
}

int CountOf(const dra::DeviceCounts& counts, const dra::DeviceId& id) {
  auto it = counts.find(id);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

// Adds delta to each whole device the claim holds.
void ClaimTracker::Count(const api::ResourceClaim& claim, dra::DeviceCounts& counts, int delta) {
  if (!claim.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
    if (!Whole(r)) continue;
    auto it = counts.try_emplace(dra::DeviceId{r.driver, r.pool, r.device}, 0).first;
    Changed(it->first);
    if ((it->second += delta) == 0) counts.erase(it);
  }
}

dra::ResourceClaimPtr ClaimTracker::Assumed(const std::string& key,
                                            const dra::ResourceClaimPtr& informer) const {
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return nullptr;
  if (informer != nullptr && CaughtUp(*informer, *it->second)) {
    Touch(it->second->metadata.uid, key);
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

ClaimTracker::ClaimTracker(const framework::Lister<api::ResourceClaim>& informer)
    : informer_(informer),
      feed_(dynamic_cast<const framework::ChangeFeed<api::ResourceClaim>*>(&informer)) {
  // The first question starts the informer keeping its writes, before the first list.
  std::vector<framework::ChangeFeed<api::ResourceClaim>::Change> none;
  uint64_t now;
  if (feed_ != nullptr) (void)feed_->ChangesSince(0, none, now);
}

void ClaimTracker::CopyBaseIfShared() {
  // An Allocator of an earlier cycle may still read the counts: they are then copied first.
  if (base_ == nullptr) {
    base_ = std::make_shared<dra::DeviceCounts>();
  } else if (base_.use_count() > 1) {
    base_ = std::make_shared<dra::DeviceCounts>(*base_);
  }
}

void ClaimTracker::CopyOverlayIfShared() {
  // An Allocator of an earlier cycle may still read the overlay: it is then copied first.
  if (overlay_ == nullptr) {
    overlay_ = std::make_shared<dra::HeldOverlay>();
  } else if (overlay_.use_count() > 1) {
    overlay_ = std::make_shared<dra::HeldOverlay>(*overlay_);
  }
}

void ClaimTracker::IndexExtended(const api::ResourceClaim& claim, bool add) {
  if (!IsExtendedResourceClaim(claim)) return;
  for (const api::OwnerReference& o : claim.metadata.owner_references) {
    if (!o.controller) continue;
    auto& claims = extended_by_owner_[o.uid];
    if (add) {
      claims.push_back(&claim);
      continue;
    }
    std::erase(claims, &claim);
    if (claims.empty()) extended_by_owner_.erase(o.uid);
  }
}

dra::ResourceClaimPtr ClaimTracker::FindExtendedClaim(const api::Pod& pod) {
  {
    MutexLock l(mu_);
    if (base_ != nullptr && feed_ != nullptr) {
      CopyOverlayIfShared();  // Follow changes the overlay when a claim goes
      // Up to the informer first: a claim the last attempt created must not be missed.
      if (base_version_ == informer_.Version() || Follow()) {
        auto it = extended_by_owner_.find(pod.metadata.uid);
        if (it == extended_by_owner_.end()) return nullptr;
        for (const api::ResourceClaim* c : it->second) {
          if (c->metadata.namespace_ == pod.metadata.namespace_ && IsPodsExtendedClaim(*c, pod)) {
            return known_.at(c).claim;
          }
        }
        return nullptr;
      }
    }
  }
  for (const dra::ResourceClaimPtr& c : informer_.List(pod.metadata.namespace_)) {
    if (IsPodsExtendedClaim(*c, pod)) return c;
  }
  return nullptr;
}

void ClaimTracker::Learn(const dra::ResourceClaimPtr& c) {
  auto [it, added] = known_.try_emplace(c.get());
  it->second.mark = mark_;
  if (!added) return;
  it->second.claim = c;
  IndexExtended(*c, true);
  by_uid_.insert_or_assign(c->metadata.uid, c.get());
  by_key_.insert_or_assign(Key(c->metadata.namespace_, c->metadata.name), c.get());
  Count(*c, *base_, +1);
  Touch(c->metadata.uid, Key(c->metadata.namespace_, c->metadata.name));
}

ClaimTracker::KnownMap::iterator ClaimTracker::Forget(KnownMap::iterator it) {
  const api::ResourceClaim& gone = *it->second.claim;
  Count(gone, *base_, -1);
  IndexExtended(gone, false);
  // What it added goes now: a later object may reuse its address.
  if (auto a = informer_applied_.find(&gone); a != informer_applied_.end()) {
    Apply(a->second, -1);
    informer_applied_.erase(a);
  }
  Touch(gone.metadata.uid, Key(gone.metadata.namespace_, gone.metadata.name));
  // A newer copy of the same claim may already own the entries.
  if (auto u = by_uid_.find(gone.metadata.uid); u != by_uid_.end() && u->second == &gone) {
    by_uid_.erase(u);
  }
  const std::string key = Key(gone.metadata.namespace_, gone.metadata.name);
  if (auto k = by_key_.find(key); k != by_key_.end() && k->second == &gone) by_key_.erase(k);
  return known_.erase(it);
}

void ClaimTracker::Refresh(const std::vector<dra::ResourceClaimPtr>& claims,
                           std::optional<uint64_t> version) {
  CopyBaseIfShared();
  ++mark_;
  for (const dra::ResourceClaimPtr& c : claims) Learn(c);
  for (auto it = known_.begin(); it != known_.end();) {
    it = it->second.mark == mark_ ? std::next(it) : Forget(it);
  }
  base_version_ = version;
}

bool ClaimTracker::Follow() {
  changes_.clear();
  uint64_t now;
  if (feed_ == nullptr || base_ == nullptr || !base_version_ ||
      !feed_->ChangesSince(*base_version_, changes_, now)) {
    return false;
  }
  if (changes_.empty()) return true;
  CopyBaseIfShared();
  // A list taken after its version was read may already hold some of these writes: an object
  // is forgotten only if known and learnt only if not, so each counts once either way.
  for (const auto& change : changes_) {
    if (change.before != nullptr) {
      if (auto it = known_.find(change.before.get()); it != known_.end()) Forget(it);
    }
    if (change.after != nullptr) Learn(change.after);
  }
  changes_.clear();
  base_version_ = now;
  return true;
}

dra::AllocatedState ClaimTracker::GatherAllocatedState(
    std::shared_ptr<const dra::Inventory> inventory) {
  // The version is read before the list, so a refresh kept under it is never newer than it says.
  const std::optional<uint64_t> version = informer_.Version();
  // With a change feed, only the first call (or one that fell too far behind) lists every claim.
  bool list;
  {
    MutexLock l(mu_);
    list = base_ == nullptr || !version || (feed_ == nullptr && base_version_ != version);
  }
  std::vector<dra::ResourceClaimPtr> claims;
  if (list) claims = informer_.List();

  MutexLock l(mu_);
  CopyOverlayIfShared();
  if (list) {
    Refresh(claims, version);
  } else if (base_version_ != version && !Follow()) {
    // The writes are no longer all kept: list again, here under the lock (rare).
    const std::optional<uint64_t> now = informer_.Version();
    Refresh(informer_.List(), now);
  }
  ApplyMarked();
  dra::AllocatedState state;
  state.base = base_;
  state.overlay = overlay_;
  if (inventory != nullptr) {
    UpdateDense(inventory);
    state.dense = dense_;
  }
  return state;
}

void ClaimTracker::Changed(const dra::DeviceId& id) {
  if (dense_inventory_ != nullptr) dense_dirty_.push_back(id);
}

void ClaimTracker::UpdateDense(const std::shared_ptr<const dra::Inventory>& inventory) {
  if (dense_inventory_ != inventory) {
    auto dense = std::make_shared<dra::DenseHolds>();
    dense->inventory = inventory.get();
    dense->net.assign(inventory->distinct_devices(), 0);
    dense->in_flight.assign(inventory->distinct_devices(), 0);
    auto add = [&](const dra::DeviceCounts& counts, std::vector<int32_t>& to, int sign) {
      for (const auto& [id, n] : counts) {
        if (const int32_t i = inventory->DeviceIndex(id); i >= 0) to[i] += sign * n;
      }
    };
    if (base_ != nullptr) add(*base_, dense->net, +1);
    add(overlay_->released, dense->net, -1);
    add(overlay_->devices, dense->in_flight, +1);
    dense_ = std::move(dense);
    dense_inventory_ = inventory;
    dense_dirty_.clear();
    return;
  }
  if (dense_dirty_.empty()) return;
  // An Allocator of an earlier cycle may still read them: they are then copied first.
  if (dense_.use_count() > 1) dense_ = std::make_shared<dra::DenseHolds>(*dense_);
  for (const dra::DeviceId& id : dense_dirty_) {
    const int32_t i = inventory->DeviceIndex(id);
    if (i < 0) continue;
    dense_->net[i] = (base_ == nullptr ? 0 : CountOf(*base_, id)) - CountOf(overlay_->released, id);
    dense_->in_flight[i] = CountOf(overlay_->devices, id);
  }
  dense_dirty_.clear();
}

void ClaimTracker::Touch(std::string_view uid, std::string_view key) const {
  marked_uids_.emplace(uid);
  marked_keys_.emplace(key);
}

bool ClaimTracker::AssumedCounts(const std::string& key) {
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return false;
  auto k = by_key_.find(key);
  if (k == by_key_.end()) return false;  // counted only against the informer's copy
  const api::ResourceClaim& informer = *k->second;
  if (CaughtUp(informer, *it->second)) {
    assumed_.erase(it);
    return false;
  }
  // A pending allocation of the same claim counts instead of both.
  return !pending_.count(informer.metadata.uid);
}

bool ClaimTracker::Replaced(const api::ResourceClaim& informer) {
  if (pending_.count(informer.metadata.uid)) return true;
  const std::string key = Key(informer.metadata.namespace_, informer.metadata.name);
  auto k = by_key_.find(key);
  return k != by_key_.end() && k->second == &informer && AssumedCounts(key);
}

void ClaimTracker::ApplyMarked() {
  if (marked_uids_.empty() && marked_keys_.empty()) return;
  std::set<std::string, std::less<>> uids = std::move(marked_uids_);
  std::set<std::string, std::less<>> keys = std::move(marked_keys_);
  marked_uids_.clear();
  marked_keys_.clear();
  // A claim's pending, assumed and informer entries depend on one another: take them all (each
  // mark names both the uid and the key of the claim that changed).
  std::set<const api::ResourceClaim*> objects;
  for (const std::string& key : keys) {
    if (auto k = by_key_.find(key); k != by_key_.end()) {
      uids.insert(k->second->metadata.uid);
      objects.insert(k->second);
    }
  }
  for (const std::string& uid : uids) {
    if (auto u = by_uid_.find(uid); u != by_uid_.end()) objects.insert(u->second);
  }

  auto of = [](const api::ResourceClaim& claim, bool whole, bool shares) {
    Contribution c;
    if (!claim.allocation) return c;
    for (const api::DeviceRequestAllocationResult& r : claim.allocation->results) {
      if (r.admin_access.value_or(false)) continue;  // admin access takes nothing
      dra::DeviceId id{r.driver, r.pool, r.device};
      if (!r.share_id) {
        if (whole) c.whole.push_back(std::move(id));
        continue;
      }
      if (!shares) continue;
      dra::CapacityAmounts consumed;
      for (const auto& [name, q] : r.consumed_capacity.entries()) consumed[name] += q.Nanos();
      c.shares.emplace_back(std::move(id), std::move(consumed));
    }
    return c;
  };
  for (const std::string& uid : uids) {
    auto p = pending_.find(uid);
    Contribution desired = p == pending_.end() ? Contribution{} : of(*p->second, true, true);
    Reapply(pending_applied_[uid], std::move(desired));
    if (p == pending_.end()) pending_applied_.erase(uid);
  }
  for (const std::string& key : keys) {
    const bool counts = AssumedCounts(key);
    Contribution desired = counts ? of(*assumed_.find(key)->second, true, true) : Contribution{};
    Reapply(assumed_applied_[key], std::move(desired));
    if (!counts) assumed_applied_.erase(key);
  }
  for (const api::ResourceClaim* informer : objects) {
    Contribution desired;
    if (Replaced(*informer)) {
      desired.released = std::move(of(*informer, true, false).whole);
    } else {
      desired = of(*informer, false, true);
    }
    const bool nothing = desired.released.empty() && desired.shares.empty();
    Reapply(informer_applied_[informer], std::move(desired));
    if (nothing) informer_applied_.erase(informer);
  }
}

void ClaimTracker::Reapply(Contribution& applied, Contribution desired) {
  Apply(applied, -1);
  Apply(desired, +1);
  applied = std::move(desired);
}

void ClaimTracker::Apply(const Contribution& c, int sign) {
  dra::HeldOverlay& o = *overlay_;
  auto add = [sign](dra::DeviceCounts& counts, const dra::DeviceId& id) {
    auto it = counts.try_emplace(id, 0).first;
    if ((it->second += sign) == 0) counts.erase(it);
  };
  for (const dra::DeviceId& id : c.whole) {
    add(o.devices, id);
    Changed(id);
  }
  for (const dra::DeviceId& id : c.released) {
    add(o.released, id);
    Changed(id);
  }
  for (const auto& [id, consumed] : c.shares) {
    add(o.shared, id);
    if (!o.shared.count(id)) {
      o.capacity.erase(id);  // the last share went
      continue;
    }
    dra::CapacityAmounts& total = o.capacity[id];
    for (const auto& [name, amount] : consumed) {
      if ((total[name] += sign * amount) == 0) total.erase(name);
    }
  }
}

void ClaimTracker::SignalPendingAllocation(dra::ResourceClaimPtr claim) {
  MutexLock l(mu_);
  Touch(claim->metadata.uid, Key(claim->metadata.namespace_, claim->metadata.name));
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
  Touch(uid, Key(it->second->metadata.namespace_, it->second->metadata.name));
  pending_.erase(it);
  return true;
}

void ClaimTracker::AssumeAfterWrite(dra::ResourceClaimPtr written) {
  const std::string key = Key(written->metadata.namespace_, written->metadata.name);
  MutexLock l(mu_);
  Touch(written->metadata.uid, key);
  assumed_[key] = std::move(written);
}

void ClaimTracker::Restore(std::string_view ns, std::string_view name) {
  const std::string key = Key(ns, name);
  MutexLock l(mu_);
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return;
  Touch(it->second->metadata.uid, key);
  assumed_.erase(it);
}

}  // namespace stowage::plugins::dynamic_resources
