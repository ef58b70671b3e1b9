// NodeResourcesFitArgs → FitOptions: upstream's SetDefaults_NodeResourcesFitArgs followed by
// ValidateNodeResourcesFitArgs, which NewFit runs before building the plugin.
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/labels.h"
#include "pkg/config/types.h"
#include "pkg/plugins/node_resources/fit.h"

namespace stowage::plugins::node_resources {
namespace {

std::string Join(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string out = "[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += ", ";
    out += errors[i];
  }
  return out + "]";
}

// metav1validation.ValidateLabelName: a qualified name.
bool IsQualifiedName(const std::string& name) {
  return api::MakeRequirement(name, "Exists", {}).ok();
}

void ValidateResources(const std::vector<ResourceSpec>& resources,
                       std::vector<std::string>& errors) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errors.push_back("scoringStrategy.resources[" + std::to_string(i) +
                       "].weight: Invalid value: " + std::to_string(r.weight) +
                       ": resource weight of " + r.name + " not in valid range (0, 100]");
    }
  }
}

void ValidateShape(const std::vector<ShapePoint>& shape, std::vector<std::string>& errors) {
  const std::string path = "scoringStrategy.requestedToCapacityRatio.shape";
  if (shape.empty()) {
    errors.push_back(path + ": Required value: at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.push_back(path + "[" + std::to_string(i) + "].utilization: Invalid value: " +
                       std::to_string(shape[i].utilization) +
                       ": values must be sorted in increasing order");
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errors.push_back(at + ".utilization: Invalid value: " +
                       std::to_string(shape[i].utilization) + ": not in valid range [0, 100]");
    }
    if (shape[i].score < 0 || shape[i].score > 10) {
      errors.push_back(at + ".score: Invalid value: " + std::to_string(shape[i].score) +
                       ": not in valid range [0, 10]");
    }
  }
}

StatusOr<FitOptions> FromConfig(const config::NodeResourcesFitArgs& args) {
  FitOptions out;
  std::vector<std::string> errors;
  out.ignored_resources = args.ignored_resources;
  out.ignored_resource_groups = args.ignored_resource_groups;
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    if (!IsQualifiedName(args.ignored_resources[i])) {
      errors.push_back("ignoredResources[" + std::to_string(i) + "]: Invalid value: \"" +
                       args.ignored_resources[i] + "\": must be a qualified name");
    }
  }
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    const std::string at = "ignoredResourceGroups[" + std::to_string(i) + "]";
    if (group.find('/') != std::string::npos) {
      errors.push_back(at + ": Invalid value: \"" + group +
                       "\": resource group name can't contain '/'");
    }
    if (!IsQualifiedName(group)) {
      errors.push_back(at + ": Invalid value: \"" + group + "\": must be a qualified name");
    }
  }

  // Defaulting: no strategy means LeastAllocated; no resources means cpu and memory; weight 0
  // means 1.
  config::ScoringStrategy strategy;
  if (args.scoring_strategy) {
    strategy = *args.scoring_strategy;
  } else {
    strategy.type = std::string(config::kLeastAllocated);
  }
  out.resources.clear();
  for (const config::ResourceSpec& r : strategy.resources) {
    out.resources.push_back({r.name, r.weight == 0 ? 1 : r.weight});
  }
  if (out.resources.empty()) out.resources = DefaultResources();

  if (strategy.type == config::kLeastAllocated) {
    out.strategy = ScoringStrategyType::kLeastAllocated;
  } else if (strategy.type == config::kMostAllocated) {
    out.strategy = ScoringStrategyType::kMostAllocated;
  } else if (strategy.type == config::kRequestedToCapacityRatio) {
    out.strategy = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errors.push_back("scoringStrategy.type: Unsupported value: \"" + strategy.type +
                     "\": supported values: \"LeastAllocated\", \"MostAllocated\", "
                     "\"RequestedToCapacityRatio\"");
  }
  ValidateResources(out.resources, errors);
  if (strategy.type == config::kRequestedToCapacityRatio) {
    if (!strategy.requested_to_capacity_ratio) {
      errors.push_back(
          "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when "
          "type is RequestedToCapacityRatio");
    } else {
      for (const config::UtilizationShapePoint& p : strategy.requested_to_capacity_ratio->shape) {
        out.shape.push_back({p.utilization, p.score});
      }
      ValidateShape(out.shape, errors);
    }
  } else if (strategy.requested_to_capacity_ratio) {
    errors.push_back(
        "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not "
        "RequestedToCapacityRatio");
  }
  if (!errors.empty()) return InvalidArgumentError(Join(errors));
  return out;
}

}  // namespace

StatusOr<FitOptions> FitOptionsFromArgs(const std::any& args) {
  if (!args.has_value()) return FitOptions{};
  if (const auto* typed = std::any_cast<config::NodeResourcesFitArgs>(&args)) {
    return FromConfig(*typed);
  }
  if (const auto* options = std::any_cast<FitOptions>(&args)) return *options;
  return InvalidArgumentError("want args to be of type NodeResourcesFitArgs, got " +
                              std::string(args.type().name()));
}

}  // namespace stowage::plugins::node_resources
