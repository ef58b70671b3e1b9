// The per-device half of the search: selection, availability, counters, taints, constraints.
#include <algorithm>
#include <iterator>
#include <string>

#include "pkg/common/macros.h"
#include "pkg/dra/node_match.h"
#include "pkg/dra/search.h"
#include "pkg/dra/taints.h"

namespace stowage::dra {

bool Search::InUse(const DeviceRef& id, int32_t index) const {
  if (allocator_.allocated().HoldsWholeAt(&allocator_.inventory(), index, id)) return true;
  return std::any_of(allocating_.begin(), allocating_.end(),
                     [&](const auto& taken) { return DeviceIdEq()(taken.first, id); });
}

bool Search::CapacityInUse(const DeviceRef& id) const {
  return allocator_.allocated().HasShares(id) || allocating_capacity_.count(id);
}

StatusOr<bool> Search::FitsCapacity(const RequestView& request, const Candidate& c) const {
  CapacityAmounts sum;
  const CapacityAmounts* consumed = allocator_.allocated().ConsumedCapacity(c.id, sum);
  auto allocating = allocating_capacity_.find(c.id);
  return RequestFitsCapacity(
      consumed, *request.capacity_requests, c.device->capacity,
      allocating == allocating_capacity_.end() ? nullptr : &allocating->second,
      allocator_.features().fractional_capacity_range);
}

bool Search::AllocatingForClaim(const DeviceRef& id, int claim) const {
  return std::any_of(allocating_.begin(), allocating_.end(), [&](const auto& taken) {
    return taken.second == claim && DeviceIdEq()(taken.first, id);
  });
}

StatusOr<bool> Search::SelectorsMatch(int claim, const api::Device& device, const DeviceRef& id,
                                      int64_t position, const api::DeviceClass* device_class,
                                      const std::vector<std::string>& selectors) {
  // Named only for an error, as nearly every device's selectors evaluate.
  auto owner = [&] {
    return device_class ? "class " + device_class->metadata.name : "claim " + ClaimName(claim);
  };
  const Inventory& inventory = allocator_.inventory();
  for (size_t i = 0; i < selectors.size(); ++i) {
    const Inventory::Selector& selector = inventory.SelectorOf(selectors[i]);
    if (!selector.compiled.ok()) {
      return InvalidArgumentError(
          owner() + ": selector #" + std::to_string(i) +
          ": CEL compile error: " + std::string(selector.compiled.status().message()));
    }
    StatusOr<bool> matches = inventory.Matches(selector, position, DeviceView{id.driver, device});
    if (!matches.ok()) {
      return InvalidArgumentError(
          owner() + ": selector #" + std::to_string(i) + " on device " + id.String() +
          ": CEL runtime error: " + std::string(matches.status().message()));
    }
    if (!*matches) return false;
  }
  return true;
}

StatusOr<bool> Search::IsSelectable(const Index& key, const RequestData& data,
                                    const api::ResourceSlice& slice, size_t device_index,
                                    int64_t position) {
  const api::Device& device = slice.devices[device_index];
  if (!allocator_.features().device_binding_and_status && !device.binding_conditions.empty()) {
    return false;
  }
  // Only a device with a node selector of its own is worth remembering here: the Inventory keeps
  // every selector's answers already, and a map entry per device visited cost more than those.
  const bool remember = slice.per_device_node_selection.value_or(false);
  const MatchKey match_key{&device, key.claim, key.request, key.sub};
  if (remember) {
    if (auto it = matches_.find(match_key); it != matches_.end()) return it->second;
  }
  const DeviceRef id{slice.driver, slice.pool_name, device.name};
  bool ok = true;
  if (data.device_class != nullptr) {
    ASSIGN_OR_RETURN(ok, SelectorsMatch(key.claim, device, id, position, data.device_class,
                                        data.device_class->selectors));
  }
  if (ok) {
    ASSIGN_OR_RETURN(
        ok, SelectorsMatch(key.claim, device, id, position, nullptr, *data.request.selectors));
  }
  if (ok && remember) {
    ASSIGN_OR_RETURN(
        ok, NodeMatches(node_, device.node_name.value_or(""), device.all_nodes.value_or(false),
                        device.node_selector ? &*device.node_selector : nullptr));
    matches_[match_key] = ok;
  }
  return ok;
}

bool Search::ReserveCounters(const Candidate& c) {
  const Pool* pool = c.pool;
  auto avail_it = available_.find(pool);
  if (avail_it == available_.end()) {
    // What the pool's counter sets hold minus what devices of other claims already consume.
    CounterSets available;
    for (const auto& [name, set] : pool->counter_sets) {
      auto& counters = available[name];
      for (const auto& [counter, value] : set->counters.entries()) {
        counters[counter] = value.value.Nanos();
      }
    }
    for (const auto* group : {&pool->slices_on_node, &pool->slices_off_node}) {
      for (const api::ResourceSlice* slice : *group) {
        for (const api::Device& device : slice->devices) {
          if (!allocator_.allocated().IsAllocated(
                  DeviceRef{slice->driver, slice->pool_name, device.name})) {
            continue;
          }
          for (const auto& consumption : device.consumes_counters) {
            auto& counters = available[consumption.counter_set];
            for (const auto& [counter, value] : consumption.counters.entries()) {
              auto it = counters.find(counter);
              // May go negative: that simply leaves nothing available.
              if (it != counters.end()) it->second -= value.value.Nanos();
            }
          }
        }
      }
    }
    avail_it = available_.emplace(pool, std::move(available)).first;
  }
  CounterSets& consumed = consumed_[pool];
  for (const auto& consumption : c.device->consumes_counters) {
    auto& counters = consumed[consumption.counter_set];
    for (const auto& [counter, value] : consumption.counters.entries()) {
      counters[counter] += value.value.Nanos();
    }
  }
  // Every counter of the pool is checked, untouched ones against zero: a pool already
  // overdrawn by other claims admits no further counter-consuming device.
  for (const auto& [set_name, counters] : avail_it->second) {
    auto consumed_set = consumed.find(set_name);
    for (const auto& [counter, available] : counters) {
      __int128 used = 0;
      if (consumed_set != consumed.end()) {
        auto it = consumed_set->second.find(counter);
        if (it != consumed_set->second.end()) used = it->second;
      }
      if (available < used) {
        ReleaseCounters(c);
        return false;
      }
    }
  }
  return true;
}

void Search::ReleaseCounters(const Candidate& c) {
  CounterSets& consumed = consumed_[c.pool];
  for (const auto& consumption : c.device->consumes_counters) {
    auto& counters = consumed[consumption.counter_set];
    for (const auto& [counter, value] : consumption.counters.entries()) {
      counters[counter] -= value.value.Nanos();
    }
  }
}

StatusOr<bool> Search::AllocateDevice(const Index& r, const Candidate& c, bool must, Undo& undo) {
  const RequestData& data = Data(r);
  const RequestView& request = data.request;
  const Features& features = allocator_.features();
  // Devices that allow several allocations are shared by claims instead of being taken whole.
  const bool shared =
      features.consumable_capacity && c.device->allow_multiple_allocations.value_or(false);
  if (!shared && request.admin_access && AllocatingForClaim(c.id, r.claim)) return false;
  if (!request.admin_access && InUse(c.id, c.index)) return false;
  const bool consumes = !c.device->consumes_counters.empty();
  if (!features.partitionable_devices && consumes) return false;
  // A share of a device already in use draws no counters again: the first share did.
  const bool reserve = consumes && !(shared && CapacityInUse(c.id));
  if (reserve && !ReserveCounters(c)) return false;

  undo = Undo{.candidate = c,
              .claim = r.claim,
              .request = data.parent ? *data.parent->name : *request.name,
              .sub = data.parent ? std::string_view(*request.name) : std::string_view(),
              .counters_reserved = reserve,
              .previous_results = results_[r.claim].size()};
  if (features.device_taints && TaintPreventsAllocation(*c.device, *request.tolerations)) {
    Rollback(undo);
    return false;
  }
  for (auto& constraint : constraints_[r.claim]) {
    if (!constraint->Add(undo.request, undo.sub, *c.device, c.id)) {
      Rollback(undo);
      if (must) {
        // A claim whose own constraint rules out a device it must take is malformed.
        return InvalidArgumentError("claim " + ClaimName(r.claim) + ", request " + *request.name +
                                    ": cannot add device " + c.id.String() +
                                    " because a claim constraint would not be satisfied");
      }
      return false;
    }
    ++undo.constraints_added;
  }
  if (!shared) {
    allocating_.emplace_back(c.id, r.claim);
    undo.device_marked = true;
  }
  DeviceResult result{.candidate = c, .data = &data};
  if (features.consumable_capacity) {
    // Built only for an error: this runs for every device the search takes.
    auto where = [&] { return "claim " + ClaimName(r.claim) + ", request " + *request.name; };
    StatusOr<bool> fits = FitsCapacity(request, c);
    if (!fits.ok() || !*fits) {
      Rollback(undo);
      if (!fits.ok()) {
        return fits.status().WithPrefix(where() + ": rechecking capacity for device " +
                                        c.id.String());
      }
      return false;
    }
    if (shared) {
      auto consumed = ConsumedByRequest(*request.capacity_requests, c.device->capacity,
                                        features.fractional_capacity_range);
      if (!consumed.ok()) {
        Rollback(undo);
        return consumed.status().WithPrefix(where() + ": computing consumed capacity for device " +
                                            c.id.String());
      }
      result.consumed = std::move(*consumed);
      result.share_id = allocator_.NewShareId();
      undo.capacity_entry_existed = allocating_capacity_.count(c.id) > 0;
      CapacityAmounts& entry = allocating_capacity_[c.id];
      for (const auto& [name, amount] : result.consumed) {
        entry[name] += amount.Nanos();
        undo.capacity[name] = amount.Nanos();
      }
      undo.capacity_inserted = true;
    }
  }
  results_[r.claim].push_back(std::move(result));
  undo.result_added = true;
  return true;
}

void Search::Rollback(const Undo& undo) {
  const DeviceRef& id = undo.candidate.id;
  if (undo.result_added) results_[undo.claim].resize(undo.previous_results);
  if (undo.capacity_inserted) {
    auto it = allocating_capacity_.find(id);
    if (it != allocating_capacity_.end()) {
      bool empty = true;
      for (auto& [name, amount] : it->second) {
        if (auto taken = undo.capacity.find(name); taken != undo.capacity.end()) {
          amount -= taken->second;
        }
        empty = empty && amount == 0;
      }
      // An earlier share keeps its (possibly empty) entry: it marks the device as shared.
      if (empty && !undo.capacity_entry_existed) allocating_capacity_.erase(it);
    }
  }
  if (undo.device_marked) {
    // Undone in the reverse order they were made, so the pair is found from the back.
    for (auto it = allocating_.rbegin(); it != allocating_.rend(); ++it) {
      if (it->second == undo.claim && DeviceIdEq()(it->first, id)) {
        allocating_.erase(std::next(it).base());
        break;
      }
    }
  }
  auto& constraints = constraints_[undo.claim];
  for (int i = undo.constraints_added - 1; i >= 0; --i) {
    constraints[i]->Remove(undo.request, undo.sub, *undo.candidate.device, id);
  }
  if (undo.counters_reserved) ReleaseCounters(undo.candidate);
}

}  // namespace stowage::dra
