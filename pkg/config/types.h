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
// Plugin args (PluginArgs, a std::variant of the typed in-tree kinds, RawArgs and "none") live in
// stowage/plugin_config/args.h, a target of their own that plugins link without the rest of config.
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

#include "stowage/api/types.h"
#include "stowage/plugin_config/args.h"
#include "stowage/plugin_config/extension_point.h"

namespace stowage::config {

// apiVersion and kind of the only served version.
inline constexpr std::string_view kGroupVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKind = "KubeSchedulerConfiguration";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// The extension points a profile configures plugins for, MultiPoint excluded: the framework's
// one table (stowage/plugin_config/extension_point.h), of which config uses the configurable part.
using framework::ExtensionPoint;
using framework::kNumConfigurableExtensionPoints;
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
  friend bool operator==(const ExtenderManagedResource&, const ExtenderManagedResource&) = default;
};

// The most bytes of an extender's answer stowage reads, unless --extender-max-response-bytes
// raises it (it cannot lower it). Upstream sets no limit; answers are a few hundred KiB even
// for thousands of nodes (names, scores, messages), and the one answer that grows with the
// nodes, a filter answer without nodeCacheCapable, may always be four times its request.
inline constexpr int64_t kDefaultExtenderMaxResponseBytes = 16 << 20;

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
