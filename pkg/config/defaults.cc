#include "pkg/config/defaults.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace stowage::config {
namespace {

using std::chrono::seconds;

const std::vector<ResourceSpec>& DefaultResourceSpec() {
  static const auto* const kSpec = new std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}};
  return *kSpec;
}

constexpr int32_t kMaxCustomPriorityScore = 10;

void Default(DefaultPreemptionArgs& a, const Features&) {
  if (!a.min_candidate_nodes_percentage) a.min_candidate_nodes_percentage = 10;
  if (!a.min_candidate_nodes_absolute) a.min_candidate_nodes_absolute = 100;
}

void Default(InterPodAffinityArgs& a, const Features&) {
  if (!a.hard_pod_affinity_weight) a.hard_pod_affinity_weight = 1;
}

void Default(VolumeBindingArgs& a, const Features& f) {
  if (!a.bind_timeout_seconds) a.bind_timeout_seconds = 600;
  if ((!a.shape || a.shape->empty()) && f.storage_capacity_scoring) {
    a.shape = std::vector<UtilizationShapePoint>{{0, kMaxCustomPriorityScore}, {100, 0}};
  }
}

void Default(NodeResourcesBalancedAllocationArgs& a, const Features&) {
  if (a.resources.empty()) {
    a.resources = DefaultResourceSpec();
    return;
  }
  for (ResourceSpec& r : a.resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

void Default(PodTopologySpreadArgs& a, const Features&) {
  if (a.defaulting_type.empty()) a.defaulting_type = std::string(kSystemDefaulting);
}

void Default(NodeResourcesFitArgs& a, const Features&) {
  if (!a.scoring_strategy) {
    a.scoring_strategy = ScoringStrategy{std::string(kLeastAllocated), DefaultResourceSpec(), {}};
  }
  std::vector<ResourceSpec>& resources = a.scoring_strategy->resources;
  if (resources.empty()) resources = DefaultResourceSpec();
  for (ResourceSpec& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

void Default(DynamicResourcesArgs& a, const Features& f) {
  if (!a.filter_timeout && f.dra_scheduler_filter_timeout) a.filter_timeout = seconds(10);
  if (!a.binding_timeout && f.dra_device_binding_conditions && f.dra_resource_claim_device_status) {
    a.binding_timeout = seconds(600);
  }
}

void Default(NodeAffinityArgs&, const Features&) {}
void Default(RawArgs&, const Features&) {}
void Default(std::monostate&, const Features&) {}

// Every plugin name enabled anywhere in plugins, sorted (upstream's pluginsNames). Upstream's
// list leaves out podGroupPostFilter, so a plugin enabled only there gets no default args (and
// the framework then fails to build it); kept so, to fail as upstream does.
std::set<std::string> EnabledPluginNames(const Plugins& plugins) {
  std::set<std::string> names;
  for (const Plugin& p : plugins.multi_point.enabled) names.insert(p.name);
  for (ExtensionPoint point : kAllExtensionPoints) {
    if (point == ExtensionPoint::kPodGroupPostFilter) continue;
    for (const Plugin& p : plugins.Set(point).enabled) names.insert(p.name);
  }
  return names;
}

void SetProfileDefaults(KubeSchedulerProfile& profile, const Features& features) {
  profile.plugins = MergePlugins(DefaultPlugins(features), profile.plugins);
  std::set<std::string> configured;
  for (PluginConfig& pc : profile.plugin_config) {
    configured.insert(pc.name);
    SetArgsDefaults(pc.args, features);
  }
  for (const std::string& name : EnabledPluginNames(*profile.plugins)) {
    if (configured.count(name) != 0) continue;
    std::optional<PluginArgs> args = NewArgsForPlugin(name);
    if (!args) continue;  // out-of-tree, or a plugin without args
    SetArgsDefaults(*args, features);
    profile.plugin_config.push_back(PluginConfig{name, std::move(*args)});
  }
}

}  // namespace

Plugins DefaultPlugins(const Features& features) {
  Plugins p;
  std::vector<Plugin>& list = p.multi_point.enabled;
  list = {
      {"SchedulingGates", std::nullopt},
      {"PrioritySort", std::nullopt},
      {"NodeName", std::nullopt},
      {"NodeUnschedulable", std::nullopt},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", std::nullopt},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", std::nullopt},
      {"NodeVolumeLimits", std::nullopt},
      {"VolumeBinding", std::nullopt},
      {"VolumeZone", std::nullopt},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      {"DefaultPreemption", std::nullopt},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", std::nullopt},
  };
  // The gated additions, in upstream's order (applyFeatureGates).
  if (features.node_declared_features) list.push_back({"NodeDeclaredFeatures", std::nullopt});
  if (features.in_place_pod_vertical_scaling_scheduler_preemption) {
    // Before NodeResourcesFit, so that it is recorded as the failing plugin on nodes where
    // preemption is off and its queueing hint can retry the pod (appended if Fit is absent).
    auto fit = std::find_if(list.begin(), list.end(),
                            [](const Plugin& p) { return p.name == "NodeResourcesFit"; });
    list.insert(fit, Plugin{"DeferredPodScheduling", std::nullopt});
  }
  if (features.dynamic_resource_allocation) {
    // Before DefaultPreemption: freeing an idle claim beats evicting a pod.
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->name == "DefaultPreemption") {
        list.insert(it, Plugin{"DynamicResources", 2});
        break;
      }
    }
  }
  if (features.generic_workload) list.push_back({"GangScheduling", std::nullopt});
  if (features.topology_aware_workload_scheduling) {
    list.push_back({"TopologyPlacementGenerator", std::nullopt});
    list.push_back({"PodGroupPodsCount", 1});
  }
  return p;
}

PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  std::set<std::string> disabled;
  // Disabled entries keep only their names; the custom ones come first.
  for (const Plugin& p : custom.disabled) {
    out.disabled.push_back(Plugin{p.name, std::nullopt});
    disabled.insert(p.name);
  }
  for (const Plugin& p : defaults.disabled) {
    out.disabled.push_back(Plugin{p.name, std::nullopt});
    disabled.insert(p.name);
  }
  // A name enabled twice maps to its last occurrence, as upstream's map does.
  std::map<std::string, size_t> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  std::set<size_t> replaced;
  if (disabled.count("*") == 0) {
    for (const Plugin& p : defaults.enabled) {
      if (disabled.count(p.name) != 0) continue;
      if (auto it = custom_index.find(p.name); it != custom_index.end()) {
        out.enabled.push_back(custom.enabled[it->second]);  // in place, keeping the order
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(p);
      }
    }
  }
  // The remaining custom plugins, duplicates included (the framework rejects those later).
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (replaced.count(i) == 0) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

Plugins MergePlugins(Plugins defaults, const std::optional<Plugins>& custom) {
  if (!custom) return defaults;
  defaults.multi_point = MergePluginSet(defaults.multi_point, custom->multi_point);
  for (ExtensionPoint point : kAllExtensionPoints) {
    defaults.Set(point) = MergePluginSet(defaults.Set(point), custom->Set(point));
  }
  return defaults;
}

void SetArgsDefaults(PluginArgs& args, const Features& features) {
  std::visit([&](auto& a) { Default(a, features); }, args);
}

void SetDefaults(KubeSchedulerConfiguration& cfg, const Features& features) {
  if (!cfg.parallelism) cfg.parallelism = 16;
  if (cfg.profiles.empty()) cfg.profiles.emplace_back();
  // Only a lone profile gets the default name; validation requires names otherwise.
  if (cfg.profiles.size() == 1 && !cfg.profiles[0].scheduler_name) {
    cfg.profiles[0].scheduler_name = std::string(kDefaultSchedulerName);
  }
  for (KubeSchedulerProfile& profile : cfg.profiles) SetProfileDefaults(profile, features);
  if (!cfg.percentage_of_nodes_to_score) cfg.percentage_of_nodes_to_score = 0;

  LeaderElectionConfiguration& le = cfg.leader_election;
  if (le.resource_lock.empty()) le.resource_lock = "leases";
  if (le.resource_namespace.empty()) le.resource_namespace = "kube-system";
  if (le.resource_name.empty()) le.resource_name = "kube-scheduler";
  // component-base's recommended leader election defaults (zero durations count as unset).
  if (le.lease_duration == Duration(0)) le.lease_duration = seconds(15);
  if (le.renew_deadline == Duration(0)) le.renew_deadline = seconds(10);
  if (le.retry_period == Duration(0)) le.retry_period = seconds(2);
  if (!le.leader_elect) le.leader_elect = true;

  ClientConnectionConfiguration& cc = cfg.client_connection;
  if (cc.content_type.empty()) cc.content_type = "application/vnd.kubernetes.protobuf";
  if (cc.qps == 0.0f) cc.qps = 50;
  if (cc.burst == 0) cc.burst = 100;

  if (!cfg.pod_initial_backoff_seconds) cfg.pod_initial_backoff_seconds = 1;
  if (!cfg.pod_max_backoff_seconds) cfg.pod_max_backoff_seconds = 10;

  if (!cfg.debugging.enable_profiling) cfg.debugging.enable_profiling = true;
  if (*cfg.debugging.enable_profiling && !cfg.debugging.enable_contention_profiling) {
    cfg.debugging.enable_contention_profiling = true;
  }
}

}  // namespace stowage::config
