#include "pkg/dra/extended_resources.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "pkg/dra/node_match.h"

namespace stowage::dra {
namespace {

// Quantity.AsInt64: the value when it is a whole number that fits an int64.
std::optional<int64_t> AsInt64(const api::Quantity& q) {
  constexpr __int128 kNano = 1'000'000'000;
  const __int128 n = q.Nanos();
  if (n % kNano != 0) return std::nullopt;
  const __int128 v = n / kNano;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// One container's request for resource beyond what the reusable requests (of the containers
// after a plain init container) already give it, and its mappings.
struct ContainerPart {
  std::optional<api::DeviceRequest> request;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};

ContainerPart ForContainer(size_t index, const api::Container& c, const std::string& resource,
                           const std::string& class_name,
                           const std::vector<std::optional<api::DeviceRequest>>& reusable,
                           size_t reusable_from) {
  ContainerPart out;
  const api::Quantity* q = c.resources.requests.Get(resource);
  if (q == nullptr) return out;
  std::optional<int64_t> want = AsInt64(*q);
  if (!want || *want == 0) return out;
  int64_t sum = 0;
  for (size_t i = reusable_from; i < reusable.size(); ++i) {
    if (!reusable[i]) continue;
    sum += reusable[i]->exactly->count;
    out.mappings.push_back({c.name, resource, reusable[i]->name});
    if (sum >= *want) return out;
  }
  // The resource's position among the container's requests, which are sorted by name.
  size_t position = 0;
  const auto& entries = c.resources.requests.entries();
  for (size_t j = 0; j < entries.size(); ++j) {
    if (entries[j].first == resource) {
      position = j;
      break;
    }
  }
  api::DeviceRequest r;
  r.name = "container-" + std::to_string(index) + "-request-" + std::to_string(position);
  r.exactly.emplace();
  r.exactly->device_class_name = class_name;
  r.exactly->allocation_mode = "ExactCount";
  r.exactly->count = *want - sum;
  out.mappings.push_back({c.name, resource, r.name});
  out.request = std::move(r);
  return out;
}

}  // namespace

DeviceClassResolver::DeviceClassResolver(const std::vector<DeviceClassPtr>& classes) {
  auto older = [](const api::DeviceClass& a, const api::DeviceClass& b) {
    // RFC 3339 times in UTC, as the apiserver writes them, order as strings.
    if (a.metadata.creation_timestamp != b.metadata.creation_timestamp) {
      return a.metadata.creation_timestamp < b.metadata.creation_timestamp;
    }
    return a.metadata.name < b.metadata.name;
  };
  for (const DeviceClassPtr& c : classes) {
    by_resource_[std::string(api::kDeviceClassResourcePrefix) + c->metadata.name] = c;
  }
  for (const DeviceClassPtr& c : classes) {
    if (!c->extended_resource_name) continue;
    DeviceClassPtr& slot = by_resource_[*c->extended_resource_name];
    if (slot == nullptr || older(*c, *slot)) slot = c;
  }
}

const api::DeviceClass* DeviceClassResolver::Get(std::string_view resource) const {
  auto it = by_resource_.find(resource);
  return it == by_resource_.end() ? nullptr : it->second.get();
}

ExtendedRequests MakeExtendedRequests(const api::Pod& pod,
                                      const std::vector<std::string>& resources,
                                      const DeviceClassResolver& resolver) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) containers.push_back(&c);
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  std::vector<size_t> long_lived, short_lived;
  for (size_t i = 0; i < containers.size(); ++i) {
    const bool sidecar = containers[i]->restart_policy.value_or("") == "Always";
    (i < pod.spec.init_containers.size() && !sidecar ? short_lived : long_lived).push_back(i);
  }

