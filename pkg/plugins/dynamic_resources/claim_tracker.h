// ClaimTracker: the ResourceClaims as DynamicResources must see them (upstream's claimTracker):
// the informer's claims, overlaid by
//   * pending allocations: an allocation decided in Reserve and not yet written by PreBind
//     (upstream's inFlightAllocations), so that a concurrent scheduling cycle counts its devices
//     as taken and does not allocate the claim a second time;
//   * assumed claims: what PreBind wrote, until the informer has caught up with it (upstream's
//     assume cache), so the next pod does not see the devices free in the meantime.
//
// Upstream gathers every claim's devices for each pod. Here the whole devices of the informer's
// claims are kept counted between calls and updated from the claims that changed (found by
// comparing the informer's objects with those last seen), and so is the overlay: each change
// marks its claim, and the next GatherAllocatedState recomputes only what the marked claims add,
// so a cycle's cost does not grow with the thousands of claims a backlog keeps in flight.
//
// Thread-safety: every method may be called from any thread (the scheduling cycle and the
// binding cycles); one mutex guards all state. The counts handed out are shared, never changed
// while an Allocator still holds them (they are copied first). Invariants: an assumed claim is
// dropped as soon as the informer holds the same or a newer resourceVersion of it; the overlay
// is the sum of what applied_ records for each claim, each computed from the claim as it was
// when last marked and recomputed.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/dra/allocator.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"

namespace stowage::plugins::dynamic_resources {

class ClaimTracker {
 public:
  // When informer is also a framework::ChangeFeed, the tracker follows its writes instead of
  // listing every claim again after each one.
  explicit ClaimTracker(const framework::Lister<api::ResourceClaim>& informer);

  // The claim, as last written by the scheduler if the informer has not seen that yet; nullptr
  // when unknown.
  dra::ResourceClaimPtr Get(std::string_view ns, std::string_view name) const;
  // The devices held by every known claim and every pending allocation (upstream's
  // GatherAllocatedState): admin-access results hold nothing; shares of a device count as
  // shared with their consumed capacity. Given the Inventory the caller's Allocator searches,
  // the whole holds also come by its device indices (AllocatedState::dense), kept between
  // calls while the Inventory stays the same.
  dra::AllocatedState GatherAllocatedState(
      std::shared_ptr<const dra::Inventory> inventory = nullptr);

  // Records claim (carrying its new allocation) as allocated but not yet written.
  void SignalPendingAllocation(dra::ResourceClaimPtr claim);
  dra::ResourceClaimPtr GetPendingAllocation(std::string_view uid) const;
  // Drops the pending allocation of the claim with uid; false when there was none.
  bool RemovePendingAllocation(std::string_view uid);

  // The informer's claim an earlier attempt created for pod's extended resources, or null
  // (upstream's findExtendedResourceClaim). With a change feed it comes from an index by owner
  // the tracker keeps; without, from a scan of the namespace's claims.
  dra::ResourceClaimPtr FindExtendedClaim(const api::Pod& pod);

  // Remembers the claim the apiserver answered to a write, until the informer catches up.
  void AssumeAfterWrite(dra::ResourceClaimPtr written);
  // Forgets what AssumeAfterWrite kept for the claim (the informer's copy counts again).
  void Restore(std::string_view ns, std::string_view name);

 private:
  // What one claim adds to the overlay: the devices it holds whole, its shares with what they
  // consume, and the whole holds of the informer's copy it replaces.
  struct Contribution {
    std::vector<dra::DeviceId> whole, released;
    std::vector<std::pair<dra::DeviceId, dra::CapacityAmounts>> shares;
  };

  // The assumed claim under key if still newer than the informer's copy (drops it otherwise).
  dra::ResourceClaimPtr Assumed(const std::string& key, const dra::ResourceClaimPtr& informer) const
      REQUIRES(mu_);

  struct Known {
    dra::ResourceClaimPtr claim;
    uint64_t mark = 0;  // the Refresh that last listed it
  };
  using KnownMap = std::unordered_map<const api::ResourceClaim*, Known>;

  // Brings base_ up to the informer's claims (listed after reading version).
  void Refresh(const std::vector<dra::ResourceClaimPtr>& claims, std::optional<uint64_t> version)
      REQUIRES(mu_);
  // Brings base_ up to the informer by the writes since base_version_; false when the feed no
  // longer keeps them all (or there is none), and nothing changed.
  bool Follow() REQUIRES(mu_);
  // Counts a claim of the informer not known yet; forgets a known one (returns the next entry).
  void Learn(const dra::ResourceClaimPtr& claim) REQUIRES(mu_);
  KnownMap::iterator Forget(KnownMap::iterator it) REQUIRES(mu_);
  void CopyBaseIfShared() REQUIRES(mu_);
  void CopyOverlayIfShared() REQUIRES(mu_);
  // Adds (or removes) the claim to extended_by_owner_ when it is a claim for extended resources.
  void IndexExtended(const api::ResourceClaim& claim, bool add) REQUIRES(mu_);

