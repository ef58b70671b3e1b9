// NodeResourcesFitArgs → FitOptions. The args arrive defaulted and validated by pkg/config
// (SetDefaults_NodeResourcesFitArgs, and ValidateNodeResourcesFitArgs run where upstream's NewFit
// runs it), so this only translates them.
#include <utility>

#include "pkg/plugins/node_resources/fit.h"

namespace stowage::plugins::node_resources {

FitOptions FitOptionsFromArgs(const config::NodeResourcesFitArgs& args) {
  FitOptions out;
  out.ignored_resources = args.ignored_resources;
  out.ignored_resource_groups = args.ignored_resource_groups;
  // Absent only when the plugin is built without a configuration (FitOptions' defaults stand).
  if (!args.scoring_strategy) return out;
  const config::ScoringStrategy& strategy = *args.scoring_strategy;
  out.resources.clear();
  for (const config::ResourceSpec& r : strategy.resources)
    out.resources.push_back({r.name, r.weight});
  if (strategy.type == config::kMostAllocated) {
    out.strategy = ScoringStrategyType::kMostAllocated;
  } else if (strategy.type == config::kRequestedToCapacityRatio) {
    out.strategy = ScoringStrategyType::kRequestedToCapacityRatio;
    for (const config::UtilizationShapePoint& p : strategy.requested_to_capacity_ratio->shape) {
      out.shape.push_back({p.utilization, p.score});
    }
  }
  return out;
}

}  // namespace stowage::plugins::node_resources
