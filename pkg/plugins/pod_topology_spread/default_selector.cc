#include "pkg/plugins/pod_topology_spread/default_selector.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace stowage::plugins::pod_topology_spread {
namespace {

const api::OwnerReference* ControllerOf(const api::Pod& pod) {
  for (const api::OwnerReference& ref : pod.metadata.owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

// Appends the requirements of a workload's selector; a null or invalid one adds nothing.
void AddRequirements(const std::optional<api::LabelSelector>& selector, api::LabelSelector& out) {
  if (!selector) return;
  StatusOr<api::Selector> compiled = api::Selector::FromLabelSelector(&*selector);
  if (!compiled.ok() || compiled->MatchesNothing()) return;
  for (const auto& [key, value] : selector->match_labels.entries()) {
    out.match_expressions.push_back({key, "In", {value}});
  }
  out.match_expressions.insert(out.match_expressions.end(), selector->match_expressions.begin(),
                               selector->match_expressions.end());
}

api::StringMap ToStringMap(const std::map<std::string, std::string>& set) {
  return api::StringMap(std::vector<api::StringMap::Entry>(set.begin(), set.end()));
}

}  // namespace

api::Selector DefaultSelector(const api::Pod& pod, const WorkloadListers& listers) {
  const std::string& ns = pod.metadata.namespace_;
  // Services, RCs, RSs and SSs that match the pod cannot disagree on a key, so merging is safe.
  std::map<std::string, std::string> set;
  for (const auto& service : listers.services.List(ns)) {
    // A service without a selector selects nothing, not everything.
    if (service->selector.empty()) continue;
    if (!api::Selector::FromMap(service->selector).Matches(pod.metadata.labels)) continue;
    for (const auto& [key, value] : service->selector.entries()) set[key] = value;
  }

  api::LabelSelector combined;
  const api::OwnerReference* owner = ControllerOf(pod);
  if (owner != nullptr) {
    if (owner->api_version == "v1" && owner->kind == "ReplicationController") {
      if (auto rc = listers.replication_controllers.Get(ns, owner->name)) {
        for (const auto& [key, value] : rc->selector.entries()) set[key] = value;
      }
    } else if (owner->api_version == "apps/v1" && owner->kind == "ReplicaSet") {
      if (auto rs = listers.replica_sets.Get(ns, owner->name)) {
        AddRequirements(rs->selector, combined);
      }
    } else if (owner->api_version == "apps/v1" && owner->kind == "StatefulSet") {
      if (auto ss = listers.stateful_sets.Get(ns, owner->name)) {
        AddRequirements(ss->selector, combined);
      }
    }
  }
  combined.match_labels = ToStringMap(set);
  StatusOr<api::Selector> selector = api::Selector::FromLabelSelector(&combined);
  // The parts were valid API objects; should one not compile, keep the services' part.
  if (!selector.ok()) return api::Selector::FromMap(combined.match_labels);
  return std::move(selector).value();
}

}  // namespace stowage::plugins::pod_topology_spread
