// Validation of a (defaulted) KubeSchedulerConfiguration with upstream's rules and wording
// (pkg/scheduler/apis/config/validation/validation.go and component-base's config validation,
// v1.37.2). Every error names its field path, e.g.
//   profiles[1].schedulerName: Required value
//   leaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`
// and all errors are reported together, joined as upstream's aggregate error prints them.
//
// Rules: clientConnection.burst >= 0; with leader election on, positive durations, leaseDuration
// > renewDeadline, renewDeadline > 1.2 x retryPeriod (client-go's check when the elector is
// built), lock/namespace/name set and resourceLock "leases"; parallelism > 0; at least one
// profile; each with a unique non-empty schedulerName, percentageOfNodesToScore in [0, 100], no
// removed plugins (AzureDiskLimits, CinderLimits, EBSLimits, GCEPDLimits) enabled or configured,
// no repeated pluginConfig name, and valid args; one identical queueSort (with identical args) in
// every profile; podInitialBackoffSeconds > 0 and <= podMaxBackoffSeconds; extenders with a
// positive weight when they prioritize, at most one binder, and unique extended-resource names.
//
// Upstream quirks kept on purpose (a drop-in replacement accepts and rejects the same files):
//   * NodeResourcesFit args are not validated here: upstream's dispatch table keys them under
//     "NodeResourcesFitArgs". The plugin validates them when built (ValidateNodeResourcesFitArgs).
//   * Score weights are not range-checked: 0 means 1, and only the overflow of the total is an
//     error, raised when the framework is built (ExpandPlugins).
//   * A duplicate schedulerName is reported as `Duplicate value: {}` (upstream renders the
//     first occurrence's path, which has no exported fields, as an empty JSON object).
// Unlike upstream, errors come out in a fixed order (upstream walks a Go map for some checks).
#pragma once

#include "pkg/config/field_error.h"
#include "pkg/config/types.h"
#include "stowage/common/status.h"
#include "stowage/plugin_config/features.h"

namespace stowage::config {

// Every problem, in order.
FieldErrors ValidateConfiguration(const KubeSchedulerConfiguration& cfg,
                                  const Features& features = {});

// OK, or InvalidArgument with the aggregated message of ValidateConfiguration.
Status Validate(const KubeSchedulerConfiguration& cfg, const Features& features = {});

}  // namespace stowage::config
