// Search: the state of one Allocate call and the depth-first search over it (internal to
// pkg/dra; upstream's unexported `allocator`).
//
// One Search lives on the stack of one Allocate call and is used by that thread only. It points
// into the Allocator, the node, the claims and the slices, which all outlive it.
//
// Invariants: every device the search tentatively takes is undone (Rollback) exactly once when
// the search backtracks past it, so allocating_, consumed_, the constraints and results_ always
// describe the devices on the current path; requests are visited in claim order, request order,
// and devices of one request in pool/slice/device order from where the previous device of the
// same request was found, so each combination is tried once.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/constraints.h"
#include "pkg/dra/pools.h"
#include "pkg/dra/request_view.h"

namespace stowage::dra {

// A device the search may take, with where it was found. id views the slice's names.
struct Candidate {
  DeviceRef id;
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  const Pool* pool = nullptr;
  int32_t index = -1;  // Inventory::DeviceIndex, -1 when unknown
};

// A request or one subrequest of it, checked and ready for the search.
struct RequestData {
  RequestView request;
  std::optional<RequestView> parent;  // set for subrequests
  const api::DeviceClass* device_class = nullptr;
  int64_t num_devices = 0;
  std::vector<Candidate> all_devices;  // allocationMode All: the devices it takes
  std::string FullName() const;        // "req" or "req/sub"
};

// A device taken for a claim on the current path.
struct DeviceResult {
  Candidate candidate;
  const RequestData* data = nullptr;
  std::optional<std::string> share_id;  // a share of an allowMultiple device
  std::vector<std::pair<std::string, api::Quantity>> consumed;  // what that share takes
};

// The containers of a Search, one set per thread: a Filter searches every node with the same
// claims, and building them anew per node was half of the search's own time in a DRA backlog.
struct SearchScratch {
  std::vector<std::vector<std::vector<RequestData>>> data;
  std::vector<std::vector<int>> selected_sub;
  std::vector<std::vector<DeviceResult>> results;
  std::vector<std::pair<DeviceRef, int>> allocating;
  bool in_use = false;  // a Search on this thread holds it
};

class Search {
 public:
  Search(const Allocator& allocator, const api::Node& node,
         const std::vector<ResourceClaimPtr>& claims, std::stop_token stop,
         std::chrono::steady_clock::time_point deadline);
  ~Search();
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;
  StatusOr<Allocation> Run();

 private:
  // scratch: the thread's containers, or null for ones of its own.
  Search(const Allocator& allocator, const api::Node& node,
         const std::vector<ResourceClaimPtr>& claims, std::stop_token stop,
         std::chrono::steady_clock::time_point deadline, SearchScratch* scratch);
  // What a step of the search found; kMaxSizeExceeded means the claim's result would exceed
  // kAllocationResultsMaxSize, which callers use to prune harder.
  enum class Step { kDone, kNotDone, kMaxSizeExceeded };
  struct Index {
    int claim = 0, request = 0, sub = 0, device = 0;
  };
  struct Location {
    size_t pool = 0, slice = 0, device = 0;
  };
  // What AllocateDevice changed, so Rollback can undo exactly that.
  struct Undo {
    Candidate candidate;
    int claim = 0;
    std::string_view request, sub;
    bool counters_reserved = false;
    int constraints_added = 0;
    bool device_marked = false;
    bool result_added = false;
    size_t previous_results = 0;
    bool capacity_inserted = false;
    bool capacity_entry_existed = false;  // another share of the device was there before
    CapacityAmounts capacity;
  };
  using CounterSets = std::map<std::string, std::map<std::string, __int128>>;

  // search.cc
  Status Prepare();
  // Checks one request (each of its subrequests) and returns the fewest devices it takes.
  StatusOr<int64_t> PrepareRequest(int claim, int request);
  StatusOr<RequestData> CheckRequest(const RequestView& view, const RequestView* parent,
                                     const Index& key);
  StatusOr<Step> AllocateOne(Index r, bool in_sub, Location start);
  StatusOr<Step> AllocateAll(const Index& r, bool in_sub, const RequestData& data);
  // The devices on the path as picks, after the check that ResultsOf will not fail for them.
  Status CollectPicks(Allocation& out) const;
  // search_device.cc
  // position: the device's Inventory position (DevicePosition), -1 when it has none.
  StatusOr<bool> IsSelectable(const Index& key, const RequestData& data,
                              const api::ResourceSlice& slice, size_t device_index,
                              int64_t position);
  // position: the device's in the allocator's Inventory (-1: not there), whose kept answers
  // spare evaluating a selector again.
  StatusOr<bool> SelectorsMatch(int claim, const api::Device& device, const DeviceRef& id,
                                int64_t position, const api::DeviceClass* device_class,
                                const std::vector<std::string>& selectors);
  StatusOr<bool> AllocateDevice(const Index& r, const Candidate& c, bool must, Undo& undo);
  void Rollback(const Undo& undo);
  bool ReserveCounters(const Candidate& c);
  void ReleaseCounters(const Candidate& c);
  StatusOr<bool> FitsCapacity(const RequestView& request, const Candidate& c) const;
  bool CapacityInUse(const DeviceRef& id) const;
  // index: the device's in the allocator's Inventory (Inventory::DeviceIndex), -1 if unknown.
  bool InUse(const DeviceRef& id, int32_t index = -1) const;
  bool AllocatingForClaim(const DeviceRef& id, int claim) const;
  std::string ClaimName(int claim) const;
  RequestData& Data(const Index& r) { return data_[r.claim][r.request][r.sub]; }

  const Allocator& allocator_;
  const api::Node& node_;
  const std::vector<ResourceClaimPtr>& claims_;
  std::stop_token stop_;
  const std::chrono::steady_clock::time_point deadline_;
  uint32_t steps_ = 0;               // AllocateOne calls, for the deadline's check
  PoolList own_pools_;               // gathered for this call when the Inventory keeps none
  const PoolList* pools_ = nullptr;  // the Inventory's kept pools, or own_pools_
  const PoolList& pools() const { return *pools_; }
  // The thread's scratch, or one of this Search's own when the thread's is taken.
  std::unique_ptr<SearchScratch> own_scratch_;
  SearchScratch& scratch_;
  // [claim][request][subrequest]; a request without subrequests has one entry.
  std::vector<std::vector<std::vector<RequestData>>>& data_;
  std::vector<std::vector<int>>& selected_sub_;                        // [claim][request]
  std::vector<std::vector<std::unique_ptr<Constraint>>> constraints_;  // per claim
  std::vector<std::vector<DeviceResult>>& results_;                    // per claim
  // Devices taken whole on the current path and the claim that took each; a claim takes at most
  // kAllocationResultsMaxSize, so a list scan beats a table built anew for every node.
  std::vector<std::pair<DeviceRef, int>>& allocating_;
  // Capacity taken by the shares on the current path; an entry, even empty, marks a shared device.
  DeviceRefMap<CapacityAmounts> allocating_capacity_;
  std::map<const Pool*, CounterSets> available_;  // per pool, computed on first use
  std::map<const Pool*, CounterSets> consumed_;   // by the devices on the current path
  struct MatchKey {
    const api::Device* device;
    int claim, request, sub;
    auto operator<=>(const MatchKey&) const = default;
  };
  std::map<MatchKey, bool> matches_;
};

}  // namespace stowage::dra
