#include "pkg/config/validation_args.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "pkg/common/error_list.h"
#include "pkg/common/strconv.h"
#include "pkg/config/duration.h"

namespace stowage::config {
namespace {

std::string Num(int64_t v) { return std::to_string(v); }

// metav1validation.ValidateLabelName.
void ValidateLabelName(const std::string& name, const FieldPath& path, FieldErrors& errs) {
  for (std::string& msg : QualifiedNameErrors(name)) {
    errs.push_back(Invalid(path, GoQuote(name), std::move(msg)));
  }
}

void Append(FieldErrors& to, FieldErrors from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// The internal UtilizationShapePoint has no JSON tags, so upstream prints Go field names.
std::string ShapeValue(const std::vector<UtilizationShapePoint>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ",";
    out +=
        "{\"Utilization\":" + Num(shape[i].utilization) + ",\"Score\":" + Num(shape[i].score) + "}";
  }
  return out + "]";
}

void ValidateResources(const std::vector<ResourceSpec>& resources, const FieldPath& path,
                       FieldErrors& errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.push_back(Invalid(path.Index(i).Child("weight"), Num(r.weight),
                             "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
}

// labels.NewRequirement's checks for one node selector requirement (matchExpressions).
void ValidateLabelRequirement(const api::NodeSelectorRequirement& r, const FieldPath& path,
                              FieldErrors& errs) {
  static const std::vector<std::string_view> kOps = {"In",           "NotIn", "Exists",
                                                     "DoesNotExist", "Gt",    "Lt"};
  if (std::find(kOps.begin(), kOps.end(), r.op) == kOps.end()) {
    errs.push_back(NotSupported(path.Child("operator"), GoJsonString(r.op), kOps));
    return;
  }
  if (std::vector<std::string> key_errs = QualifiedNameErrors(r.key); !key_errs.empty()) {
    errs.push_back(Invalid(path.Child("key"), GoQuote(r.key), Join(key_errs, "; ")));
  }
  const FieldPath values = path.Child("values");
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) {
      errs.push_back(Invalid(values, JsonList(r.values),
                             "for 'in', 'notin' operators, values set can't be empty"));
    }
  } else if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) {
      errs.push_back(Invalid(values, JsonList(r.values),
                             "values set must be empty for exists and does not exist"));
    }
  } else {
    if (r.values.size() != 1) {
      errs.push_back(Invalid(values, JsonList(r.values),
                             "for 'Gt', 'Lt' operators, exactly one value is required"));
    }
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (!ParseInt64(r.values[i])) {
        errs.push_back(Invalid(values.Index(i), GoQuote(r.values[i]),
                               "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    }
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    if (std::vector<std::string> v = LabelValueErrors(r.values[i]); !v.empty()) {
      errs.push_back(Invalid(values.Index(i).Key(r.key), GoQuote(r.values[i]), Join(v, "; ")));
    }
  }
}

// nodeaffinity's newNodeSelectorTerm: matchExpressions as label requirements, matchFields as
// one-value In/NotIn field requirements.
void ValidateTerm(const api::NodeSelectorTerm& term, const FieldPath& path, FieldErrors& errs) {
  const FieldPath exprs = path.Child("matchExpressions");
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    ValidateLabelRequirement(term.match_expressions[i], exprs.Index(i), errs);
  }
  const FieldPath fields = path.Child("matchFields");
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    const api::NodeSelectorRequirement& r = term.match_fields[i];
    const FieldPath p = fields.Index(i);
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.size() != 1) {
        errs.push_back(Invalid(p.Child("values"), JsonList(r.values), "must have one element"));
      }
    } else {
      errs.push_back(NotSupported(p.Child("operator"), GoJsonString(r.op), {"In", "NotIn"}));
    }
  }
}

bool EmptyTerm(const api::NodeSelectorTerm& t) {
  return t.match_expressions.empty() && t.match_fields.empty();
}

}  // namespace