  // Adds delta to counts for each device the claim holds whole.
  void Count(const api::ResourceClaim& claim, dra::DeviceCounts& counts, int delta) REQUIRES(mu_);
  // Marks the claim with uid and key (namespace/name) for the next recompute.
  void Touch(std::string_view uid, std::string_view key) const REQUIRES(mu_);
  // Recomputes what the marked claims add and updates overlay_ by the difference.
  void ApplyMarked() REQUIRES(mu_);
  // Whether the assumed claim under key counts instead of the informer's copy.
  bool AssumedCounts(const std::string& key) REQUIRES(mu_);
  // Whether a pending or assumed claim replaces the informer's claim.
  bool Replaced(const api::ResourceClaim& informer) REQUIRES(mu_);
  // Moves overlay_ from what applied holds to desired, and stores desired there.
  void Reapply(Contribution& applied, Contribution desired) REQUIRES(mu_);
  void Apply(const Contribution& c, int sign) REQUIRES(mu_);
  // Brings dense_ to base_ and overlay_ by inventory's indices: again from the counts when the
  // inventory changed, else for the devices changed since (dense_dirty_).
  void UpdateDense(const std::shared_ptr<const dra::Inventory>& inventory) REQUIRES(mu_);
  // Records that the whole holds of id changed, when dense_ follows them.
  void Changed(const dra::DeviceId& id) REQUIRES(mu_);

  const framework::Lister<api::ResourceClaim>& informer_;
  const framework::ChangeFeed<api::ResourceClaim>* const feed_;  // null: list every time
  mutable Mutex mu_;
  // The informer's claims as of base_version_, and what they hold whole.
  KnownMap known_ GUARDED_BY(mu_);
  // The known claims for extended resources, by the UIDs of their controllers.
  std::unordered_map<std::string, std::vector<const api::ResourceClaim*>> extended_by_owner_
      GUARDED_BY(mu_);
  std::vector<framework::ChangeFeed<api::ResourceClaim>::Change> changes_ GUARDED_BY(mu_);
  std::map<std::string, const api::ResourceClaim*, std::less<>> by_uid_ GUARDED_BY(mu_);
  std::map<std::string, const api::ResourceClaim*, std::less<>> by_key_ GUARDED_BY(mu_);
  std::shared_ptr<dra::DeviceCounts> base_ GUARDED_BY(mu_);
  std::optional<uint64_t> base_version_ GUARDED_BY(mu_);
  uint64_t mark_ GUARDED_BY(mu_) = 0;
  std::map<std::string, dra::ResourceClaimPtr, std::less<>> pending_ GUARDED_BY(mu_);  // by uid
  mutable std::map<std::string, dra::ResourceClaimPtr, std::less<>> assumed_
      GUARDED_BY(mu_);  // by namespace/name
  // The overlay and what each claim added to it: pending by uid, assumed by key, the informer's
  // by object (its replaced holds or its shares).
  std::shared_ptr<dra::HeldOverlay> overlay_ GUARDED_BY(mu_);
  std::map<std::string, Contribution, std::less<>> pending_applied_ GUARDED_BY(mu_);
  std::map<std::string, Contribution, std::less<>> assumed_applied_ GUARDED_BY(mu_);
  std::unordered_map<const api::ResourceClaim*, Contribution> informer_applied_ GUARDED_BY(mu_);
  // Claims changed since the last recompute, by uid and by key.
  mutable std::set<std::string, std::less<>> marked_uids_ GUARDED_BY(mu_);
  mutable std::set<std::string, std::less<>> marked_keys_ GUARDED_BY(mu_);
  // The whole holds by device index of dense_inventory_ (held so its address is not reused),
  // shared with Allocators like base_ and overlay_; the devices changed since the last update.
  std::shared_ptr<const dra::Inventory> dense_inventory_ GUARDED_BY(mu_);
  std::shared_ptr<dra::DenseHolds> dense_ GUARDED_BY(mu_);
  std::vector<dra::DeviceId> dense_dirty_ GUARDED_BY(mu_);
};

}  // namespace stowage::plugins::dynamic_resources
