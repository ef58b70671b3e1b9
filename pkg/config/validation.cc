#include "pkg/config/validation.h"

#include <chrono>
#include <map>
#include <set>
#include <string>

#include "pkg/config/duration.h"
#include "pkg/config/encode.h"
#include "pkg/config/validation_args.h"
#include "stowage/common/clock.h"

namespace stowage::config {
namespace {

std::string Num(int64_t v) { return std::to_string(v); }
std::string Dur(Duration d) { return GoJsonString(FormatDuration(d)); }

void Append(FieldErrors& to, FieldErrors from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Plugins removed from v1; enabling or configuring them is an error.
bool IsRemovedPlugin(std::string_view name) {
  return name == "AzureDiskLimits" || name == "CinderLimits" || name == "EBSLimits" ||
         name == "GCEPDLimits";
}

// Upstream names the version with core/v1's SchemeGroupVersion by mistake, hence "v1".
std::string RemovedPluginDetail() {
  return "was invalid in version \"v1\" (KubeSchedulerConfiguration is version \"" +
         std::string(kGroupVersion) + "\")";
}

// The internal PluginSet has no JSON tags, so upstream prints Go field names.
std::string InternalPluginSetValue(const PluginSet& set) {
  auto list = [](const std::vector<Plugin>& plugins) {
    if (plugins.empty()) return std::string("null");
    std::string out = "[";
    for (size_t i = 0; i < plugins.size(); ++i) {
      if (i > 0) out += ",";
      out += "{\"Name\":" + GoJsonString(plugins[i].name) +
             ",\"Weight\":" + Num(plugins[i].weight.value_or(0)) + "}";
    }
    return out + "]";
  };
  return "{\"Enabled\":" + list(set.enabled) + ",\"Disabled\":" + list(set.disabled) + "}";
}

std::string ArgsValue(const PluginArgs& args) {
  if (std::holds_alternative<std::monostate>(args)) return "null";
  return EncodeArgsJson(args);
}

void ValidateLeaderElection(const LeaderElectionConfiguration& le, FieldErrors& errs) {
  const FieldPath path("leaderElection");
  if (!le.leader_elect.value_or(false)) return;
  if (le.lease_duration <= Duration(0)) {
    errs.push_back(
        Invalid(path.Child("leaseDuration"), Dur(le.lease_duration), "must be greater than zero"));
  }
  if (le.renew_deadline <= Duration(0)) {
    errs.push_back(
        Invalid(path.Child("renewDeadline"), Dur(le.renew_deadline), "must be greater than zero"));
  }
  if (le.retry_period <= Duration(0)) {
    errs.push_back(
        Invalid(path.Child("retryPeriod"), Dur(le.retry_period), "must be greater than zero"));
  }
  if (le.lease_duration <= le.renew_deadline) {
    errs.push_back(Invalid(path.Child("leaseDuration"), Dur(le.renew_deadline),
                           "must be greater than `RenewDeadline`"));
  }
  // Not in upstream's config validation, but client-go's NewLeaderElector refuses it, so
  // kube-scheduler fails at startup all the same; reporting it here names the field.
  const Duration jittered = ScaleDuration(le.retry_period, 1.2);
  if (le.renew_deadline > Duration(0) && le.retry_period > Duration(0) &&
      le.renew_deadline <= jittered) {
    errs.push_back(Invalid(path.Child("renewDeadline"), Dur(le.renew_deadline),
                           "must be greater than retryPeriod*JitterFactor (1.2)"));
  }
  if (le.resource_lock.empty()) errs.push_back(Required(path.Child("resourceLock"), ""));
  if (le.resource_namespace.empty()) errs.push_back(Required(path.Child("resourceNamespace"), ""));
  if (le.resource_name.empty()) errs.push_back(Required(path.Child("resourceName"), ""));
  if (le.resource_lock != "leases") {
    errs.push_back(Invalid(path.Child("resourceLock"), GoQuote(le.resource_lock),
                           "resourceLock value must be \"leases\""));
  }
}

void ValidatePercentage(const FieldPath& path, const std::optional<int32_t>& pct,
                        FieldErrors& errs) {
  if (pct && (*pct < 0 || *pct > 100)) {
    errs.push_back(Invalid(path, Num(*pct), "not in valid range [0-100]"));
  }
}

// Runs validate on args if they are a T, else reports the mismatch as upstream does.
template <typename T, typename F>
FieldErrors Typed(const PluginArgs& args, const FieldPath& path, F&& validate) {
  if (const T* a = std::get_if<T>(&args)) return validate(*a);
  return {Invalid(path, ArgsValue(args), "has to match plugin args")};
}

// The args validators of upstream's dispatch table, keyed as upstream keys them. Plugins not in
// the table (out-of-tree ones among them) have nothing checked.
FieldErrors ValidateArgs(const std::string& name, const PluginArgs& args, const FieldPath& path,
                         const Features& features) {
  if (name == "DefaultPreemption") {
    return Typed<DefaultPreemptionArgs>(
        args, path, [&](const auto& a) { return ValidateDefaultPreemptionArgs(path, a); });
  }
  if (name == "InterPodAffinity") {
    return Typed<InterPodAffinityArgs>(
        args, path, [&](const auto& a) { return ValidateInterPodAffinityArgs(path, a); });
  }
  if (name == "NodeAffinity") {
    return Typed<NodeAffinityArgs>(
        args, path, [&](const auto& a) { return ValidateNodeAffinityArgs(path, a); });
  }
  if (name == "NodeResourcesBalancedAllocation") {
    return Typed<NodeResourcesBalancedAllocationArgs>(args, path, [&](const auto& a) {
      return ValidateNodeResourcesBalancedAllocationArgs(path, a);
    });
  }
  // Upstream's key: it never matches the plugin's real name "NodeResourcesFit".
  if (name == "NodeResourcesFitArgs") {
    return Typed<NodeResourcesFitArgs>(
        args, path, [&](const auto& a) { return ValidateNodeResourcesFitArgs(path, a); });
  }
  if (name == "PodTopologySpread") {
    return Typed<PodTopologySpreadArgs>(
        args, path, [&](const auto& a) { return ValidatePodTopologySpreadArgs(path, a); });
  }
  if (name == "VolumeBinding") {
    return Typed<VolumeBindingArgs>(
        args, path, [&](const auto& a) { return ValidateVolumeBindingArgs(path, a, features); });
  }
  if (name == "DynamicResources") {
    return Typed<DynamicResourcesArgs>(
        args, path, [&](const auto& a) { return ValidateDynamicResourcesArgs(path, a, features); });
  }
  return {};
}

void ValidateProfile(const FieldPath& path, const KubeSchedulerProfile& profile,
                     const Features& features, FieldErrors& errs) {
  if (profile.scheduler_name.value_or("").empty()) {
    errs.push_back(Required(path.Child("schedulerName"), ""));
  }
  ValidatePercentage(path.Child("percentageOfNodesToScore"), profile.percentage_of_nodes_to_score,
                     errs);
  if (profile.plugins) {
    // MultiPoint and the placement points are not checked, as upstream does not.
    const FieldPath plugins = path.Child("plugins");
    for (ExtensionPoint point : kAllExtensionPoints) {
      if (point == ExtensionPoint::kPlacementGenerate || point == ExtensionPoint::kPlacementScore) {
        continue;
      }
      const std::vector<Plugin>& enabled = profile.plugins->Set(point).enabled;
      for (size_t i = 0; i < enabled.size(); ++i) {
        if (IsRemovedPlugin(enabled[i].name)) {
          errs.push_back(Invalid(plugins.Child(ExtensionPointName(point)).Child("enabled").Index(i),
                                 GoQuote(enabled[i].name), RemovedPluginDetail()));
        }
      }
    }
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < profile.plugin_config.size(); ++i) {
    const PluginConfig& pc = profile.plugin_config[i];
    const FieldPath pc_path = path.Child("pluginConfig").Index(i);
    if (!seen.insert(pc.name).second) errs.push_back(Duplicate(pc_path, GoQuote(pc.name)));
    if (IsRemovedPlugin(pc.name)) {
      errs.push_back(Invalid(pc_path, GoQuote(pc.name), RemovedPluginDetail()));
      continue;
    }
    Append(errs, ValidateArgs(pc.name, pc.args, pc_path.Child("args"), features));
  }
}

// All profiles must share profile 0's queueSort plugin set and its args.
void ValidateCommonQueueSort(const std::vector<KubeSchedulerProfile>& profiles, FieldErrors& errs) {
  const FieldPath path("profiles");
  static const PluginSet kEmpty;
  auto queue_sort = [](const KubeSchedulerProfile& p) -> const PluginSet& {
    return p.plugins ? p.plugins->queue_sort : kEmpty;
  };
  const PluginSet& canon = queue_sort(profiles[0]);
  std::string name;
  if (!canon.enabled.empty()) name = canon.enabled[0].name;
  if (canon.enabled.size() > 1) {
    errs.push_back(Invalid(path.Index(0).Child("plugins").Child("queueSort").Child("Enabled"),
                           Num(static_cast<int64_t>(canon.enabled.size())),
                           "only one queue sort plugin can be enabled"));
  }
  PluginArgs canon_args;  // nil unless profile 0 configures its queue sort plugin
  for (const PluginConfig& pc : profiles[0].plugin_config) {
    if (!name.empty() && pc.name == name) canon_args = pc.args;
  }
  for (size_t i = 1; i < profiles.size(); ++i) {
    const PluginSet& current = queue_sort(profiles[i]);
    if (!(current == canon)) {
      errs.push_back(Invalid(path.Index(i).Child("plugins").Child("queueSort"),
                             InternalPluginSetValue(current), "must be the same for all profiles"));
    }
    for (const PluginConfig& pc : profiles[i].plugin_config) {
      if (pc.name == name && !(pc.args == canon_args)) {
        errs.push_back(Invalid(path.Index(i).Child("pluginConfig").Child("args"),
                               ArgsValue(pc.args), "queueSort must be the same for all profiles"));
      }
    }
  }
}

// v1helper.IsExtendedResourceName: a prefixed name outside kubernetes.io/ whose quota form
// ("requests.<name>") is still a qualified name.
bool IsExtendedResourceName(const std::string& name) {
  const bool native =
      name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
  if (native || name.rfind("requests.", 0) == 0) return false;
  return QualifiedNameErrors("requests." + name).empty();
}

void ValidateExtenders(const std::vector<Extender>& extenders, FieldErrors& errs) {
  const FieldPath path("extenders");
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const Extender& e = extenders[i];
    const FieldPath p = path.Index(i);
    if (!e.prioritize_verb.empty() && e.weight <= 0) {
      errs.push_back(
          Invalid(p.Child("weight"), Num(e.weight), "must have a positive weight applied to it"));
    }
    if (!e.bind_verb.empty()) ++binders;
    // Beyond upstream: stowage never talks to an extender over unverified TLS.
    if (e.tls_config && e.tls_config->insecure) {
      errs.push_back(Forbidden(p.Child("tlsConfig").Child("insecure"),
                               "stowage verifies extender certificates: set caFile or caData "
                               "(or rely on the system trust store) instead of insecure"));
    }
    if (e.enable_https && e.url_prefix.rfind("https://", 0) != 0) {
      errs.push_back(Invalid(p.Child("urlPrefix"), GoQuote(e.url_prefix),
                             "must start with https:// when enableHTTPS is true"));
    }
    for (size_t j = 0; j < e.managed_resources.size(); ++j) {
      const std::string& name = e.managed_resources[j].name;
      const FieldPath name_path = p.Child("managedResources").Index(j).Child("name");
      const std::vector<std::string> problems = QualifiedNameErrors(name);
      for (const std::string& msg : problems) {
        errs.push_back(Invalid(name_path, GoJsonString(name), msg));
      }
      if (problems.empty() && !IsExtendedResourceName(name)) {
        errs.push_back(Invalid(name_path, GoQuote(name), "is an invalid extended resource name"));
      }
      if (!managed.insert(name).second) {
        errs.push_back(
            Invalid(name_path, GoQuote(name), "duplicate extender managed resource name"));
      }
    }
  }
  if (binders > 1) {
    errs.push_back(
        Invalid(path, GoQuote("found " + std::to_string(binders) + " extenders implementing bind"),
                "only one extender can implement bind"));
  }
}

}  // namespace

FieldErrors ValidateConfiguration(const KubeSchedulerConfiguration& cfg, const Features& features) {
  FieldErrors errs;
  if (cfg.client_connection.burst < 0) {
    errs.push_back(Invalid(FieldPath("clientConnection").Child("burst"),
                           Num(cfg.client_connection.burst), "must be non-negative"));
  }
  ValidateLeaderElection(cfg.leader_election, errs);
  if (cfg.parallelism.value_or(0) <= 0) {
    errs.push_back(Invalid(FieldPath("parallelism"), Num(cfg.parallelism.value_or(0)),
                           "should be an integer value greater than zero"));
  }
  const FieldPath profiles("profiles");
  if (cfg.profiles.empty()) {
    errs.push_back(Required(profiles, ""));
  } else {
    std::map<std::string, size_t> names;
    for (size_t i = 0; i < cfg.profiles.size(); ++i) {
      const KubeSchedulerProfile& profile = cfg.profiles[i];
      ValidateProfile(profiles.Index(i), profile, features, errs);
      const std::string name = profile.scheduler_name.value_or("");
      if (names.count(name) != 0) {
        // Upstream's value is the earlier field's *field.Path, which JSON renders as {}.
        errs.push_back(Duplicate(profiles.Index(i).Child("schedulerName"), "{}"));
      }
      names[name] = i;
    }
    ValidateCommonQueueSort(cfg.profiles, errs);
  }
  ValidatePercentage(FieldPath("percentageOfNodesToScore"), cfg.percentage_of_nodes_to_score, errs);
  const int64_t initial = cfg.pod_initial_backoff_seconds.value_or(0);
  const int64_t max = cfg.pod_max_backoff_seconds.value_or(0);
  if (initial <= 0) {
    errs.push_back(
        Invalid(FieldPath("podInitialBackoffSeconds"), Num(initial), "must be greater than 0"));
  }
  if (max < initial) {
    errs.push_back(Invalid(FieldPath("podMaxBackoffSeconds"), Num(max),
                           "must be greater than or equal to PodInitialBackoffSeconds"));
  }
  ValidateExtenders(cfg.extenders, errs);
  return errs;
}

Status Validate(const KubeSchedulerConfiguration& cfg, const Features& features) {
  const FieldErrors errs = ValidateConfiguration(cfg, features);
  if (errs.empty()) return OkStatus();
  return InvalidArgumentError(AggregateMessage(errs));
}

}  // namespace stowage::config
