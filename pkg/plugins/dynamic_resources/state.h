// What DynamicResources' PreFilter works out for one pod and the later extension points read
// (upstream's stateData). Internal to the plugin.
//
// Thread-safety: written by PreFilter before the parallel Filter calls; Filter records its
// per-node results and unavailable claims under mu. Clones share one Data, as upstream's Clone
// returns the same stateData: preemption's simulated Filter calls add to the same results.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/cycle_state.h"

namespace stowage::plugins::dynamic_resources {

struct StateData final : framework::StateData {
  struct Data {
    // The pod's claims, in the order of spec.resourceClaims.
    std::vector<dra::ResourceClaimPtr> claims;
    // Per claim: the nodes its existing allocation is usable on (nullopt: any node).
    std::vector<std::optional<api::NodeSelector>> available_on;
    // Indices of the claims without an allocation, in claims' order.
    std::vector<size_t> to_allocate;
    // Set when to_allocate is not empty.
    std::shared_ptr<const dra::Allocator> allocator;
    // Per claim index: the allocation Reserve chose for it.
    std::map<size_t, api::AllocationResult> reserved;

    // Shared: Score reads node_allocations from every node's thread at once.
    mutable SharedMutex mu;
    // Per node: one result per claim of to_allocate, as Filter found them.
    mutable std::map<std::string, std::vector<api::AllocationResult>, std::less<>> node_allocations
        GUARDED_BY(mu);
    // Claims whose allocation did not fit some node; PostFilter may deallocate one.
    mutable std::set<size_t> unavailable GUARDED_BY(mu);
  };

  explicit StateData(std::shared_ptr<Data> d) : data(std::move(d)) {}
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<StateData>(data);
  }
  std::shared_ptr<Data> data;
};

}  // namespace stowage::plugins::dynamic_resources
