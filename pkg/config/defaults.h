// Defaulting of KubeSchedulerConfiguration, exactly as upstream's v1 defaulting
// (pkg/scheduler/apis/config/v1/defaults.go and default_plugins.go at v1.37.2).
//
// With the 1.37 feature gates, an empty configuration defaults to: parallelism 16; leader
// election on with 15s/10s/2s, lock "leases" on kube-system/kube-scheduler; clientConnection
// qps 50, burst 100, protobuf content type; profiling and contention profiling on;
// percentageOfNodesToScore 0 (adaptive); backoff 1s/10s; and one profile "default-scheduler"
// whose plugins are the 20-entry default MultiPoint list (DefaultPlugins) and whose
// pluginConfig holds defaulted args for each enabled plugin that has an args kind, in
// alphabetical order of plugin name.
//
// Defaulting never fails and is idempotent. It does not validate: run Validate afterwards.
#pragma once

#include <optional>

#include "pkg/config/types.h"
#include "stowage/plugin_config/features.h"

namespace stowage::config {

// Fills every unset field of cfg with its default, merges each profile's plugins into the
// default plugin set, and appends defaulted args for enabled plugins that have none.
void SetDefaults(KubeSchedulerConfiguration& cfg, const Features& features = {});

// The default plugin set: everything is in multi_point, in upstream's order, with the score
// weights TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1, PodTopologySpread 2,
// InterPodAffinity 2, DynamicResources 2, NodeResourcesBalancedAllocation 1, ImageLocality 1.
Plugins DefaultPlugins(const Features& features = {});

// upstream mergePlugins: merges custom into defaults point by point (MultiPoint included).
// Per point: disabled names (and "*" for all) drop defaults; a custom enabled plugin with a
// default's name replaces it in place (taking the custom weight); other custom plugins are
// appended in order. Returns defaults unchanged when custom is unset.
Plugins MergePlugins(Plugins defaults, const std::optional<Plugins>& custom);
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom);

// Sets the defaults of typed args (RawArgs and std::monostate are left alone).
void SetArgsDefaults(PluginArgs& args, const Features& features = {});

}  // namespace stowage::config
