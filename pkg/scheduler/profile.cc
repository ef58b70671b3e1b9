#include "pkg/scheduler/profile.h"

#include <algorithm>
#include <set>

#include "pkg/common/error_list.h"
#include "pkg/config/expand.h"
#include "pkg/config/validation_args.h"

namespace stowage::scheduler {
namespace {

using config::ExtensionPoint;

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
                                      const std::vector<std::string_view>& not_yet_implemented,
                                      const config::Features& features) {
  BuiltProfiles out;
  std::set<std::string_view> missing(not_yet_implemented.begin(), not_yet_implemented.end());
  for (const auto& original : cfg.profiles) {
    config::KubeSchedulerProfile profile = original;
    std::string name = profile.scheduler_name.value_or("default-scheduler");
    std::set<std::string> dropped;
    if (profile.plugins) dropped = Drop(*profile.plugins, missing);
    if (!dropped.empty()) {
      const std::string list = Join({dropped.begin(), dropped.end()}, ", ");
      out.warnings.push_back("profile \"" + name +
                             "\": plugins not implemented by stowage yet, "
                             "running without them: " +
                             list);
    }
    framework::ProfileSpec spec;
    spec.scheduler_name = name;
    spec.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score;
    spec.features = features;
    for (const auto& pc : profile.plugin_config) spec.args[pc.name] = pc.args;

    // Each plugin is built once, when expansion first asks which points it implements, and
    // handed to the framework with the spec.
    Status build_error;
    auto implements = [&](std::string_view plugin, ExtensionPoint point) {
      auto it = spec.plugins.find(plugin);
      if (it == spec.plugins.end()) {
        if (!registry.Has(plugin) || !build_error.ok()) return false;
        const config::PluginArgs& args = spec.ArgsOf(plugin);
        if (Status s = config::ValidateArgsOnConstruction(plugin, args); !s.ok()) {
          build_error = s.WithPrefix("profile \"" + name + "\": initializing plugin \"" +
                                     std::string(plugin) + "\"");
          return false;
        }
        auto p = registry.Build(name, plugin, args, handle, features);
        if (!p.ok()) {
          build_error = p.status();
          return false;
        }
        it = spec.plugins.emplace(std::string(plugin), std::move(*p)).first;
      }
      return framework::Implements(*it->second, point);
    };
    auto exists = [&](std::string_view plugin) { return registry.Has(plugin); };
    auto expanded = config::ExpandPlugins(profile, implements, exists);
    if (!build_error.ok()) return build_error;
    if (!expanded.ok()) return expanded.status().WithPrefix("profile \"" + name + "\"");
    for (ExtensionPoint point : config::kAllExtensionPoints) {
      spec.at(point) = Specs(*expanded, point);
    }
    out.profiles.push_back(std::move(spec));
  }
  return out;
}

}  // namespace stowage::scheduler
