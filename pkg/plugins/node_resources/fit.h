// NodeResourcesFit: does the node have room for the pod's requests, and how well does the pod
// fit there (upstream plugins/noderesources/fit.go).
//
// PreFilter stores the pod's effective request (PodInfo::requests: containers plus sidecars,
// the largest init phase, pod-level requests, overhead). Filter fails a node when one more pod
// exceeds its pod count ("Too many pods") or when any requested resource exceeds what the
// node's allocatable leaves after its pods' requests ("Insufficient <resource>"). All reasons
// are kept; the status is UnschedulableAndUnresolvable when some request exceeds the node's
// whole allocatable (preemption cannot help), else Unschedulable. ignoredResources and
// ignoredResourceGroups exempt extended resources from the Filter only. Pods already on the
// node count with their resize-aware requests (framework::ComputePodRequests: the maximum of
// spec, allocated and actuated). Restartable init containers are never rejected (1.37 dropped
// the SidecarContainers-off check).
//
// PreScore/Score rank feasible nodes by the configured strategy (LeastAllocated by default,
// MostAllocated or RequestedToCapacityRatio; see resource_allocation.h).
//
// Extended resources a DeviceClass provides (DRAExtendedResource, GA): PreFilter notes which of
// the pod's extended resources a class serves, and Filter leaves those to DynamicResources on a
// node whose allocatable lacks them (upstream's shouldDelegateResourceToDRA). When
// scoringStrategy.resources names such a resource, Score counts the class's devices on a node
// whose allocatable lacks it as its allocatable and the held ones as allocated (see
// resource_allocation.h), from the view DynamicResources' PreFilter left in the cycle; without
// DynamicResources in the profile such a resource drops out of the score.
//
// Not modelled: the deferred-resize accounting of InPlacePodVerticalScalingSchedulerPreemption
// (alpha, off). The plugin is immutable after construction; Filter and Score are safe to call
// concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pkg/plugins/node_resources/resource_allocation.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::node_resources {

inline constexpr std::string_view kFitName = "NodeResourcesFit";

enum class ScoringStrategyType : uint8_t {
  kLeastAllocated,
  kMostAllocated,
  kRequestedToCapacityRatio,
};

// NodeResourcesFitArgs after defaulting and validation.
struct FitOptions {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategyType strategy = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources = DefaultResources();
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio only
};

// The options of defaulted, validated args (pkg/config does both).
FitOptions FitOptionsFromArgs(const config::NodeResourcesFitArgs& args);

// A resource the node lacks for the pod (upstream InsufficientResource).
struct InsufficientResource {
  std::string resource_name;
  std::string reason;
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The request exceeds the node's allocatable: no preemption can make room.
  bool unresolvable = false;
  friend bool operator==(const InsufficientResource&, const InsufficientResource&) = default;
};

// Extended resources the Filter ignores, by full name or by the prefix before '/'.
struct IgnoredResources {
  std::set<std::string, std::less<>> names;
  std::set<std::string, std::less<>> groups;
};

// The pod's extended resources (of request) that a DeviceClass in classes provides, sorted.
std::vector<std::string> DraBackedResources(const framework::Resource& request,
                                            const framework::Lister<api::DeviceClass>& classes);

// What node lacks for a pod requesting pod_request (fitsRequest). Empty when the pod fits.
// Scalar resources are checked in name order; those in dra_backed (sorted) are skipped where the
// node's allocatable has none of them, as DynamicResources serves them there.
std::vector<InsufficientResource> FitsRequest(const framework::Resource& pod_request,
                                              const framework::NodeInfo& node,
                                              const IgnoredResources& ignored,
                                              const std::vector<std::string>& dra_backed = {});
// FitsRequest for pod's effective request, ignoring nothing (upstream Fits).
std::vector<InsufficientResource> Fits(const api::Pod& pod, const framework::NodeInfo& node,
                                       const std::vector<std::string>& dra_backed = {});

class Fit final : public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin,
                  public framework::EnqueueExtensions {
 public:
  // classes: the DeviceClasses that may provide extended resources (the handle's lister).
  explicit Fit(FitOptions options, const framework::Lister<api::DeviceClass>& classes =
                                       framework::EmptyLister<api::DeviceClass>::Instance());

  std::string_view Name() const override { return kFitName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;
  // AssignedPod/Delete, AssignedPod/UpdatePodScaleDown and TargetPod/UpdatePodScaleDown with
  // IsSchedulableAfterPodEvent; Node/Add|UpdateNodeAllocatable with IsSchedulableAfterNodeChange;
  // DeviceClass/Add|Update with IsSchedulableAfterDeviceClassEvent.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  const ResourceAllocationScorer& scorer() const { return scorer_; }

 private:
  IgnoredResources ignored_;
  ResourceAllocationScorer scorer_;
  const framework::Lister<api::DeviceClass>& classes_;
};
static_assert(std::is_base_of_v<framework::PreFilterPlugin, Fit>);
static_assert(std::is_base_of_v<framework::FilterPlugin, Fit>);
static_assert(std::is_base_of_v<framework::PreScorePlugin, Fit>);
static_assert(std::is_base_of_v<framework::ScorePlugin, Fit>);
static_assert(std::is_base_of_v<framework::EnqueueExtensions, Fit>);

// A deleted pod frees resources if it was bound or nominated to a node; a scaled-down pod does
// if it is the pod itself, or a bound pod whose request for something pod requests went down.
framework::QueueingHint IsSchedulableAfterPodEvent(const api::Pod& pod,
                                                   const framework::EventObject& old_obj,
                                                   const framework::EventObject& new_obj);
// Queue only when the new node fits the pod on its own, and (for an update) some resource the
// pod requests, or the pod count, grew. classes: as Fit's, for resources DRA may serve.
framework::QueueingHint IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObject& old_obj,
    const framework::EventObject& new_obj,
    const framework::Lister<api::DeviceClass>& classes =
        framework::EmptyLister<api::DeviceClass>::Instance());
// Whether going from original to modified raised the allocatable of anything pod requests, or
// the pod count; a resource in dra_backed (sorted) counts as raised where modified lacks it.
bool HaveAnyRequestedResourcesIncreased(const api::Pod& pod, const api::Node& original,
                                        const api::Node& modified,
                                        const std::vector<std::string>& dra_backed = {});
// A DeviceClass added, or updated with another extendedResourceName, may provide a resource the
// pod requests.
framework::QueueingHint IsSchedulableAfterDeviceClassEvent(const api::Pod& pod,
                                                           const framework::EventObject& old_obj,
                                                           const framework::EventObject& new_obj);

// The plugin factory (registered through framework::WithArgs).
StatusOr<std::unique_ptr<framework::Plugin>> NewFit(const config::NodeResourcesFitArgs& args,
                                                    framework::Handle& handle,
                                                    const framework::Features& features);

}  // namespace stowage::plugins::node_resources
