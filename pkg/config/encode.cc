#include "pkg/config/encode.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "pkg/common/file.h"
#include "pkg/config/duration.h"
#include "pkg/config/yaml_emitter.h"

namespace stowage::config {
namespace {

using json = nlohmann::json;

// A float32 as Go's encoder writes it: the shortest text that reads back as the same float32.
json Float32(float f) {
  if (std::trunc(f) == f && std::fabs(f) < 1e15f) return static_cast<int64_t>(f);
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), f);
  double d = 0;
  std::from_chars(buf, end, d);
  return d;
}

json Dur(Duration d) { return FormatDuration(d); }

template <typename T>
void SetIf(json& obj, const char* key, const std::optional<T>& v) {
  if (v) obj[key] = *v;
}

json Strings(const std::vector<std::string>& list) { return list; }

// --- core/v1 types ---------------------------------------------------------------------------

json ToJson(const api::LabelSelector& s) {
  json out = json::object();
  if (!s.match_labels.empty()) {
    json labels = json::object();
    for (const auto& [k, v] : s.match_labels.entries()) labels[k] = v;
    out["matchLabels"] = labels;
  }
  if (!s.match_expressions.empty()) {
    json exprs = json::array();
    for (const api::LabelSelectorRequirement& r : s.match_expressions) {
      json e = {{"key", r.key}, {"operator", r.op}};
      if (!r.values.empty()) e["values"] = Strings(r.values);
      exprs.push_back(e);
    }
    out["matchExpressions"] = exprs;
  }
  return out;
}

json ToJson(const api::TopologySpreadConstraint& c) {
  json out = {{"maxSkew", c.max_skew},
              {"topologyKey", c.topology_key},
              {"whenUnsatisfiable", c.when_unsatisfiable}};
  if (c.label_selector) out["labelSelector"] = ToJson(*c.label_selector);
  SetIf(out, "minDomains", c.min_domains);
  SetIf(out, "nodeAffinityPolicy", c.node_affinity_policy);
  SetIf(out, "nodeTaintsPolicy", c.node_taints_policy);
  if (!c.match_label_keys.empty()) out["matchLabelKeys"] = Strings(c.match_label_keys);
  return out;
}

