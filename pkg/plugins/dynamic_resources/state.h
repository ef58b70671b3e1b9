// What DynamicResources' PreFilter works out for one pod and the later extension points read
// (upstream's stateData). Internal to the plugin.
//
// Thread-safety: written by PreFilter before the parallel Filter calls; Filter records its
// per-node results in node_allocations (locked inside) and unavailable claims under mu. Clones
// share one Data, as upstream's Clone returns the same stateData: preemption's simulated Filter
// calls add to the same results.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/extended_devices_state.h"
#include "pkg/dra/extended_resources.h"
#include "stowage/api/labels.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/cycle_state.h"

namespace stowage::plugins::dynamic_resources {

// What Filter found for one node (upstream's nodeAllocation).
struct NodeAllocation {
  // The devices picked for the claims of to_allocate, of which there are `claims`. They point
  // into the allocator's Inventory and into the claims, so they are read only while allocator
  // is set; Reserve makes the chosen node's AllocationResults from them, and the other nodes'
  // cost no result strings.
  std::vector<dra::Pick> picks;
  size_t claims = 0;
  // The node's variant of the claim for extended resources, with the requests DRA serves there;
  // null when the node's device plugins serve them all.
  dra::ResourceClaimPtr extended_claim;
  std::shared_ptr<const std::vector<api::ContainerExtendedResourceRequest>> mappings;
};

// Filter's results by node, in shards by node name, each behind its own lock: every Filter call
// of a cycle writes one, and one lock for them all had the node threads queue on it (a twelfth
// of a DRA cycle in bench_cycle's BM_DraClaimHeld). The shards exist only after Init, which
// PreFilter calls when there is something to allocate: the table is too big (1.7 KB) to
// allocate per cycle for pods whose claims are all allocated. Thread-safe after Init.
class NodeAllocations {
 public:
  // Makes the shards; before any other call, while one thread has the state.
  void Init() { shards_ = std::make_unique<std::array<Shard, kShards>>(); }
  // Only after Init.
  void Put(const std::string& node, NodeAllocation allocation) {
    Shard& shard = ShardOf(node);
    WriterMutexLock l(shard.mu);
    shard.by_node[node] = std::move(allocation);
  }
  // f(const NodeAllocation*), the node's entry or null, under its shard's shared lock; f must be
  // short and do no I/O.
  template <typename F>
  auto With(std::string_view node, F&& f) const {
    if (shards_ == nullptr) return f(nullptr);
    const Shard& shard = ShardOf(node);
    ReaderMutexLock l(shard.mu);
    auto it = shard.by_node.find(node);
    return f(it == shard.by_node.end() ? nullptr : &it->second);
  }

 private:
  struct Shard {
    mutable SharedMutex mu;
    std::map<std::string, NodeAllocation, std::less<>> by_node GUARDED_BY(mu);
  };
  static constexpr size_t kShards = 16;
  Shard& ShardOf(std::string_view node) {
    return (*shards_)[std::hash<std::string_view>{}(node) % kShards];
  }
  const Shard& ShardOf(std::string_view node) const {
    return (*shards_)[std::hash<std::string_view>{}(node) % kShards];
  }
  std::unique_ptr<std::array<Shard, kShards>> shards_;
};

// The pod's extended resources that a DeviceClass provides (upstream's draExtendedResource).
struct ExtendedResources {
  // The pod's requests of DRA-capable extended resources (non-zero), by name.
  std::vector<std::pair<std::string, int64_t>> requests;
  dra::DeviceClassResolver resolver;
  // The UID the claim had in PreFilter (a made-up one while it exists only in memory): the key
  // of its pending allocation.
  std::string initial_uid;
  // The variant of a node whose device plugins serve none of the requests (most nodes): made
  // once in PreFilter and shared by those nodes, instead of a copy of the claim per node.
  std::vector<std::string> all_through_dra;
  dra::ResourceClaimPtr all_dra_claim;
  std::shared_ptr<const std::vector<api::ContainerExtendedResourceRequest>> all_dra_mappings;
};

// The name of the claim for extended resources while it exists only in memory; not a valid
// object name, so it never meets a real claim.
inline constexpr std::string_view kInMemoryClaimName = "<extended-resources>";

struct StateData final : framework::StateData {
  struct Data {
    // The pod's claims, in the order of spec.resourceClaims, then the claim for extended
    // resources when the pod has one (extended is set).
    std::vector<dra::ResourceClaimPtr> claims;
    std::optional<ExtendedResources> extended;
    // Per claim: the nodes its existing allocation is usable on (nullopt: any node), compiled
    // once here rather than per node in Filter, as upstream's PreFilter does.
    std::vector<std::optional<api::NodeSelectorMatcher>> available_on;
    // Indices of the claims without an allocation, in claims' order.
    std::vector<size_t> to_allocate;
    // Set when to_allocate is not empty.
    std::shared_ptr<const dra::Allocator> allocator;
    // Set when extended is: the view the resource-allocation scorers keep in their own states
    // too. Reserve drops its allocator, so that a pod in its binding cycle holds no copy of the
    // device counts and the tracker updates them in place for the next pod.
    std::shared_ptr<dra::ExtendedDevices> extended_devices;
    // Whether a request of the claims has firstAvailable subrequests, the only thing Score
    // counts; without one every node scores 0 and Score reads nothing.
    bool scores_subrequests = false;
    // Per claim index: the allocation Reserve chose for it.
    std::map<size_t, api::AllocationResult> reserved;

    // Per node, as Filter found it.
    mutable NodeAllocations node_allocations;
    mutable SharedMutex mu;
    // Claims whose allocation did not fit some node; PostFilter may deallocate one.
    mutable std::set<size_t> unavailable GUARDED_BY(mu);
  };

  // The claim for extended resources, or null.
  static const dra::ResourceClaimPtr* ExtendedClaim(const Data& d) {
    return d.extended ? &d.claims.back() : nullptr;
  }
  // Whether claims[i] is the claim for extended resources.
  static bool IsExtended(const Data& d, size_t i) { return d.extended && i + 1 == d.claims.size(); }

  explicit StateData(std::shared_ptr<Data> d) : data(std::move(d)) {}
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<StateData>(data);
  }
  std::shared_ptr<Data> data;
};

}  // namespace stowage::plugins::dynamic_resources
