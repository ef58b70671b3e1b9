// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as plain C++ structs.
//
// The structs mirror the versioned v1 API (k8s.io/kube-scheduler/config/v1), not upstream's
// internal types: a field that is a pointer in v1 (and so can be "unset") is a std::optional
// here, because defaulting (defaults.h) must tell "absent" from "zero". Member names are the
// JSON names in snake_case (`podInitialBackoffSeconds` is `pod_initial_backoff_seconds`).
// Durations are Go time.Duration values, held as std::chrono::nanoseconds (duration.h parses
// and prints Go's "1h2m3.5s" syntax).
//
// The pipeline is the upstream one: load.h decodes a file strictly, SetDefaults (defaults.h)
// fills in defaults and the default plugin set, Validate (validation.h) checks the result, and
// ExpandPlugins (expand.h) computes the per-extension-point plugin lists a profile runs.
// EncodeYaml (encode.h) writes a configuration back out.
//
// Plugin args are a std::variant: one typed struct per in-tree args kind (the 8 kinds upstream
// registers), RawArgs holding the JSON text of an out-of-tree plugin's args, or std::monostate
// when a pluginConfig entry has no args at all.
//
// These are value types with no internal synchronisation; a configuration is built once at
// startup and then only read, which is safe from any number of threads.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/framework/extension_point.h"

namespace stowage::config {

// apiVersion and kind of the only served version.
inline constexpr std::string_view kGroupVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKind = "KubeSchedulerConfiguration";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// A Go time.Duration.
using Duration = std::chrono::nanoseconds;

// The extension points a profile configures plugins for, MultiPoint excluded: the framework's
// one table (pkg/framework/extension_point.h), of which config uses the configurable part.
using framework::ExtensionPoint;
inline constexpr size_t kNumExtensionPoints = framework::kNumConfigurableExtensionPoints;
inline constexpr const auto& kAllExtensionPoints = framework::kConfigurableExtensionPoints;

// The field name of the point in `plugins` ("preFilter").
constexpr std::string_view ExtensionPointName(ExtensionPoint point) {
  return framework::Info(point).field;
}
// The name of upstream's Go interface for the point ("PreFilterPlugin"), used in the framework
// errors that ExpandPlugins reproduces.
constexpr std::string_view ExtensionPointInterfaceName(ExtensionPoint point) {
  return framework::Info(point).interface_name;
}

// --- plugins ---------------------------------------------------------------------------------

struct Plugin {
  std::string name;
  // Only Score and PlacementScore use it; unset or 0 means 1 there.
  std::optional<int32_t> weight;
  friend bool operator==(const Plugin&, const Plugin&) = default;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // {name: "*"} disables every default plugin of the point
  friend bool operator==(const PluginSet&, const PluginSet&) = default;
};

struct Plugins {
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;
  // Plugins enabled for every extension point they implement.
  PluginSet multi_point;
  // Used only by the PodGroup scheduling cycle (TopologyAwareWorkloadScheduling, alpha).
  PluginSet placement_generate;
  PluginSet placement_score;
  // Run when a PodGroup cannot be scheduled, as PostFilter is for a pod (GenericWorkload).
  PluginSet pod_group_post_filter;

  PluginSet& Set(ExtensionPoint point);
  const PluginSet& Set(ExtensionPoint point) const;
  friend bool operator==(const Plugins&, const Plugins&) = default;
};

// --- plugin args (k8s.io/kube-scheduler/config/v1 types_pluginargs.go) -----------------------

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

// The kind of typed args ("NodeResourcesFitArgs"); empty for RawArgs and std::monostate.
std::string_view ArgsKind(const PluginArgs& args);
// Empty typed args for a plugin whose name plus "Args" is an in-tree args kind (upstream looks
// kinds up exactly that way); nullopt for any other name.
std::optional<PluginArgs> NewArgsForPlugin(std::string_view plugin_name);

struct PluginConfig {
  std::string name;
  PluginArgs args;
  friend bool operator==(const PluginConfig&, const PluginConfig&) = default;
};

struct KubeSchedulerProfile {
  // Defaulted to "default-scheduler" only when it is the only profile.
  std::optional<std::string> scheduler_name;
  // Overrides the global value when set.
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::optional<Plugins> plugins;
  std::vector<PluginConfig> plugin_config;
  friend bool operator==(const KubeSchedulerProfile&, const KubeSchedulerProfile&) = default;
};

// --- component-base configuration ------------------------------------------------------------

struct LeaderElectionConfiguration {
  std::optional<bool> leader_elect;  // default true
  Duration lease_duration{0};        // default 15s (zero means unset)
  Duration renew_deadline{0};        // default 10s
  Duration retry_period{0};          // default 2s
  std::string resource_lock;         // default "leases", the only valid value
  std::string resource_name;         // default "kube-scheduler"
  std::string resource_namespace;    // default "kube-system"
  friend bool operator==(const LeaderElectionConfiguration&,
                         const LeaderElectionConfiguration&) = default;
};

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type;  // default "application/vnd.kubernetes.protobuf"
  float qps = 0;             // default 50
  int32_t burst = 0;         // default 100
  friend bool operator==(const ClientConnectionConfiguration&,
                         const ClientConnectionConfiguration&) = default;
};

// Inlined at the top level of the file (enableProfiling, enableContentionProfiling).
struct DebuggingConfiguration {
  std::optional<bool> enable_profiling;             // default true
  std::optional<bool> enable_contention_profiling;  // default true when profiling is on
  friend bool operator==(const DebuggingConfiguration&, const DebuggingConfiguration&) = default;
};

// --- extenders -------------------------------------------------------------------------------

struct ExtenderTLSConfig {
  bool insecure = false;
  std::string server_name;
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
  // PEM bytes; base64 in the file.
  std::string cert_data;
  std::string key_data;
  std::string ca_data;
  friend bool operator==(const ExtenderTLSConfig&, const ExtenderTLSConfig&) = default;
};

struct ExtenderManagedResource {
  std::string name;
  bool ignored_by_scheduler = false;
  friend bool operator==(const ExtenderManagedResource&,
                         const ExtenderManagedResource&) = default;
};

struct Extender {
  std::string url_prefix;
  std::string filter_verb;
  std::string preempt_verb;
  std::string prioritize_verb;
  int64_t weight = 0;
  std::string bind_verb;
  bool enable_https = false;
  std::optional<ExtenderTLSConfig> tls_config;
  Duration http_timeout{0};  // zero: the runtime default of 5s applies (not API defaulting)
  bool node_cache_capable = false;
  std::vector<ExtenderManagedResource> managed_resources;
  bool ignorable = false;
  friend bool operator==(const Extender&, const Extender&) = default;
};

// --- the configuration -----------------------------------------------------------------------

// Note: healthzBindAddress and metricsBindAddress no longer exist in v1; load.h rejects them
// as unknown fields, as upstream's strict decoding does.
struct KubeSchedulerConfiguration {
  std::optional<int32_t> parallelism;  // default 16
  LeaderElectionConfiguration leader_election;
  ClientConnectionConfiguration client_connection;
  DebuggingConfiguration debugging;
  // Defaulted to 0, which means "adaptive" (the scheduler picks a percentage by cluster size).
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::optional<int64_t> pod_initial_backoff_seconds;  // default 1
  std::optional<int64_t> pod_max_backoff_seconds;      // default 10
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delay_cache_until_active = false;
  friend bool operator==(const KubeSchedulerConfiguration&,
                         const KubeSchedulerConfiguration&) = default;
};

}  // namespace stowage::config
