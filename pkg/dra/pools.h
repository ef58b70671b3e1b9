// Resource pools as the allocator sees them from one node.
//
// GatherPools groups the slices visible from a node by (driver, pool), keeps the newest
// generation of each, and checks the pool against every slice the scheduler knows: a pool whose
// slices are not all published yet is incomplete, a pool with duplicate device names or broken
// counter references is invalid, and a pool of which a newer generation exists elsewhere is
// dropped. Pools hold pointers into the slices passed in, which must outlive them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/device_id.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::dra {

struct Pool {
  PoolId id;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  // Slices with devices that can be used from the node, sorted by slice name.
  std::vector<const api::ResourceSlice*> slices_on_node;
  // Slices of the pool not visible from the node: their allocated devices still draw counters.
  std::vector<const api::ResourceSlice*> slices_off_node;
  // The pool's shared counter sets, by name.
  std::map<std::string, const api::CounterSet*> counter_sets;
};

// The pools usable from node, sorted by driver then pool name, pools with devices that have
// binding conditions after all others. slices_for_node are the node's own slices followed by the
// slices without a node name; all_slices are all slices of the cluster.
StatusOr<std::vector<Pool>> GatherPools(
    const std::vector<const api::ResourceSlice*>& slices_for_node, const api::Node& node,
    const Features& features, const std::vector<ResourceSlicePtr>& all_slices);

}  // namespace stowage::dra