json ToJson(const api::NodeSelectorTerm& t) {
  json out = json::object();
  auto list = [](const std::vector<api::NodeSelectorRequirement>& reqs) {
    json arr = json::array();
    for (const api::NodeSelectorRequirement& r : reqs) {
      json e = {{"key", r.key}, {"operator", r.op}};
      if (!r.values.empty()) e["values"] = Strings(r.values);
      arr.push_back(e);
    }
    return arr;
  };
  if (!t.match_expressions.empty()) out["matchExpressions"] = list(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = list(t.match_fields);
  return out;
}

json ToJson(const api::NodeAffinity& a) {
  json out = json::object();
  if (a.required) {
    json terms = json::array();
    for (const api::NodeSelectorTerm& t : a.required->terms) terms.push_back(ToJson(t));
    out["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  if (!a.preferred.empty()) {
    json terms = json::array();
    for (const api::PreferredSchedulingTerm& t : a.preferred) {
      terms.push_back({{"weight", t.weight}, {"preference", ToJson(t.preference)}});
    }
    out["preferredDuringSchedulingIgnoredDuringExecution"] = terms;
  }
  return out;
}

// --- args ------------------------------------------------------------------------------------

json Resources(const std::vector<ResourceSpec>& resources) {
  json arr = json::array();
  for (const ResourceSpec& r : resources) {
    json e = {{"name", r.name}};
    if (r.weight != 0) e["weight"] = r.weight;
    arr.push_back(e);
  }
  return arr;
}

json Shape(const std::vector<UtilizationShapePoint>& shape) {
  json arr = json::array();
  for (const UtilizationShapePoint& p : shape) {
    arr.push_back({{"utilization", p.utilization}, {"score", p.score}});
  }
  return arr;
}

json Fields(std::monostate) { return nullptr; }

json Fields(const RawArgs& a) {
  json parsed = json::parse(a.json, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json(a.json) : parsed;
}

json Fields(const DefaultPreemptionArgs& a) {
  json out = json::object();
  SetIf(out, "minCandidateNodesPercentage", a.min_candidate_nodes_percentage);
  SetIf(out, "minCandidateNodesAbsolute", a.min_candidate_nodes_absolute);
  return out;
}

json Fields(const InterPodAffinityArgs& a) {
  json out = {{"ignorePreferredTermsOfExistingPods", a.ignore_preferred_terms_of_existing_pods}};
  SetIf(out, "hardPodAffinityWeight", a.hard_pod_affinity_weight);
  return out;
}

json Fields(const NodeResourcesFitArgs& a) {
  json out = json::object();
  if (!a.ignored_resources.empty()) out["ignoredResources"] = Strings(a.ignored_resources);
  if (!a.ignored_resource_groups.empty()) {
    out["ignoredResourceGroups"] = Strings(a.ignored_resource_groups);
  }
  if (a.scoring_strategy) {
    const ScoringStrategy& s = *a.scoring_strategy;
    json strategy = json::object();
    if (!s.type.empty()) strategy["type"] = s.type;
    if (!s.resources.empty()) strategy["resources"] = Resources(s.resources);
    if (s.requested_to_capacity_ratio) {
      json ratio = json::object();
      if (!s.requested_to_capacity_ratio->shape.empty()) {
        ratio["shape"] = Shape(s.requested_to_capacity_ratio->shape);
      }
      strategy["requestedToCapacityRatio"] = ratio;
    }
    out["scoringStrategy"] = strategy;
  }
  return out;
}

json Fields(const PodTopologySpreadArgs& a) {
  json out = json::object();
  if (!a.default_constraints.empty()) {
    json arr = json::array();
    for (const api::TopologySpreadConstraint& c : a.default_constraints) arr.push_back(ToJson(c));
    out["defaultConstraints"] = arr;
  }
  if (!a.defaulting_type.empty()) out["defaultingType"] = a.defaulting_type;
  return out;
}

json Fields(const NodeResourcesBalancedAllocationArgs& a) {
  json out = json::object();
  if (!a.resources.empty()) out["resources"] = Resources(a.resources);
  return out;
}

json Fields(const VolumeBindingArgs& a) {
  json out = json::object();
  SetIf(out, "bindTimeoutSeconds", a.bind_timeout_seconds);
  // Written even when empty: an empty shape and no shape validate differently.
  if (a.shape) out["shape"] = Shape(*a.shape);
  return out;
}

json Fields(const NodeAffinityArgs& a) {
  json out = json::object();
  if (a.added_affinity) out["addedAffinity"] = ToJson(*a.added_affinity);
  return out;
}

json Fields(const DynamicResourcesArgs& a) {
  // filterTimeout has no omitempty upstream, so an unset value is written as null.
  json out = {{"filterTimeout", a.filter_timeout ? Dur(*a.filter_timeout) : json(nullptr)}};
  if (a.binding_timeout) out["bindingTimeout"] = Dur(*a.binding_timeout);
  return out;
}

json ArgsToJson(const PluginArgs& args) {
  json out = std::visit([](const auto& a) { return Fields(a); }, args);
  if (const std::string_view kind = ArgsKind(args); !kind.empty()) {
    out["apiVersion"] = kGroupVersion;
    out["kind"] = kind;
  }
  return out;
}

// --- configuration ---------------------------------------------------------------------------

json ToJson(const PluginSet& set) {
  json out = json::object();
  auto list = [](const std::vector<Plugin>& plugins) {
    json arr = json::array();
    for (const Plugin& p : plugins) {
      json e = {{"name", p.name}};
      SetIf(e, "weight", p.weight);
      arr.push_back(e);
    }
    return arr;
  };
  if (!set.enabled.empty()) out["enabled"] = list(set.enabled);
  if (!set.disabled.empty()) out["disabled"] = list(set.disabled);
  return out;
}

json ToJson(const KubeSchedulerProfile& p) {
  json out = json::object();
  SetIf(out, "schedulerName", p.scheduler_name);
  SetIf(out, "percentageOfNodesToScore", p.percentage_of_nodes_to_score);
  if (p.plugins) {
    json plugins = {{"multiPoint", ToJson(p.plugins->multi_point)}};
    for (ExtensionPoint point : kAllExtensionPoints) {
      plugins[std::string(ExtensionPointName(point))] = ToJson(p.plugins->Set(point));
    }
    out["plugins"] = plugins;
  }
  if (!p.plugin_config.empty()) {
    json arr = json::array();
    for (const PluginConfig& pc : p.plugin_config) {
      arr.push_back({{"name", pc.name}, {"args", ArgsToJson(pc.args)}});
    }
    out["pluginConfig"] = arr;
  }
  return out;
}

json ToJson(const Extender& e) {
  json out = {{"urlPrefix", e.url_prefix}, {"httpTimeout", Dur(e.http_timeout)}};
  auto set_string = [&](const char* key, const std::string& v) {
    if (!v.empty()) out[key] = v;
  };
  set_string("filterVerb", e.filter_verb);
  set_string("preemptVerb", e.preempt_verb);
  set_string("prioritizeVerb", e.prioritize_verb);
  set_string("bindVerb", e.bind_verb);
  if (e.weight != 0) out["weight"] = e.weight;
  if (e.enable_https) out["enableHTTPS"] = true;
  if (e.node_cache_capable) out["nodeCacheCapable"] = true;
  if (e.ignorable) out["ignorable"] = true;
  if (e.tls_config) {
    const ExtenderTLSConfig& t = *e.tls_config;
    json tls = json::object();
    if (t.insecure) tls["insecure"] = true;
    auto set_tls = [&](const char* key, const std::string& v, bool bytes) {
      if (!v.empty()) tls[key] = bytes ? Base64Encode(v) : v;
    };
    set_tls("serverName", t.server_name, false);
    set_tls("certFile", t.cert_file, false);
    set_tls("keyFile", t.key_file, false);
    set_tls("caFile", t.ca_file, false);
    set_tls("certData", t.cert_data, true);
    set_tls("keyData", t.key_data, true);
    set_tls("caData", t.ca_data, true);
    out["tlsConfig"] = tls;
  }
  if (!e.managed_resources.empty()) {
    json arr = json::array();
    for (const ExtenderManagedResource& r : e.managed_resources) {
      json m = {{"name", r.name}};
      if (r.ignored_by_scheduler) m["ignoredByScheduler"] = true;
      arr.push_back(m);
    }
    out["managedResources"] = arr;
  }
  return out;
}

json ToJson(const KubeSchedulerConfiguration& cfg) {
  const LeaderElectionConfiguration& le = cfg.leader_election;
  const ClientConnectionConfiguration& cc = cfg.client_connection;
  json out = {
      {"apiVersion", kGroupVersion},
      {"kind", kKind},
      {"leaderElection",
       {{"leaderElect", le.leader_elect ? json(*le.leader_elect) : json(nullptr)},
        {"leaseDuration", Dur(le.lease_duration)},
        {"renewDeadline", Dur(le.renew_deadline)},
        {"retryPeriod", Dur(le.retry_period)},
        {"resourceLock", le.resource_lock},
        {"resourceName", le.resource_name},
        {"resourceNamespace", le.resource_namespace}}},
      {"clientConnection",
       {{"kubeconfig", cc.kubeconfig},
        {"acceptContentTypes", cc.accept_content_types},
        {"contentType", cc.content_type},
        {"qps", Float32(cc.qps)},
        {"burst", cc.burst}}},
  };
  SetIf(out, "parallelism", cfg.parallelism);
  SetIf(out, "enableProfiling", cfg.debugging.enable_profiling);
  SetIf(out, "enableContentionProfiling", cfg.debugging.enable_contention_profiling);
  SetIf(out, "percentageOfNodesToScore", cfg.percentage_of_nodes_to_score);
  SetIf(out, "podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds);
  SetIf(out, "podMaxBackoffSeconds", cfg.pod_max_backoff_seconds);
  if (!cfg.profiles.empty()) {
    json arr = json::array();
    for (const KubeSchedulerProfile& p : cfg.profiles) arr.push_back(ToJson(p));
    out["profiles"] = arr;
  }
  if (!cfg.extenders.empty()) {
    json arr = json::array();
    for (const Extender& e : cfg.extenders) arr.push_back(ToJson(e));
    out["extenders"] = arr;
  }
  if (cfg.delay_cache_until_active) out["delayCacheUntilActive"] = true;
  return out;
}

}  // namespace

std::string EncodeYaml(const KubeSchedulerConfiguration& cfg) {
  return internal::EmitYaml(ToJson(cfg));
}

// Invalid UTF-8 is replaced rather than thrown on.
std::string EncodeJson(const KubeSchedulerConfiguration& cfg) {
  return ToJson(cfg).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string EncodeArgsJson(const PluginArgs& args) {
  return ArgsToJson(args).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace stowage::config
