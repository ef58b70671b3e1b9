// Extended resources that DeviceClasses provide through DRA (DRAExtendedResource, GA in 1.37):
// which class serves a resource name, and the device requests of the claim the scheduler
// creates for a pod's containers (upstream's extendedresourcecache and createRequestsAndMappings).
//
// Pure functions and an immutable map; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/dra/allocator.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::dra {

// The annotation that marks the claim the scheduler created for a pod's extended resources.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";

// Which DeviceClass provides each extended resource name: its spec.extendedResourceName, and
// deviceclass.resource.kubernetes.io/<class> for every class. When classes name the same
// resource, the oldest class wins, then the smallest name, as upstream's cache keeps it once
// every class has been seen (its result for such conflicts depends on event order otherwise).
class DeviceClassResolver {
 public:
  DeviceClassResolver() = default;
  explicit DeviceClassResolver(const std::vector<DeviceClassPtr>& classes);
  // The class that provides resource; nullptr when none does.
  const api::DeviceClass* Get(std::string_view resource) const;
  bool empty() const { return by_resource_.empty(); }

 private:
  std::map<std::string, DeviceClassPtr, std::less<>> by_resource_;
};

// The device requests of the claim for extended resources and which container each serves.
struct ExtendedRequests {
  std::vector<api::DeviceRequest> requests;  // sorted by name
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};

// The requests for resources (names a class in resolver provides; others are skipped), one per
// long-lived container (regular and sidecar) that requests the resource, named
// "container-<index>-request-<index of the resource among the container's sorted requests>",
// counting init containers first; plain init containers reuse the requests of the containers
// after them and share one request, the largest, for what they need beyond that.
ExtendedRequests MakeExtendedRequests(const api::Pod& pod,
                                      const std::vector<std::string>& resources,
                                      const DeviceClassResolver& resolver);

// How many devices of a class a node can use, and how many of those some claim holds whole or in
// part.
struct DeviceTotals {
  int64_t capacity = 0;
  int64_t allocated = 0;
};

// The devices of device_class that node can use, counted as upstream's
// calculateDRAResourceTotals counts them for NodeResourcesFit and BalancedAllocation: every slice
// of the inventory that names the node, all nodes or a selector the node matches (per device with
// per-device node selection), whatever its pool's generation, and every device there that all
// of the class's CEL selectors accept. A node selector that does not parse, or a selector that
// does not compile or fails on a device, is an error.
StatusOr<DeviceTotals> CountClassDevices(const Inventory& inventory,
                                         const AllocatedState& allocated, const api::Node& node,
                                         const api::DeviceClass& device_class);
// The same with the class's selectors looked up once (ClassSelectors), for a caller that counts
// one class on many nodes: the lookup takes the inventory's lock.
using ClassSelectors = std::vector<const Inventory::Selector*>;
ClassSelectors SelectorsOf(const Inventory& inventory, const api::DeviceClass& device_class);
StatusOr<DeviceTotals> CountClassDevices(const Inventory& inventory,
                                         const AllocatedState& allocated, const api::Node& node,
                                         const ClassSelectors& selectors);

}  // namespace stowage::dra
