// The typed args of in-tree plugins (k8s.io/kube-scheduler/config/v1 types_pluginargs.go) and
// PluginArgs, the value a pluginConfig entry holds: one typed struct per in-tree args kind (the
// 8 kinds upstream registers), RawArgs holding the JSON text of an out-of-tree plugin's args, or
// std::monostate when an entry has no args at all.
//
// In pkg/plugin_config (stowage_plugin_config, api and common only) because both sides use it:
// pkg/config decodes, defaults and validates these structs, and plugin factories receive them
// already defaulted and validated. As in types.h, an optional field is one that v1 lets be
// unset. Plain value types; safe to read from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stowage/api/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::config {

// A Go time.Duration.
using Duration = std::chrono::nanoseconds;

struct DefaultPreemptionArgs {
  std::optional<int32_t> min_candidate_nodes_percentage;  // default 10
  std::optional<int32_t> min_candidate_nodes_absolute;    // default 100
  friend bool operator==(const DefaultPreemptionArgs&, const DefaultPreemptionArgs&) = default;
};

struct InterPodAffinityArgs {
  std::optional<int32_t> hard_pod_affinity_weight;  // default 1
  bool ignore_preferred_terms_of_existing_pods = false;
  friend bool operator==(const InterPodAffinityArgs&, const InterPodAffinityArgs&) = default;
};

struct ResourceSpec {
  std::string name;
  int64_t weight = 0;  // defaulting turns 0 into 1
  friend bool operator==(const ResourceSpec&, const ResourceSpec&) = default;
};

struct UtilizationShapePoint {
  int32_t utilization = 0;  // 0..100
  int32_t score = 0;        // 0..10
  friend bool operator==(const UtilizationShapePoint&, const UtilizationShapePoint&) = default;
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  friend bool operator==(const RequestedToCapacityRatioParam&,
                         const RequestedToCapacityRatioParam&) = default;
};

inline constexpr std::string_view kLeastAllocated = "LeastAllocated";
inline constexpr std::string_view kMostAllocated = "MostAllocated";
inline constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

struct ScoringStrategy {
  std::string type;  // LeastAllocated, MostAllocated, RequestedToCapacityRatio
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;
  friend bool operator==(const ScoringStrategy&, const ScoringStrategy&) = default;
};

struct NodeResourcesFitArgs {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  std::optional<ScoringStrategy> scoring_strategy;  // default LeastAllocated, cpu:1, memory:1
  friend bool operator==(const NodeResourcesFitArgs&, const NodeResourcesFitArgs&) = default;
};

inline constexpr std::string_view kSystemDefaulting = "System";
inline constexpr std::string_view kListDefaulting = "List";

struct PodTopologySpreadArgs {
  std::vector<api::TopologySpreadConstraint> default_constraints;
  std::string defaulting_type;  // System (default) or List
  friend bool operator==(const PodTopologySpreadArgs&, const PodTopologySpreadArgs&);
};

struct NodeResourcesBalancedAllocationArgs {
  std::vector<ResourceSpec> resources;  // default cpu:1, memory:1
  friend bool operator==(const NodeResourcesBalancedAllocationArgs&,
                         const NodeResourcesBalancedAllocationArgs&) = default;
};

struct VolumeBindingArgs {
  std::optional<int64_t> bind_timeout_seconds;  // default 600
  // Unset and empty differ, as a nil and an empty Go slice do: validation rejects any shape,
  // even an empty one, while StorageCapacityScoring is off.
  std::optional<std::vector<UtilizationShapePoint>> shape;
  friend bool operator==(const VolumeBindingArgs&, const VolumeBindingArgs&) = default;
};

struct NodeAffinityArgs {
  std::optional<api::NodeAffinity> added_affinity;
  friend bool operator==(const NodeAffinityArgs&, const NodeAffinityArgs&);
};

struct DynamicResourcesArgs {
  std::optional<Duration> filter_timeout;   // default 10s (DRASchedulerFilterTimeout)
  std::optional<Duration> binding_timeout;  // default 10m (DRADeviceBindingConditions et al.)
  friend bool operator==(const DynamicResourcesArgs&, const DynamicResourcesArgs&) = default;
};

// The args of a plugin without an in-tree args kind: the JSON text of what the file held
// (object keys sorted, numbers as Go's YAML-to-JSON conversion writes them).
struct RawArgs {
  std::string json;
  friend bool operator==(const RawArgs&, const RawArgs&) = default;
};

// std::monostate: the pluginConfig entry has no args (`args` absent or null) and the plugin
// has no in-tree args kind.
using PluginArgs =
    std::variant<std::monostate, RawArgs, DefaultPreemptionArgs, InterPodAffinityArgs,
                 NodeResourcesFitArgs, PodTopologySpreadArgs, NodeResourcesBalancedAllocationArgs,
                 VolumeBindingArgs, NodeAffinityArgs, DynamicResourcesArgs>;

// The kind of each typed args struct ("NodeResourcesFitArgs"); empty for RawArgs and
// std::monostate.
template <typename T>
constexpr std::string_view KindOf();
template <>
constexpr std::string_view KindOf<DefaultPreemptionArgs>() {
  return "DefaultPreemptionArgs";
}
template <>
constexpr std::string_view KindOf<InterPodAffinityArgs>() {
  return "InterPodAffinityArgs";
}
template <>
constexpr std::string_view KindOf<NodeResourcesFitArgs>() {
  return "NodeResourcesFitArgs";
}
template <>
constexpr std::string_view KindOf<PodTopologySpreadArgs>() {
  return "PodTopologySpreadArgs";
}
template <>
constexpr std::string_view KindOf<NodeResourcesBalancedAllocationArgs>() {
  return "NodeResourcesBalancedAllocationArgs";
}
template <>
constexpr std::string_view KindOf<VolumeBindingArgs>() {
  return "VolumeBindingArgs";
}
template <>
constexpr std::string_view KindOf<NodeAffinityArgs>() {
  return "NodeAffinityArgs";
}
template <>
constexpr std::string_view KindOf<DynamicResourcesArgs>() {
  return "DynamicResourcesArgs";
}
template <>
constexpr std::string_view KindOf<std::monostate>() {
  return "";
}
template <>
constexpr std::string_view KindOf<RawArgs>() {
  return "";
}

// The kind of typed args ("NodeResourcesFitArgs"); empty for RawArgs and std::monostate.
std::string_view ArgsKind(const PluginArgs& args);
// Empty typed args for a plugin whose name plus "Args" is an in-tree args kind (upstream looks
// kinds up exactly that way); nullopt for any other name.
std::optional<PluginArgs> NewArgsForPlugin(std::string_view plugin_name);

}  // namespace stowage::config

#pragma GCC visibility pop