  ExtendedRequests out;
  std::vector<std::string> names = resources;
  std::sort(names.begin(), names.end());
  for (const std::string& resource : names) {
    const api::DeviceClass* cls = resolver.Get(resource);
    if (cls == nullptr) continue;
    const std::string& class_name = cls->metadata.name;
    std::vector<std::optional<api::DeviceRequest>> long_requests(containers.size());
    std::vector<api::ContainerExtendedResourceRequest> long_mappings, short_mappings;
    for (size_t i : long_lived) {
      ContainerPart p = ForContainer(i, *containers[i], resource, class_name, {}, 0);
      long_requests[i] = std::move(p.request);
      long_mappings.insert(long_mappings.end(), p.mappings.begin(), p.mappings.end());
    }
    // Plain init containers run one at a time: the largest of their own requests serves all.
    std::optional<api::DeviceRequest> largest;
    std::set<std::string> short_names;
    for (size_t i : short_lived) {
      ContainerPart p = ForContainer(i, *containers[i], resource, class_name, long_requests, i);
      if (p.request) {
        short_names.insert(p.request->name);
        if (!largest || largest->exactly->count < p.request->exactly->count) largest = p.request;
      }
      short_mappings.insert(short_mappings.end(), p.mappings.begin(), p.mappings.end());
    }
    if (largest && short_names.size() > 1) {
      short_names.erase(largest->name);
      for (api::ContainerExtendedResourceRequest& m : short_mappings) {
        if (short_names.contains(m.request_name)) m.request_name = largest->name;
      }
    }
    if (largest) out.requests.push_back(std::move(*largest));
    for (std::optional<api::DeviceRequest>& r : long_requests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(), long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(), short_mappings.end());
  }
  std::sort(
      out.requests.begin(), out.requests.end(),
      [](const api::DeviceRequest& a, const api::DeviceRequest& b) { return a.name < b.name; });
  return out;
}

ClassSelectors SelectorsOf(const Inventory& inventory, const api::DeviceClass& device_class) {
  ClassSelectors selectors;
  for (const std::string& expression : device_class.selectors) {
    selectors.push_back(&inventory.SelectorOf(expression));
  }
  return selectors;
}

StatusOr<DeviceTotals> CountClassDevices(const Inventory& inventory,
                                         const AllocatedState& allocated, const api::Node& node,
                                         const api::DeviceClass& device_class) {
  return CountClassDevices(inventory, allocated, node, SelectorsOf(inventory, device_class));
}

StatusOr<DeviceTotals> CountClassDevices(const Inventory& inventory,
                                         const AllocatedState& allocated, const api::Node& node,
                                         const ClassSelectors& selectors) {
  DeviceTotals totals;
  auto count = [&](const api::ResourceSlice& slice, size_t i) -> Status {
    const api::Device& device = slice.devices[i];
    const int64_t position = inventory.DevicePosition(slice, i);
    for (const Inventory::Selector* selector : selectors) {
      StatusOr<bool> matches =
          inventory.Matches(*selector, position, DeviceView{slice.driver, device});
      if (!matches.ok()) return matches.status();
      if (!*matches) return OkStatus();
    }
    ++totals.capacity;
    if (allocated.IsAllocated(DeviceRef{slice.driver, slice.pool_name, device.name})) {
      ++totals.allocated;
    }
    return OkStatus();
  };
  const std::string& node_name = node.metadata.name;
  auto visit = [&](const api::ResourceSlice& slice) -> Status {
    if (slice.per_device_node_selection.value_or(false)) {
      for (size_t i = 0; i < slice.devices.size(); ++i) {
        const api::Device& d = slice.devices[i];
        const std::string& name = d.node_name ? *d.node_name : "";
        const bool all = d.all_nodes.value_or(false);
        bool here = all || (!name.empty() && name == node_name);
        if (!here && d.node_selector) {
          StatusOr<bool> m = NodeMatches(node, name, all, &*d.node_selector);
          if (!m.ok()) return m.status();
          here = *m;
        }
        if (!here) continue;
        if (Status s = count(slice, i); !s.ok()) return s;
      }
      return OkStatus();
    }
    const std::string& name = slice.node_name ? *slice.node_name : "";
    const bool all = slice.all_nodes.value_or(false);
    // Upstream's order of checks: a slice naming neither this node nor all nodes is asked its
    // selector, and without one it counts unless it names another node.
    if (!all && name != node_name && slice.node_selector) {
      StatusOr<bool> m = NodeMatches(node, name, all, &*slice.node_selector);
      if (!m.ok()) return m.status();
      if (!*m) return OkStatus();
    } else if (!all && !name.empty() && name != node_name) {
      return OkStatus();
    }
    for (size_t i = 0; i < slice.devices.size(); ++i) {
      if (Status s = count(slice, i); !s.ok()) return s;
    }
    return OkStatus();
  };
  for (const auto& slice : inventory.SlicesOnNode(node_name)) {
    if (Status s = visit(*slice); !s.ok()) return s;
  }
  for (const auto& slice : inventory.shared_slices()) {
    if (Status s = visit(*slice); !s.ok()) return s;
  }
  return totals;
}

}  // namespace stowage::dra
