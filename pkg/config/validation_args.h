// Validation of plugin args, as upstream's validation_pluginargs.go (v1.37.2), with its error
// wording and field paths. Each function takes the path of the args object (for a profile's
// pluginConfig that is "profiles[i].pluginConfig[j].args"; plugins validating their own args at
// construction pass an empty path, as upstream passes nil) and returns every problem found.
//
// Unset optional fields are checked as their zero value, as upstream validates the internal
// (converted) types in which a nil pointer has become 0.
#pragma once

#include "pkg/config/field_error.h"
#include "pkg/config/types.h"
#include "stowage/common/status.h"
#include "stowage/plugin_config/features.h"

namespace stowage::config {

// minCandidateNodesPercentage in [0, 100], minCandidateNodesAbsolute >= 0, not both 0.
FieldErrors ValidateDefaultPreemptionArgs(const FieldPath& path, const DefaultPreemptionArgs& a);
// hardPodAffinityWeight in [0, 100].
FieldErrors ValidateInterPodAffinityArgs(const FieldPath& path, const InterPodAffinityArgs& a);
// defaultingType System|List (System needs no constraints); each constraint: maxSkew > 0, a
// valid topologyKey, whenUnsatisfiable DoNotSchedule|ScheduleAnyway, no labelSelector, and no
// repeated {topologyKey, whenUnsatisfiable}.
FieldErrors ValidatePodTopologySpreadArgs(const FieldPath& path, const PodTopologySpreadArgs& a);
// Unique resource names, every weight exactly 1.
FieldErrors ValidateNodeResourcesBalancedAllocationArgs(
    const FieldPath& path, const NodeResourcesBalancedAllocationArgs& a);
// ignoredResources/ignoredResourceGroups are qualified names (groups without '/'); a scoring
// strategy is required, of a known type, with weights in (0, 100], and a valid
// requestedToCapacityRatio shape exactly when the type is RequestedToCapacityRatio.
// Note: Validate() does not call this (upstream's quirk, see validation.h); the NodeResourcesFit
// plugin must call it when it is constructed.
FieldErrors ValidateNodeResourcesFitArgs(const FieldPath& path, const NodeResourcesFitArgs& a);
// addedAffinity must parse as a node selector and preferred scheduling terms.
FieldErrors ValidateNodeAffinityArgs(const FieldPath& path, const NodeAffinityArgs& a);
// bindTimeoutSeconds >= 0; shape valid when StorageCapacityScoring is on, absent otherwise.
FieldErrors ValidateVolumeBindingArgs(const FieldPath& path, const VolumeBindingArgs& a,
                                      const Features& features = {});
// filterTimeout >= 0 and bindingTimeout >= 1s, each allowed only with its feature gates.
FieldErrors ValidateDynamicResourcesArgs(const FieldPath& path, const DynamicResourcesArgs& a,
                                         const Features& features = {});

// The checks upstream's plugin constructors make that configuration validation does not: NewFit
// runs ValidateNodeResourcesFitArgs (Validate skips it, see above). Profiles are built through
// this before their plugins, so a plugin factory trusts its args. The error is the constructor's
// (the joined field errors, paths from the args object).
stowage::Status ValidateArgsOnConstruction(std::string_view plugin, const PluginArgs& args);

// A utilization shape (RequestedToCapacityRatio, VolumeBinding): at least one point,
// utilization strictly increasing within [0, 100], scores within [0, 10].
FieldErrors ValidateFunctionShape(const FieldPath& path,
                                  const std::vector<UtilizationShapePoint>& shape);

}  // namespace stowage::config
