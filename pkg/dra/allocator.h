// pkg/dra: the structured allocator of dynamic resource allocation, as upstream's
// k8s.io/dynamic-resource-allocation/structured (v0.37.2) in its "incubating" variant, which the
// scheduler picks with v1.37's default feature gates.
//
// Given a node, the claims of a pod that still need an allocation, the devices other claims
// already hold, every ResourceSlice and every DeviceClass, Allocate searches for devices that
// satisfy all claims on that node: it gathers the pools visible from the node (ignoring pools of
// an outdated generation, marking incomplete and invalid ones), visits pools sorted by driver
// then pool name (pools with binding conditions last), slices by name and devices in slice order,
// and backtracks depth-first, so the first solution found is upstream's. Selectors are CEL
// expressions evaluated through selector.h's interface.
//
// Thread-safety: an Allocator is immutable after construction; its Inventory's cache of compiled
// selectors is guarded by a mutex, and its pools per node are filled once each (std::call_once).
// Allocate may run concurrently for different nodes (each call keeps its search state on its own
// stack). The SelectorCompiler must outlive the Allocator and
// be thread-safe.
//
// Invariants: Allocate returns an error Status only for problems no other node can fix (unknown
// class, bad selector, too many devices); "these claims do not fit here" is an outcome, not an
// error, and so is upstream's ErrFailedAllocationOnNode (invalid pools on this node).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/dra/consumable_capacity.h"
#include "pkg/dra/device_id.h"
#include "pkg/dra/selector.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::dra {

// resourceapi.AllocationResultsMaxSize: the most devices one claim may be allocated.
inline constexpr int kAllocationResultsMaxSize = 32;

// The allocator features upstream's scheduler derives from its feature gates. Defaults are those
// of kube-scheduler v1.37.2 for the features implemented here.
struct Features {
  bool admin_access = true;           // DRAAdminAccess (GA)
  bool prioritized_list = true;       // DRAPrioritizedList (GA)
  bool partitionable_devices = true;  // DRAPartitionableDevices (beta, on)
  bool device_taints = true;          // DRADeviceTaints (GA)
  // DRADeviceBindingConditions && DRAResourceClaimDeviceStatus (beta, on; GA).
  bool device_binding_and_status = true;
  bool consumable_capacity = true;  // DRAConsumableCapacity (beta, on)
  // DRAFractionalCapacityRange: on only with --min-compatibility-version 1.37 or later, which is
  // not the default (one minor below the binary's).
  bool fractional_capacity_range = false;
  friend bool operator==(const Features&, const Features&) = default;
};

struct Pool;  // pools.h
using PoolList = std::vector<Pool>;

// Whole-device holds counted per device: two claims may name one device for a moment (a claim
// written again before the informer saw its older copy go).
using DeviceCounts = DeviceIdMap<int>;

// What the claims in flight and just written change of the informer's counts, with the shares
// every claim holds: the scheduler keeps it between cycles and updates it from the claims that
// changed, instead of gathering every claim in flight again per pod.
struct HeldOverlay {
  DeviceCounts devices;                   // whole holds of the claims in flight or just written
  DeviceCounts released;                  // holds of the informer's copies those claims replace
  DeviceCounts shared;                    // shares held of each device
  DeviceIdMap<CapacityAmounts> capacity;  // what they consume, for each device in shared
};

class Inventory;

// The whole holds of base and overlay (below) by the device's index in one Inventory
// (Inventory::DeviceIndex), kept by the scheduler in step with them: the search asks whether
// each device it visits is held, and two array reads replace probes of three hash tables by
// the device's names, which were two fifths of a DRA Filter call.
struct DenseHolds {
  const Inventory* inventory = nullptr;  // whose indices these are
  std::vector<int32_t> net;              // base's count minus overlay->released's
  std::vector<int32_t> in_flight;        // overlay->devices' count
};

