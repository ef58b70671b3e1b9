// The configuration as kube-scheduler writes it with --write-config-to (and logs at -v=2):
// not the defaulted file itself but what the scheduler made of it once built.
//
// Upstream writes the configuration after scheduler.New, which changes it in four ways:
//   * every extender without an httpTimeout gets the 5s it will run with;
//   * the names of the extenders' managedResources with ignoredByScheduler replace
//     ignoredResources in each profile's NodeResourcesFit args (an error if a profile has none);
//   * each profile is the completed one the framework recorded (CompletedProfile, expand.h);
//   * every plugin weight is set, 0 where it was unset (upstream converts from its internal
//     types, which have no "unset"), so every plugin entry is written with a weight.
// The function is pure and thread-safe.
#pragma once

#include "pkg/config/expand.h"
#include "pkg/config/types.h"
#include "stowage/common/status.h"

namespace stowage::config {

// The timeout an extender runs with when its httpTimeout is zero (upstream's
// DefaultExtenderTimeout).
inline constexpr Duration kDefaultExtenderTimeout = std::chrono::seconds(5);

// Applies the four changes above to a defaulted, validated configuration. exists says which
// plugins the scheduler has, as for CompletedProfile. Fails with upstream's message when
// extenders ignore resources and a profile has no NodeResourcesFit args.
StatusOr<KubeSchedulerConfiguration> WrittenConfig(const KubeSchedulerConfiguration& cfg,
                                                   const ExistsFn& exists = nullptr);

}  // namespace stowage::config
