// The resource-allocation scoring shared by NodeResourcesFit (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) and NodeResourcesBalancedAllocation (upstream
// noderesources/resource_allocation.go and the per-strategy scorer files).
//
// For every configured resource the scorer collects three numbers per node: what the node
// allocates to pods ("allocatable"), what its pods already request ("allocated") and that plus
// the incoming pod's request ("requested"). A resource is left out (all three stay 0, which the
// scorers skip) when it is a scalar resource the pod does not request, or when the node has
// none of it. Fit reads the node's non-zero requests for cpu and memory (pods without requests
// count as 100m / 200Mi) and the pod's request with the same defaults; BalancedAllocation reads
// the actual requests. Ephemeral storage and scalar resources always use actual requests.
//
// An extended resource a DeviceClass provides (DRAExtendedResource) and the node's allocatable
// lacks counts the class's devices the node can use as allocatable and those some claim holds as
// allocated (DraScoring), when DynamicResources left the cycle's view of the devices.
//
// All integer arithmetic truncates as Go's int64 does. Everything here is immutable after
// construction and safe to call from many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/dra/extended_devices_state.h"
#include "pkg/dra/extended_resources.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/status.h"
#include "stowage/framework/types.h"
#include "stowage/plugins/helper/shape_score.h"

namespace stowage::plugins::node_resources {

// A resource the score looks at, and how much it counts.
struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
  friend bool operator==(const ResourceSpec&, const ResourceSpec&) = default;
};

// cpu and memory, weight 1 each: upstream's default for both plugins.
std::vector<ResourceSpec> DefaultResources();

// Maps the per-resource (requested, allocated, allocatable) lists, indexed like the configured
// resources, to a node score in [0, kMaxNodeScore].
using ScorerFn =
    std::function<int64_t(std::span<const int64_t> requested, std::span<const int64_t> allocated,
                          std::span<const int64_t> allocatable)>;

// The weighted mean of per_resource(requested, allocatable) over the resources the node has
// (allocatable > 0), 0 when it has none: LeastAllocated's and MostAllocated's combination.
template <typename PerResource>
int64_t WeightedResourceScore(const std::vector<ResourceSpec>& resources,
                              std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable, PerResource per_resource) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) continue;
    node_score += per_resource(requested[i], allocatable[i]) * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

// LeastAllocated: Σ w·((cap − req)·100 / cap) / Σ w; a resource over capacity scores 0.
ScorerFn LeastAllocatedScorer(std::vector<ResourceSpec> resources);
// MostAllocated: Σ w·(min(req, cap)·100 / cap) / Σ w.
ScorerFn MostAllocatedScorer(std::vector<ResourceSpec> resources);

// A point of a RequestedToCapacityRatio shape: utilization in [0, 100], score in [0, 10].
using helper::BuildBrokenLinearFunction;
using helper::ShapePoint;
// RequestedToCapacityRatio: each resource scores f(req·100/cap) (f(100) when cap is 0 or
// req > cap) with the shape's scores scaled by kMaxNodeScore / 10; only resources scoring above
// 0 count, and the weighted mean is rounded half away from zero.
ScorerFn RequestedToCapacityRatioScorer(std::vector<ResourceSpec> resources,
                                        const std::vector<ShapePoint>& shape);

// True when every request is 0.
bool IsBestEffort(std::span<const int64_t> pod_requests);

// The devices behind the configured resources a DeviceClass provides (upstream's
// draPreScoreState): empty when DynamicResources left no view of the devices in the cycle, or
// no class provides any configured resource.
struct DraScoring {
  std::shared_ptr<const dra::ExtendedDevices> devices;
  std::vector<const api::DeviceClass*> classes;  // per configured resource; null: none provides it
  std::vector<dra::ClassSelectors> selectors;    // per configured resource, of its class
  bool empty() const { return devices == nullptr; }
};
DraScoring DraScoringFor(const framework::CycleState& state,
                         const std::vector<ResourceSpec>& resources);

class ResourceAllocationScorer {
 public:
  // use_requested picks the nodes' actual cpu/memory requests (BalancedAllocation) instead of
  // their non-zero requests (Fit).
  ResourceAllocationScorer(std::vector<ResourceSpec> resources, bool use_requested,
                           ScorerFn scorer);

  // The pod's request for each configured resource: actual requests with use_requested,
  // otherwise with 100m / 200Mi for containers that request no cpu / memory.
  std::vector<int64_t> PodRequests(const framework::PodInfo& pod) const;

  // Scores node for a pod whose PodRequests() are pod_requests. Error when no resources are
  // configured.
  framework::Status Score(const framework::NodeInfo& node, std::span<const int64_t> pod_requests,
                          int64_t& score, const DraScoring& dra = {}) const;

  const std::vector<ResourceSpec>& resources() const { return resources_; }

 private:
  // Where each configured resource's numbers come from, decided once here rather than by
  // comparing its name on every node scored.
  enum class Kind : uint8_t { kCpu, kMemory, kEphemeralStorage, kScalar, kOther };
  static Kind KindOf(std::string_view name);
  // The value of resource i in r: cpu in millicores, others in units.
  int64_t ValueOf(const framework::Resource& r, size_t i) const;

  std::vector<ResourceSpec> resources_;
  std::vector<Kind> kinds_;  // per resource
  bool use_requested_;
  ScorerFn scorer_;
};

}  // namespace stowage::plugins::node_resources