// What claims other than the ones being allocated hold (upstream's AllocatedState).
struct AllocatedState {
  AllocatedState() = default;
  AllocatedState(DeviceIdSet exclusive) : devices(std::move(exclusive)) {}  // NOLINT: implicit
  DeviceIdSet devices;                                                      // allocated whole
  DeviceIdSet shared_devices;  // devices with allowMultipleAllocations holding at least one share
  // What the shares of each shared device consume together.
  DeviceIdMap<CapacityAmounts> aggregated_capacity;
  // The whole devices of the informer's claims, which the scheduler keeps up to date between
  // cycles and every cycle's Allocator shares instead of gathering them again; released
  // subtracts the holds of claims whose newer copy (in flight or just written) is in devices.
  std::shared_ptr<const DeviceCounts> base;
  DeviceCounts released;
  std::shared_ptr<const HeldOverlay> overlay;  // the scheduler's; adds to all of the above
  // base and overlay by device index, when the scheduler keeps them so; devices and released
  // are then empty.
  std::shared_ptr<const DenseHolds> dense;

  // Id is a DeviceId or a DeviceRef.
  template <typename Id>
  bool HoldsWhole(const Id& id) const {
    if (devices.find(id) != devices.end()) return true;
    if (overlay != nullptr && overlay->devices.find(id) != overlay->devices.end()) return true;
    if (base == nullptr) return false;
    auto held = base->find(id);
    if (held == base->end()) return false;
    return held->second > Count(released, id) + (overlay ? Count(overlay->released, id) : 0);
  }
  // HoldsWhole for the device with index in inventory (-1: none), from dense when it serves.
  template <typename Id>
  bool HoldsWholeAt(const Inventory* inventory, int32_t index, const Id& id) const {
    if (index >= 0 && dense != nullptr && dense->inventory == inventory && devices.empty() &&
        released.empty()) {
      return dense->in_flight[index] != 0 || dense->net[index] > 0;
    }
    return HoldsWhole(id);
  }
  // Whether a share of the device is held.
  template <typename Id>
  bool HasShares(const Id& id) const {
    // Empty tables are asked nothing: a probe hashes the device's names.
    return (!shared_devices.empty() && shared_devices.find(id) != shared_devices.end()) ||
           (!aggregated_capacity.empty() &&
            aggregated_capacity.find(id) != aggregated_capacity.end()) ||
           (overlay != nullptr && !overlay->shared.empty() &&
            overlay->shared.find(id) != overlay->shared.end());
  }
  // Whether any claim holds the device, whole or in part (it then draws its counters).
  template <typename Id>
  bool IsAllocated(const Id& id) const {
    return HoldsWhole(id) || HasShares(id);
  }
  // What the held shares of the device consume together, nullptr when nothing; scratch holds
  // the sum when both parts have some.
  const CapacityAmounts* ConsumedCapacity(const DeviceRef& id, CapacityAmounts& scratch) const;

 private:
  template <typename Id>
  static int Count(const DeviceCounts& counts, const Id& id) {
    auto it = counts.find(id);
    return it == counts.end() ? 0 : it->second;
  }
};

// Makes the shareID of each new share of a device; the default makes random UUIDs, as upstream.
// Called from the threads running Allocate.
using ShareIdGenerator = std::function<std::string()>;

using ResourceSlicePtr = std::shared_ptr<const api::ResourceSlice>;
using ResourceClaimPtr = std::shared_ptr<const api::ResourceClaim>;
using DeviceClassPtr = std::shared_ptr<const api::DeviceClass>;

// One device a search took: pointers into the Allocator's Inventory (slice, device) and into the
// claims passed to it (the request's names and tolerations), which must outlive the Pick. A
// Filter call keeps these per node and turns only the chosen node's into AllocationResults, so
// the hundreds of nodes not chosen cost no result strings.
struct Pick {
  int claim = 0;  // its index among the claims allocated
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  const std::string* request = nullptr;  // the request's name
  const std::string* sub = nullptr;      // the firstAvailable subrequest's name, or null
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  bool admin_access = false;
  std::optional<std::string> share_id;                          // a share of a shared device
  std::vector<std::pair<std::string, api::Quantity>> consumed;  // what that share takes
};

