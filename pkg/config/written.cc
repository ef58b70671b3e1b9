#include "pkg/config/written.h"

#include <string>
#include <vector>

namespace stowage::config {
namespace {

// Upstream's buildExtenders: the extender ignored resources take precedence over the args.
Status ApplyExtenderIgnoredResources(KubeSchedulerConfiguration& cfg) {
  std::vector<std::string> ignored;
  for (const Extender& e : cfg.extenders) {
    for (const ExtenderManagedResource& r : e.managed_resources) {
      if (r.ignored_by_scheduler) ignored.push_back(r.name);
    }
  }
  if (ignored.empty()) return OkStatus();
  for (KubeSchedulerProfile& profile : cfg.profiles) {
    bool found = false;
    for (PluginConfig& pc : profile.plugin_config) {
      if (pc.name != "NodeResourcesFit") continue;
      auto* args = std::get_if<NodeResourcesFitArgs>(&pc.args);
      if (args == nullptr) {
        // Only out-of-tree (raw) args can land here; upstream holds them as runtime.Unknown.
        return InvalidArgumentError(
            "couldn't build extenders: want args to be of type NodeResourcesFitArgs, got " +
            std::string(std::holds_alternative<std::monostate>(pc.args) ? "<nil>"
                                                                        : "*runtime.Unknown"));
      }
      args->ignored_resources = ignored;
      found = true;
      break;
    }
    if (!found) {
      return InvalidArgumentError(
          "couldn't build extenders: can't find NodeResourcesFitArgs in plugin config");
    }
  }
  return OkStatus();
}

void SetUnsetWeights(Plugins& plugins) {
  auto zero = [](PluginSet& set) {
    for (Plugin& p : set.enabled) p.weight = p.weight.value_or(0);
    for (Plugin& p : set.disabled) p.weight = p.weight.value_or(0);
  };
  zero(plugins.multi_point);
  for (ExtensionPoint point : kAllExtensionPoints) zero(plugins.Set(point));
}

}  // namespace

StatusOr<KubeSchedulerConfiguration> WrittenConfig(const KubeSchedulerConfiguration& cfg,
                                                   const ExistsFn& exists) {
  KubeSchedulerConfiguration out = cfg;
  for (Extender& e : out.extenders) {
    if (e.http_timeout == Duration(0)) e.http_timeout = kDefaultExtenderTimeout;
  }
  if (Status s = ApplyExtenderIgnoredResources(out); !s.ok()) return s;
  for (KubeSchedulerProfile& profile : out.profiles) {
    profile = CompletedProfile(profile, exists);
    if (profile.plugins) SetUnsetWeights(*profile.plugins);
  }
  return out;
}

}  // namespace stowage::config