FieldErrors ValidateDefaultPreemptionArgs(const FieldPath& path, const DefaultPreemptionArgs& a) {
  FieldErrors errs;
  const int32_t pct = a.min_candidate_nodes_percentage.value_or(0);
  const int32_t abs = a.min_candidate_nodes_absolute.value_or(0);
  const FieldPath pct_path = path.Child("minCandidateNodesPercentage");
  const FieldPath abs_path = path.Child("minCandidateNodesAbsolute");
  if (pct < 0 || pct > 100)
    errs.push_back(Invalid(pct_path, Num(pct), "not in valid range [0, 100]"));
  if (abs < 0) errs.push_back(Invalid(abs_path, Num(abs), "not in valid range [0, inf)"));
  if (pct == 0 && abs == 0) {
    errs.push_back(Invalid(pct_path, Num(pct),
                           "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errs.push_back(Invalid(abs_path, Num(abs),
                           "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errs;
}

FieldErrors ValidateInterPodAffinityArgs(const FieldPath& path, const InterPodAffinityArgs& a) {
  const int32_t w = a.hard_pod_affinity_weight.value_or(0);
  if (w >= 0 && w <= 100) return {};
  return {Invalid(path.Child("hardPodAffinityWeight"), Num(w), "not in valid range [0, 100]")};
}

FieldErrors ValidatePodTopologySpreadArgs(const FieldPath& path, const PodTopologySpreadArgs& a) {
  FieldErrors errs;
  const FieldPath type_path = path.Child("defaultingType");
  if (a.defaulting_type != kSystemDefaulting && a.defaulting_type != kListDefaulting) {
    errs.push_back(NotSupported(type_path, GoJsonString(a.defaulting_type),
                                {kSystemDefaulting, kListDefaulting}));
  } else if (a.defaulting_type == kSystemDefaulting && !a.default_constraints.empty()) {
    errs.push_back(Invalid(type_path, GoJsonString(a.defaulting_type),
                           "when .defaultConstraints are not empty"));
  }
  const FieldPath constraints = path.Child("defaultConstraints");
  for (size_t i = 0; i < a.default_constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = a.default_constraints[i];
    const FieldPath p = constraints.Index(i);
    if (c.max_skew <= 0) {
      errs.push_back(Invalid(p.Child("maxSkew"), Num(c.max_skew), "not in valid range (0, inf)"));
    }
    if (c.topology_key.empty()) {
      errs.push_back(Required(p.Child("topologyKey"), "can not be empty"));
    } else {
      ValidateLabelName(c.topology_key, p.Child("topologyKey"), errs);
    }
    if (c.when_unsatisfiable.empty()) {
      errs.push_back(Required(p.Child("whenUnsatisfiable"), "can not be empty"));
    } else if (c.when_unsatisfiable != "DoNotSchedule" &&
               c.when_unsatisfiable != "ScheduleAnyway") {
      errs.push_back(NotSupported(p.Child("whenUnsatisfiable"), GoJsonString(c.when_unsatisfiable),
                                  {"DoNotSchedule", "ScheduleAnyway"}));
    }
    if (c.label_selector) {
      errs.push_back(Forbidden(p.Child("labelSelector"),
                               "constraint must not define a selector, as they deduced for each "
                               "pod"));
    }
    for (size_t j = 0; j < i; ++j) {
      const api::TopologySpreadConstraint& other = a.default_constraints[j];
      if (c.topology_key == other.topology_key &&
          c.when_unsatisfiable == other.when_unsatisfiable) {
        errs.push_back(
            Duplicate(p, GoQuote("{" + c.topology_key + ", " + c.when_unsatisfiable + "}")));
        break;
      }
    }
  }
  return errs;
}

FieldErrors ValidateFunctionShape(const FieldPath& path,
                                  const std::vector<UtilizationShapePoint>& shape) {
  if (shape.empty()) return {Required(path, "at least one point must be specified")};
  FieldErrors errs;
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.push_back(Invalid(path.Index(i).Child("utilization"), Num(shape[i].utilization),
                             "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errs.push_back(Invalid(path.Index(i).Child("utilization"), Num(shape[i].utilization),
                             "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > 10) {
      errs.push_back(
          Invalid(path.Index(i).Child("score"), Num(shape[i].score), "not in valid range [0, 10]"));
    }
  }
  return errs;
}

FieldErrors ValidateNodeResourcesBalancedAllocationArgs(
    const FieldPath& path, const NodeResourcesBalancedAllocationArgs& a) {
  FieldErrors errs;
  std::set<std::string> seen;
  const FieldPath resources = path.Child("resources");
  for (size_t i = 0; i < a.resources.size(); ++i) {
    const ResourceSpec& r = a.resources[i];
    if (!seen.insert(r.name).second) {
      errs.push_back(Duplicate(resources.Index(i).Child("name"), GoQuote(r.name)));
    }
    if (r.weight != 1) {
      errs.push_back(Invalid(resources.Index(i).Child("weight"), Num(r.weight), "must be 1"));
    }
  }
  return errs;
}

FieldErrors ValidateNodeResourcesFitArgs(const FieldPath& path, const NodeResourcesFitArgs& a) {
  FieldErrors errs;
  const FieldPath ignored = path.Child("ignoredResources");
  for (size_t i = 0; i < a.ignored_resources.size(); ++i) {
    ValidateLabelName(a.ignored_resources[i], ignored.Index(i), errs);
  }
  const FieldPath groups = path.Child("ignoredResourceGroups");
  for (size_t i = 0; i < a.ignored_resource_groups.size(); ++i) {
    const std::string& g = a.ignored_resource_groups[i];
    if (g.find('/') != std::string::npos) {
      errs.push_back(Invalid(groups.Index(i), GoQuote(g), "resource group name can't contain '/'"));
    }
    ValidateLabelName(g, groups.Index(i), errs);
  }
  const FieldPath strategy = path.Child("scoringStrategy");
  if (!a.scoring_strategy) {
    errs.push_back(Required(strategy, "ScoringStrategy field is required"));
    return errs;
  }
  const ScoringStrategy& s = *a.scoring_strategy;
  if (s.type != kLeastAllocated && s.type != kMostAllocated &&
      s.type != kRequestedToCapacityRatio) {
    errs.push_back(NotSupported(strategy.Child("type"), GoJsonString(s.type),
                                {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio}));
  }
  ValidateResources(s.resources, strategy.Child("resources"), errs);
  const FieldPath ratio = strategy.Child("requestedToCapacityRatio");
  if (s.type == kRequestedToCapacityRatio) {
    if (!s.requested_to_capacity_ratio) {
      errs.push_back(Required(ratio, "must be specified when type is RequestedToCapacityRatio"));
    } else {
      Append(errs,
             ValidateFunctionShape(ratio.Child("shape"), s.requested_to_capacity_ratio->shape));
    }
  } else if (s.requested_to_capacity_ratio) {
    errs.push_back(Forbidden(ratio, "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errs;
}

FieldErrors ValidateNodeAffinityArgs(const FieldPath& path, const NodeAffinityArgs& a) {
  FieldErrors errs;
  if (!a.added_affinity) return errs;
  const FieldPath added = path.Child("addedAffinity");
  if (a.added_affinity->required) {
    const FieldPath terms =
        added.Child("requiredDuringSchedulingIgnoredDuringExecution").Child("nodeSelectorTerms");
    const std::vector<api::NodeSelectorTerm>& list = a.added_affinity->required->terms;
    for (size_t i = 0; i < list.size(); ++i) {
      if (!EmptyTerm(list[i])) ValidateTerm(list[i], terms.Index(i), errs);
    }
  }
  // Upstream puts a preferred term's errors under the term's index directly, without
  // ".preference".
  const FieldPath preferred = added.Child("preferredDuringSchedulingIgnoredDuringExecution");
  const std::vector<api::PreferredSchedulingTerm>& terms = a.added_affinity->preferred;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight == 0 || EmptyTerm(terms[i].preference)) continue;
    ValidateTerm(terms[i].preference, preferred.Index(i), errs);
  }
  return errs;
}

FieldErrors ValidateVolumeBindingArgs(const FieldPath& path, const VolumeBindingArgs& a,
                                      const Features& features) {
  FieldErrors errs;
  const int64_t timeout = a.bind_timeout_seconds.value_or(0);
  if (timeout < 0) {
    errs.push_back(Invalid(path.Child("bindTimeoutSeconds"), Num(timeout),
                           "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  if (features.storage_capacity_scoring) {
    Append(errs, ValidateFunctionShape(path.Child("shape"),
                                       a.shape.value_or(std::vector<UtilizationShapePoint>{})));
  } else if (a.shape) {
    errs.push_back(Invalid(path.Child("shape"), a.shape->empty() ? "[]" : ShapeValue(*a.shape),
                           "unexpected field `shape`, remove it or turn on the feature gate "
                           "StorageCapacityScoring"));
  }
  return errs;
}

FieldErrors ValidateDynamicResourcesArgs(const FieldPath& path, const DynamicResourcesArgs& a,
                                         const Features& features) {
  FieldErrors errs;
  if (features.dra_scheduler_filter_timeout) {
    if (a.filter_timeout && *a.filter_timeout < Duration(0)) {
      errs.push_back(Invalid(path.Child("filterTimeout"),
                             GoJsonString(FormatDuration(*a.filter_timeout)),
                             "must be zero or positive"));
    }
  } else if (a.filter_timeout) {
    errs.push_back(Forbidden(path.Child("filterTimeout"),
                             "DRASchedulingFilterTimeout feature gate is disabled"));
  }
  if (features.dra_device_binding_conditions && features.dra_resource_claim_device_status) {
    if (a.binding_timeout && *a.binding_timeout < std::chrono::seconds(1)) {
      errs.push_back(Invalid(path.Child("bindingTimeout"),
                             GoJsonString(FormatDuration(*a.binding_timeout)),
                             "must be at least 1 second"));
    }
  } else if (a.binding_timeout) {
    errs.push_back(Forbidden(path.Child("bindingTimeout"),
                             "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature "
                             "gate is disabled"));
  }
  return errs;
}

stowage::Status ValidateArgsOnConstruction(std::string_view plugin, const PluginArgs& args) {
  const auto* fit = std::get_if<NodeResourcesFitArgs>(&args);
  if (plugin != "NodeResourcesFit" || fit == nullptr) return OkStatus();
  FieldErrors errs = ValidateNodeResourcesFitArgs(FieldPath(), *fit);
  if (errs.empty()) return OkStatus();
  return InvalidArgumentError(AggregateMessage(errs));
}

}  // namespace stowage::config