// What Allocate concluded for one node.
struct Allocation {
  enum class Outcome {
    kAllocated,      // picks (and results, when asked) say what each claim got
    kUnsatisfiable,  // the claims cannot be allocated on this node (upstream: nil, nil)
    kFailedOnNode,   // upstream's ErrFailedAllocationOnNode: message says why, other nodes may do
  };
  Outcome outcome = Outcome::kUnsatisfiable;
  std::vector<Pick> picks;                     // by claim, in the claims' order
  std::vector<api::AllocationResult> results;  // one per claim; Allocate fills it, Choose not
  std::string message;                         // kFailedOnNode only
};

// The AllocationResult of each of the claims picks were taken for, on the node named node_name.
// Its one error is upstream's for a slice node selector of several terms, which Choose has
// already reported, so for Choose's picks it does not fail.
StatusOr<std::vector<api::AllocationResult>> ResultsOf(const std::vector<Pick>& picks,
                                                       size_t claims, const std::string& node_name,
                                                       const Features& features);

// What every Allocate reads besides the claims: the classes by name and the slices grouped by
// node, with the selectors compiled from them. It changes only when slices, classes or
// DeviceTaintRules do, so the scheduler builds it once per change and every cycle's Allocator
// shares it, instead of regrouping thousands of slices per pod. Thread-safe: immutable but for
// the compiled-selector cache, which a mutex guards, and the pools kept per node, each filled
// once. The SelectorCompiler must outlive it.
class Inventory {
 public:
  // slices: every ResourceSlice the scheduler knows, DeviceTaintRules already applied.
  // features: those of the Allocators that will share it, for which it keeps pools per node.
  Inventory(const std::vector<DeviceClassPtr>& classes, std::vector<ResourceSlicePtr> slices,
            const SelectorCompiler& compiler, Features features = {});
  ~Inventory();

  const api::DeviceClass* FindClass(const std::string& name) const;
  const std::vector<ResourceSlicePtr>& all_slices() const { return all_slices_; }
  // The compiled selector (or compile error) of expression, compiled once per Inventory and
  // shared by concurrent Allocate calls, as upstream's CEL cache is.
  StatusOr<DeviceSelectorPtr> CompiledSelector(const std::string& expression) const;

  // A compiled selector with what it answered for each device of the inventory so far: a device
  // never changes while the inventory lives, so its answer is kept from cycle to cycle instead of
  // evaluating CEL for every device of every node each cycle (a class's selector alone is one
  // evaluation per device and pod). Errors are not kept (their message names the request).
  struct Selector {
    StatusOr<DeviceSelectorPtr> compiled;
    std::unique_ptr<std::atomic<uint8_t>[]> answers;  // by device position: 0 unknown, 1 no, 2 yes
  };
  const Selector& SelectorOf(const std::string& expression) const;
  // The position of slice's device i among the inventory's devices; -1 for a slice not in it.
  int64_t DevicePosition(const api::ResourceSlice& slice, size_t i) const;
  // Each distinct device (driver/pool/device; a pool's slices of two generations may name one
  // twice) gets an index below distinct_devices(): by its names, -1 when no slice lists it, and
  // by position.
  int32_t DeviceIndex(const DeviceRef& device) const;
  int32_t DeviceIndexAt(int64_t position) const { return index_of_position_[position]; }
  size_t distinct_devices() const { return device_index_.size(); }
  // Whether the device matches, from the kept answer or evaluated (and kept) now.
  StatusOr<bool> Matches(const Selector& selector, int64_t position,
                         const DeviceView& device) const;
  // The slices that name node_name, and those that name no node (all nodes, a node selector, or
  // per-device node selection).
  const std::vector<ResourceSlicePtr>& SlicesOnNode(const std::string& node_name) const;
  const std::vector<ResourceSlicePtr>& shared_slices() const { return slices_shared_; }
  // The pools usable from node (pools.h's GatherPools). When no slice without a node name selects
  // nodes by label, they depend on the node's name alone, so they are gathered once per name for
  // the Inventory's features and kept: every pod's Filter asks again for the same nodes, and
  // gathering was a quarter of the device search. Otherwise, or for other features, they are
  // gathered into scratch, and the result points there.
  StatusOr<const PoolList*> PoolsFor(const api::Node& node, const Features& features,
                                     PoolList& scratch) const;

