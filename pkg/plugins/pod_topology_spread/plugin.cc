#include "pkg/plugins/pod_topology_spread/plugin.h"

#include <utility>

namespace stowage::plugins::pod_topology_spread {

const std::vector<api::TopologySpreadConstraint>& SystemDefaultConstraints() {
  static const auto* constraints = [] {
    auto* list = new std::vector<api::TopologySpreadConstraint>(2);
    (*list)[0].topology_key = std::string(kLabelHostname);
    (*list)[0].when_unsatisfiable = std::string(kScheduleAnyway);
    (*list)[0].max_skew = 3;
    (*list)[1].topology_key = std::string(kLabelTopologyZone);
    (*list)[1].when_unsatisfiable = std::string(kScheduleAnyway);
    (*list)[1].max_skew = 5;
    return list;
  }();
  return *constraints;
}

PodTopologySpread::PodTopologySpread(framework::Handle& handle, const framework::Features& features,
                                     std::vector<api::TopologySpreadConstraint> default_constraints,
                                     bool system_defaulted, std::optional<WorkloadListers> listers)
    : handle_(handle),
      enable_comparison_operators_(features.taint_toleration_comparison_operators),
      enable_resize_deferral_(features.in_place_pod_vertical_scaling_scheduler_preemption),
      default_constraints_(std::move(default_constraints)),
      system_defaulted_(system_defaulted),
      listers_(std::move(listers)) {}

StatusOr<std::vector<Constraint>> PodTopologySpread::GetConstraints(const api::Pod& pod,
                                                                    std::string_view action) const {
  const std::string_view kind = action == kDoNotSchedule ? "hard" : "soft";
  const bool own = !pod.spec.topology_spread_constraints.empty();
  StatusOr<std::vector<Constraint>> constraints =
      own ? CompileConstraints(pod.spec.topology_spread_constraints, pod.metadata.labels, action)
          : BuildDefaultConstraints(pod, action);
  if (constraints.ok()) return constraints;
  // Upstream's wording, for the error status of the cycle.
  return constraints.status().WithPrefix((own ? "obtaining pod's " : "setting default ") +
                                         std::string(kind) + " topology spread constraints");
}

StatusOr<std::vector<Constraint>> PodTopologySpread::BuildDefaultConstraints(
    const api::Pod& pod, std::string_view action) const {
  StatusOr<std::vector<Constraint>> constraints =
      CompileConstraints(default_constraints_, pod.metadata.labels, action);
  // The listers are read only when some default applies to this action.
  if (!constraints.ok() || constraints->empty() || !listers_) return constraints;
  api::Selector selector = DefaultSelector(pod, *listers_);
  if (selector.Empty()) return std::vector<Constraint>();
  for (Constraint& c : *constraints) c.selector = selector;
  return constraints;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::PodTopologySpreadArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  // Unset means System, the default (args given by the configuration are already defaulted).
  const bool system_defaulted = args.defaulting_type != config::kListDefaulting;
  std::vector<api::TopologySpreadConstraint> defaults =
      system_defaulted ? SystemDefaultConstraints() : args.default_constraints;
  std::optional<WorkloadListers> listers;
  if (!defaults.empty()) {
    listers.emplace(WorkloadListers{handle.services(), handle.replication_controllers(),
                                    handle.replica_sets(), handle.stateful_sets()});
  }
  return std::unique_ptr<framework::Plugin>(std::make_unique<PodTopologySpread>(
      handle, features, std::move(defaults), system_defaulted, std::move(listers)));
}

}  // namespace stowage::plugins::pod_topology_spread
