#include "pkg/scheduler/profile.h"

#include <algorithm>
#include <map>
#include <set>

#include "pkg/config/expand.h"

namespace stowage::scheduler {
namespace {

using config::ExtensionPoint;

std::any ToAny(const config::PluginArgs& args) {
  return std::visit(
      [](const auto& a) -> std::any {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else {
          return a;
        }
      },
      args);
}

// Removes the named plugins from every enabled list; returns which were present.
std::set<std::string> Drop(config::Plugins& plugins, const std::set<std::string_view>& names) {
  std::set<std::string> dropped;
  auto strip = [&](config::PluginSet& set) {
    auto& e = set.enabled;
    e.erase(std::remove_if(e.begin(), e.end(),
                           [&](const config::Plugin& p) {
                             if (!names.count(p.name)) return false;
                             dropped.insert(p.name);
                             return true;
                           }),
            e.end());
  };
  strip(plugins.multi_point);
  for (auto point : config::kAllExtensionPoints) strip(plugins.Set(point));
  return dropped;
}

std::vector<framework::PluginSpec> Specs(const config::ExpandedPlugins& e, ExtensionPoint point) {
  std::vector<framework::PluginSpec> out;
  for (const auto& p : e.at(point)) out.push_back({p.name, p.weight > 0 ? p.weight : 1});
  return out;
}

}  // namespace

StatusOr<BuiltProfiles> BuildProfiles(const config::KubeSchedulerConfiguration& cfg,
                                      const framework::Registry& registry,
                                      framework::Handle& handle,
                                      const std::vector<std::string_view>& not_yet_implemented) {
  BuiltProfiles out;
  std::set<std::string_view> missing(not_yet_implemented.begin(), not_yet_implemented.end());
  for (const auto& original : cfg.profiles) {
    config::KubeSchedulerProfile profile = original;
    std::string name = profile.scheduler_name.value_or("default-scheduler");
    std::set<std::string> dropped;
    if (profile.plugins) dropped = Drop(*profile.plugins, missing);
    if (!dropped.empty()) {
      std::string list;
      for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + d;
      out.warnings.push_back("profile \"" + name + "\": plugins not implemented by stowage yet, "
                             "running without them: " + list);
    }
    framework::ProfileSpec spec;
    spec.scheduler_name = name;
    spec.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score;
    for (const auto& pc : profile.plugin_config) spec.args[pc.name] = ToAny(pc.args);

    // Probe one instance per plugin to learn which extension points it implements.
    std::map<std::string, std::unique_ptr<framework::Plugin>, std::less<>> probes;
    Status probe_error;
    auto implements = [&](std::string_view plugin, ExtensionPoint point) {
      auto it = probes.find(plugin);
      if (it == probes.end()) {
        const framework::PluginFactory* f = registry.Find(plugin);
        if (f == nullptr) return false;
        auto args = spec.args.find(plugin);
        static const std::any kNone;
        auto p = (*f)(args == spec.args.end() ? kNone : args->second, handle);
        if (!p.ok()) {
          if (probe_error.ok()) {
            probe_error = p.status().WithPrefix("profile \"" + name + "\": initializing plugin \"" +
                                                std::string(plugin) + "\"");
          }
          return false;
        }
        it = probes.emplace(std::string(plugin), std::move(*p)).first;
      }
      return framework::Implements(*it->second, point);
    };
    auto exists = [&](std::string_view plugin) { return registry.Has(plugin); };
    auto expanded = config::ExpandPlugins(profile, implements, exists);
    if (!probe_error.ok()) return probe_error;
    if (!expanded.ok()) return expanded.status().WithPrefix("profile \"" + name + "\"");
    for (ExtensionPoint point : config::kAllExtensionPoints) {
      spec.at(point) = Specs(*expanded, point);
    }
    out.profiles.push_back(std::move(spec));
  }
  return out;
}

}  // namespace stowage::scheduler
