// The plugins a profile runs at each extension point, in order, with their score weights:
// what upstream's framework builds in NewFramework (runtime/framework.go: updatePluginList,
// expandMultiPointPlugins, getValidScoreWeights) from a defaulted profile.
//
// For each extension point the result is:
//   1. plugins enabled explicitly at the point that are also MultiPoint plugins implementing
//      it (an explicit re-configuration: it takes the point's position and weight),
//   2. the MultiPoint plugins implementing the point, in MultiPoint order, minus those the
//      point disables (a "*" there skips MultiPoint expansion for the point altogether),
//   3. the rest of the point's explicitly enabled plugins, in order.
// Score and PlacementScore weights come from the point's own entry if any, else from the
// MultiPoint entry; unset or 0 means 1.
//
// Which points a plugin implements is the plugin code's business, so the caller supplies it
// (the framework registry knows). The function is pure and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "stowage/common/status.h"

namespace stowage::config {

// True if the named plugin implements the extension point.
using ImplementsFn = std::function<bool(std::string_view plugin, ExtensionPoint point)>;
// True if a plugin of that name is registered.
using ExistsFn = std::function<bool(std::string_view plugin)>;

struct ExpandedPlugin {
  std::string name;
  int32_t weight = 0;  // set for Score and PlacementScore entries, 0 elsewhere
  friend bool operator==(const ExpandedPlugin&, const ExpandedPlugin&) = default;
};

struct ExpandedPlugins {
  std::array<std::vector<ExpandedPlugin>, kNumConfigurableExtensionPoints> points;

  const std::vector<ExpandedPlugin>& at(ExtensionPoint point) const {
    return points[static_cast<size_t>(point)];
  }
  std::vector<ExpandedPlugin>& at(ExtensionPoint point) {
    return points[static_cast<size_t>(point)];
  }
  // The names at a point, in order.
  std::vector<std::string> Names(ExtensionPoint point) const;
};

// Expands a defaulted profile. Fails, with upstream's messages, when pluginConfig names a plugin
// twice, when a plugin does not exist
// (checked only if exists is given), is enabled at a point it does not implement or twice at a
// point, when there is not exactly one QueueSort plugin, no Bind plugin, more than one
// PlacementGenerate plugin, or when the score weights could overflow the total score. A profile
// without plugins expands to nothing, without error, as upstream's does.
StatusOr<ExpandedPlugins> ExpandPlugins(const KubeSchedulerProfile& profile,
                                        const ImplementsFn& implements,
                                        const ExistsFn& exists = nullptr);

// The profile as upstream's framework records it once built (WithBuildFrameworkCapturer), which
// is what --write-config-to writes and the "Using component config" log shows: pluginConfig
// keeps only entries with args for plugins the profile enables and the registry has (every
// enabled plugin if exists is null), sorted by name. Apply it to a defaulted profile.
KubeSchedulerProfile CompletedProfile(const KubeSchedulerProfile& profile,
                                      const ExistsFn& exists = nullptr);

}  // namespace stowage::config
