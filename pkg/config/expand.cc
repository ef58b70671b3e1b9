#include "pkg/config/expand.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace stowage::config {
namespace {

// The order in which upstream builds the points (getExtensionPoints), which decides which
// error is reported first.
constexpr std::array<ExtensionPoint, kNumConfigurableExtensionPoints> kBuildOrder = {
    ExtensionPoint::kPreFilter,
    ExtensionPoint::kFilter,
    ExtensionPoint::kPostFilter,
    ExtensionPoint::kReserve,
    ExtensionPoint::kPreScore,
    ExtensionPoint::kScore,
    ExtensionPoint::kPreBind,
    ExtensionPoint::kBind,
    ExtensionPoint::kPostBind,
    ExtensionPoint::kPermit,
    ExtensionPoint::kPreEnqueue,
    ExtensionPoint::kQueueSort,
    ExtensionPoint::kPlacementGenerate,
    ExtensionPoint::kPlacementScore,
    ExtensionPoint::kPodGroupPostFilter,
};
// Every configurable point is built, once.
static_assert([] {
  std::array<bool, kNumConfigurableExtensionPoints> seen{};
  for (ExtensionPoint point : kBuildOrder) {
    const auto i = static_cast<size_t>(point);
    if (i >= seen.size() || seen[i]) return false;
    seen[i] = true;
  }
  return true;
}());

constexpr int64_t kMaxScore = 100;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

Status NotExist(ExtensionPoint point, std::string_view name) {
  return InvalidArgumentError(std::string(ExtensionPointInterfaceName(point)) + " " + Quoted(name) +
                              " does not exist");
}

Status AlreadyRegistered(ExtensionPoint point, std::string_view name) {
  return InvalidArgumentError("plugin " + Quoted(name) + " already registered as " +
                              Quoted(ExtensionPointInterfaceName(point)));
}

bool Contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The plugins explicitly enabled at one point (updatePluginList).
StatusOr<std::vector<std::string>> PointPlugins(ExtensionPoint point, const PluginSet& set,
                                                const ImplementsFn& implements,
                                                const ExistsFn& exists) {
  std::vector<std::string> names;
  for (const Plugin& p : set.enabled) {
    if (exists && !exists(p.name)) return NotExist(point, p.name);
    if (!implements(p.name, point)) {
      return InvalidArgumentError("plugin " + Quoted(p.name) + " does not extend " +
                                  std::string(ExtensionPointInterfaceName(point)) + " plugin");
    }
    if (Contains(names, p.name)) return AlreadyRegistered(point, p.name);
    names.push_back(p.name);
  }
  return names;
}

// Adds MultiPoint plugins to one point (expandMultiPointPlugins), reordering as upstream does.
Status ExpandPoint(ExtensionPoint point, const Plugins& plugins, const ImplementsFn& implements,
                   const ExistsFn& exists, std::vector<std::string>& names) {
  const PluginSet& set = plugins.Set(point);
  std::set<std::string> disabled;
  for (const Plugin& p : set.disabled) disabled.insert(p.name);
  if (disabled.count("*") != 0) return OkStatus();
  std::vector<std::string> overrides;
  std::vector<std::string> from_multi_point;
  for (const Plugin& p : plugins.multi_point.enabled) {
    if (exists && !exists(p.name)) return NotExist(point, p.name);
    if (!implements(p.name, point) || disabled.count(p.name) != 0) continue;
    if (Contains(names, p.name)) {
      // Explicitly configured at the point: that entry wins.
      if (!Contains(overrides, p.name)) overrides.push_back(p.name);
      continue;
    }
    if (Contains(from_multi_point, p.name)) return AlreadyRegistered(point, p.name);
    from_multi_point.push_back(p.name);
  }
  std::vector<std::string> ordered;
  for (const std::string& n : names) {
    if (Contains(overrides, n)) ordered.push_back(n);
  }
  ordered.insert(ordered.end(), from_multi_point.begin(), from_multi_point.end());
  for (const std::string& n : names) {
    if (!Contains(overrides, n)) ordered.push_back(n);
  }
  names = std::move(ordered);
  return OkStatus();
}

// getValidScoreWeights: the point's own entries first, then MultiPoint; the first entry for a
// name wins; 0 means 1. The running total is checked against int64 overflow with Go's
// wrapping arithmetic, so a negative weight makes the next check fail, exactly as upstream.
StatusOr<std::map<std::string, int32_t>> ScoreWeights(ExtensionPoint point, const Plugins& plugins,
                                                      const ImplementsFn& implements) {
  std::map<std::string, int32_t> weights;
  int64_t total = 0;
  auto visit = [&](const std::vector<Plugin>& list) -> Status {
    for (const Plugin& p : list) {
      if (!implements(p.name, point) || weights.count(p.name) != 0) continue;
      int32_t w = p.weight.value_or(0);
      if (w == 0) w = 1;
      weights[p.name] = w;
      const auto headroom =
          static_cast<int64_t>(static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) -
                               static_cast<uint64_t>(total));
      if (int64_t{w} * kMaxScore > headroom) {
        return InvalidArgumentError("total score of Score plugins could overflow");
      }
      total = static_cast<int64_t>(static_cast<uint64_t>(total) +
                                   static_cast<uint64_t>(int64_t{w} * kMaxScore));
    }
    return OkStatus();
  };
  if (Status s = visit(plugins.Set(point).enabled); !s.ok()) return s;
  if (Status s = visit(plugins.multi_point.enabled); !s.ok()) return s;
  return weights;
}

}  // namespace

