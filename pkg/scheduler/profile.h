// Turns the profiles of a defaulted, validated KubeSchedulerConfiguration into the frameworks'
// ProfileSpecs: multiPoint expansion (config::ExpandPlugins), score weights, typed args (checked
// as upstream's plugin constructors check them), the feature gates, and the plugins themselves,
// built once each (expansion needs them to learn their points) for Framework::New to take over.
// In-tree plugins stowage does not implement yet are left out of the profile with one warning
// per profile naming them, never silently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/framework/runtime/runtime.h"
#include "stowage/framework/registry.h"

namespace stowage::scheduler {

struct BuiltProfiles {
  std::vector<framework::ProfileSpec> profiles;
  // "profile \"x\": ..." lines, one per profile that lost plugins.
  std::vector<std::string> warnings;
};

StatusOr<BuiltProfiles> BuildProfiles(const config::KubeSchedulerConfiguration& cfg,
                                      const framework::Registry& registry,
                                      framework::Handle& handle,
                                      const std::vector<std::string_view>& not_yet_implemented,
                                      const config::Features& features = {});

}  // namespace stowage::scheduler
