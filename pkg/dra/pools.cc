#include "pkg/dra/pools.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/common/macros.h"
#include "pkg/dra/node_match.h"

namespace stowage::dra {
namespace {

// Keeps the slices of the newest generation seen so far for each pool.
void AddSlice(std::map<PoolId, std::vector<const api::ResourceSlice*>>& pools,
              const api::ResourceSlice* slice) {
  auto& entry = pools[PoolId{slice->driver, slice->pool_name}];
  if (entry.empty() || slice->pool_generation > entry.front()->pool_generation) {
    entry.assign(1, slice);
  } else if (slice->pool_generation == entry.front()->pool_generation) {
    entry.push_back(slice);
  }
}

Status ValidateDeviceNames(const std::vector<const api::ResourceSlice*>& slices) {
  // A sorted vector instead of a tree, as this runs for every pool of every node in each Filter.
  std::vector<std::string_view> names;
  for (const auto* slice : slices) {
    for (const auto& device : slice->devices) names.push_back(device.name);
  }
  std::sort(names.begin(), names.end());
  auto twice = std::adjacent_find(names.begin(), names.end());
  if (twice != names.end()) {
    return InvalidArgumentError("duplicate device name " + std::string(*twice));
  }
  return Status();
}

Status ValidateCounterConsumption(const std::map<std::string, const api::CounterSet*>& sets,
                                  const std::vector<const api::ResourceSlice*>& slices) {
  for (const auto* slice : slices) {
    for (const auto& device : slice->devices) {
      for (const auto& consumption : device.consumes_counters) {
        auto it = sets.find(consumption.counter_set);
        if (it == sets.end()) {
          return InvalidArgumentError("counter set " + consumption.counter_set + " not found");
        }
        for (const auto& [name, counter] : consumption.counters.entries()) {
          if (!it->second->counters.Has(name)) {
            return InvalidArgumentError("counter " + name + " not found in counter set " +
                                        it->second->name);
          }
        }
      }
    }
  }
  return Status();
}

Pool InvalidPool(PoolId id, const Status& why) {
  return Pool{.id = std::move(id), .invalid = true, .invalid_reason = std::string(why.message())};
}

// all_for_pool is empty when every slice of the pool is visible from the node.
Pool BuildPool(PoolId id, std::vector<const api::ResourceSlice*> slices, const Features& features,
               const std::vector<const api::ResourceSlice*>& all_for_pool) {
  std::stable_sort(slices.begin(), slices.end(), [](const auto* a, const auto* b) {
    return a->metadata.name < b->metadata.name;
  });
  Pool pool{.id = std::move(id)};
  std::vector<const api::ResourceSlice*> counter_slices;
  for (const auto* slice : slices) {
    bool has_counters = features.partitionable_devices && !slice->shared_counters.empty();
    (has_counters ? counter_slices : pool.slices_on_node).push_back(slice);
  }
  if (slices.size() < all_for_pool.size()) {
    std::set<std::string_view> seen;
    for (const auto* slice : slices) seen.insert(slice->metadata.name);
    for (const auto* slice : all_for_pool) {
      if (seen.count(slice->metadata.name)) continue;
      bool has_counters = features.partitionable_devices && !slice->shared_counters.empty();
      (has_counters ? counter_slices : pool.slices_off_node).push_back(slice);
    }
  }
  if (Status s = ValidateDeviceNames(pool.slices_on_node); !s.ok()) return InvalidPool(pool.id, s);
  if (!features.partitionable_devices) return pool;
  for (const auto* slice : counter_slices) {
    for (const auto& set : slice->shared_counters) {
      if (!pool.counter_sets.emplace(set.name, &set).second) {
        return InvalidPool(pool.id, InvalidArgumentError("duplicate counter set name " + set.name));
      }
    }
  }
  for (const auto* group : {&pool.slices_on_node, &pool.slices_off_node}) {
    if (Status s = ValidateCounterConsumption(pool.counter_sets, *group); !s.ok()) {
      return InvalidPool(pool.id, s);
    }
  }
  return pool;
}

bool HasBindingConditions(const Pool& pool) {
  for (const auto* slice : pool.slices_on_node) {
    for (const auto& device : slice->devices) {
      if (!device.binding_conditions.empty()) return true;
    }
  }
  return false;
}

StatusOr<bool> SliceIsRelevant(const api::ResourceSlice& slice, const api::Node& node) {
  const std::string_view node_name = slice.node_name ? *slice.node_name : std::string_view();
  const bool all_nodes = slice.all_nodes.value_or(false);
  if (!node_name.empty() || all_nodes || slice.node_selector.has_value()) {
    auto match = NodeMatches(node, node_name, all_nodes,
                             slice.node_selector ? &*slice.node_selector : nullptr);
    if (!match.ok()) {
      return InvalidArgumentError("failed to perform node selection for slice " +
                                  slice.metadata.name + ": " +
                                  std::string(match.status().message()));
    }
    return *match;
  }
  if (!slice.per_device_node_selection.value_or(false)) return false;
  for (const auto& device : slice.devices) {
    auto match = NodeMatches(node, device.node_name.value_or(""), device.all_nodes.value_or(false),
                             device.node_selector ? &*device.node_selector : nullptr);
    if (!match.ok()) {
      return InvalidArgumentError("failed to perform node selection for device " + device.name +
                                  " in slice " + slice.metadata.name + ": " +
                                  std::string(match.status().message()));
    }
    if (*match) return true;
  }
  return false;
}

}  // namespace

StatusOr<std::vector<Pool>> GatherPools(
    const std::vector<const api::ResourceSlice*>& slices_for_node, const api::Node& node,
    const Features& features, const std::vector<ResourceSlicePtr>& all_slices) {
  std::map<PoolId, std::vector<const api::ResourceSlice*>> by_pool;
  for (const auto* slice : slices_for_node) {
    if (!features.partitionable_devices &&
        (slice->per_device_node_selection.has_value() || !slice->shared_counters.empty())) {
      continue;
    }
    ASSIGN_OR_RETURN(bool relevant, SliceIsRelevant(*slice, node));
    if (relevant) AddSlice(by_pool, slice);
  }

  std::vector<Pool> result;
  std::vector<Pool> with_binding_conditions;
  auto keep = [&](Pool pool) {
    (HasBindingConditions(pool) ? with_binding_conditions : result).push_back(std::move(pool));
  };
  for (auto& [id, slices] : by_pool) {
    const int64_t generation = slices.front()->pool_generation;
    const int64_t count = slices.front()->pool_resource_slice_count;
    if (static_cast<int64_t>(slices.size()) == count) {
      keep(BuildPool(id, std::move(slices), features, {}));
      continue;
    }
    // Not every slice is visible from this node: look at the whole cluster's.
    std::vector<const api::ResourceSlice*> all_for_pool;
    bool obsolete = false;
    for (const auto& slice : all_slices) {
      if (slice->driver != id.driver || slice->pool_name != id.pool) continue;
      if (slice->pool_generation > generation) {
        obsolete = true;
        break;
      }
      if (slice->pool_generation == generation) all_for_pool.push_back(slice.get());
    }
    if (obsolete) continue;
    if (static_cast<int64_t>(all_for_pool.size()) != count) {
      result.push_back(Pool{.id = id, .incomplete = true});
      continue;
    }
    keep(BuildPool(id, std::move(slices), features, all_for_pool));
  }
  // std::map already visits pools by (driver, pool); both lists are therefore sorted.
  for (auto& pool : with_binding_conditions) result.push_back(std::move(pool));
  return result;
}

}  // namespace stowage::dra