std::vector<std::string> ExpandedPlugins::Names(ExtensionPoint point) const {
  std::vector<std::string> out;
  for (const ExpandedPlugin& p : at(point)) out.push_back(p.name);
  return out;
}

StatusOr<ExpandedPlugins> ExpandPlugins(const KubeSchedulerProfile& profile,
                                        const ImplementsFn& implements, const ExistsFn& exists) {
  ExpandedPlugins out;
  if (!profile.plugins) return out;
  const Plugins& plugins = *profile.plugins;
  const std::string scheduler_name = Quoted(profile.scheduler_name.value_or(""));
  std::set<std::string> configured;
  for (const PluginConfig& pc : profile.plugin_config) {
    if (!configured.insert(pc.name).second) {
      return InvalidArgumentError("repeated config for plugin " + pc.name);
    }
  }

  std::array<std::vector<std::string>, kNumConfigurableExtensionPoints> names;
  for (ExtensionPoint point : kBuildOrder) {
    StatusOr<std::vector<std::string>> list =
        PointPlugins(point, plugins.Set(point), implements, exists);
    if (!list.ok()) return list.status();
    names[static_cast<size_t>(point)] = std::move(*list);
  }
  if (!plugins.multi_point.enabled.empty()) {
    for (ExtensionPoint point : kBuildOrder) {
      Status s = ExpandPoint(point, plugins, implements, exists, names[static_cast<size_t>(point)]);
      if (!s.ok()) return s;
    }
  }
  auto count = [&](ExtensionPoint p) { return names[static_cast<size_t>(p)].size(); };
  if (count(ExtensionPoint::kQueueSort) != 1) {
    return InvalidArgumentError(
        "only one queue sort plugin required for profile with scheduler name " + scheduler_name +
        ", but got " + std::to_string(count(ExtensionPoint::kQueueSort)));
  }
  if (count(ExtensionPoint::kBind) == 0) {
    return InvalidArgumentError(
        "at least one bind plugin is needed for profile with scheduler "
        "name " +
        scheduler_name);
  }
  if (count(ExtensionPoint::kPlacementGenerate) > 1) {
    return InvalidArgumentError(
        "at most one placement generate plugin is allowed for profile "
        "with scheduler name " +
        scheduler_name);
  }
  StatusOr<std::map<std::string, int32_t>> score =
      ScoreWeights(ExtensionPoint::kScore, plugins, implements);
  if (!score.ok()) return score.status().WithPrefix("score plugins");
  StatusOr<std::map<std::string, int32_t>> placement =
      ScoreWeights(ExtensionPoint::kPlacementScore, plugins, implements);
  if (!placement.ok()) return placement.status().WithPrefix("placement score plugins");

  for (ExtensionPoint point : kAllExtensionPoints) {
    const std::map<std::string, int32_t>* weights = point == ExtensionPoint::kScore ? &*score
                                                    : point == ExtensionPoint::kPlacementScore
                                                        ? &*placement
                                                        : nullptr;
    for (std::string& name : names[static_cast<size_t>(point)]) {
      const int32_t w = weights != nullptr ? weights->at(name) : 0;
      out.at(point).push_back(ExpandedPlugin{std::move(name), w});
    }
  }
  return out;
}

KubeSchedulerProfile CompletedProfile(const KubeSchedulerProfile& profile, const ExistsFn& exists) {
  KubeSchedulerProfile out = profile;
  out.plugin_config.clear();
  if (!profile.plugins) return out;
  std::set<std::string> needed;
  for (const Plugin& p : profile.plugins->multi_point.enabled) needed.insert(p.name);
  for (ExtensionPoint point : kAllExtensionPoints) {
    for (const Plugin& p : profile.plugins->Set(point).enabled) needed.insert(p.name);
  }
  for (const PluginConfig& pc : profile.plugin_config) {
    if (needed.count(pc.name) == 0 || (exists && !exists(pc.name))) continue;
    if (std::holds_alternative<std::monostate>(pc.args)) continue;
    out.plugin_config.push_back(pc);
  }
  std::stable_sort(out.plugin_config.begin(), out.plugin_config.end(),
                   [](const PluginConfig& a, const PluginConfig& b) { return a.name < b.name; });
  return out;
}

}  // namespace stowage::config