 private:
  std::unordered_map<std::string, DeviceClassPtr> classes_;
  std::unordered_map<std::string, std::vector<ResourceSlicePtr>> slices_on_node_;
  std::vector<ResourceSlicePtr> slices_shared_;  // network-attached: no nodeName
  std::vector<ResourceSlicePtr> all_slices_;
  std::unordered_map<const api::ResourceSlice*, int64_t> first_device_;  // position of device 0
  std::unordered_map<DeviceRef, int32_t, DeviceIdHash, DeviceIdEq> device_index_;  // views slices
  std::vector<int32_t> index_of_position_;
  int64_t devices_ = 0;
  const SelectorCompiler& compiler_;
  mutable Mutex compiled_mu_;
  mutable std::unordered_map<std::string, std::unique_ptr<Selector>> compiled_
      GUARDED_BY(compiled_mu_);
  // The pools kept per node: a slot per node name that slices name, and one (the last) for every
  // other node; none when a shared slice selects nodes by label. Each slot is filled by the first
  // Allocate that needs it (std::call_once), then read without a lock.
  struct PoolSlot;
  Features features_;
  std::unordered_map<std::string, size_t> pool_slot_;
  std::unique_ptr<PoolSlot[]> pool_slots_;  // pool_slot_.size() + 1 of them
};

class Allocator {
 public:
  // allocated: the devices held by claims other than the ones to allocate.
  Allocator(Features features, AllocatedState allocated, std::shared_ptr<const Inventory> inventory,
            ShareIdGenerator share_ids = {});
  // Builds an Inventory of its own from classes and slices (see Inventory).
  Allocator(Features features, AllocatedState allocated, const std::vector<DeviceClassPtr>& classes,
            std::vector<ResourceSlicePtr> slices, const SelectorCompiler& compiler,
            ShareIdGenerator share_ids = {});

  // Allocates claims (in this order) on node. The results carry no allocation timestamp and no
  // device configuration; the caller adds what it persists.
  // A stop request (the scheduling attempt was abandoned) ends the search with a Cancelled
  // error, as upstream's context cancellation does; passing deadline ends it with a
  // DeadlineExceeded error, as the scheduler's filterTimeout does upstream.
  StatusOr<Allocation> Allocate(const api::Node& node, const std::vector<ResourceClaimPtr>& claims,
                                std::stop_token stop = {},
                                std::chrono::steady_clock::time_point deadline =
                                    std::chrono::steady_clock::time_point::max()) const;
  // Allocate without the results: the outcome and the picks, which point into this Allocator's
  // Inventory and into claims (see Pick); ResultsOf makes the results later.
  StatusOr<Allocation> Choose(const api::Node& node, const std::vector<ResourceClaimPtr>& claims,
                              std::stop_token stop = {},
                              std::chrono::steady_clock::time_point deadline =
                                  std::chrono::steady_clock::time_point::max()) const;

  const Features& features() const { return features_; }
  const AllocatedState& allocated() const { return allocated_; }
  std::string NewShareId() const { return share_ids_(); }
  const api::DeviceClass* FindClass(const std::string& name) const {
    return inventory_->FindClass(name);
  }
  const std::vector<ResourceSlicePtr>& all_slices() const { return inventory_->all_slices(); }
  StatusOr<DeviceSelectorPtr> CompiledSelector(const std::string& expression) const {
    return inventory_->CompiledSelector(expression);
  }
  const Inventory& inventory() const { return *inventory_; }

 private:
  Features features_;
  AllocatedState allocated_;
  std::shared_ptr<const Inventory> inventory_;
  ShareIdGenerator share_ids_;
};

}  // namespace stowage::dra
