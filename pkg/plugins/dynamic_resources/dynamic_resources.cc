#include "pkg/plugins/dynamic_resources/dynamic_resources.h"

#include <string>

namespace stowage::plugins::dynamic_resources {
namespace {

// What PreFilter records before anything else, as upstream's stateData: that it ran.
struct PreFilterState final : framework::StateData {
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

}  // namespace

framework::Status DynamicResources::PreFilter(framework::CycleState& state,
                                              const framework::PodInfo& pod,
                                              const std::vector<const framework::NodeInfo*>&,
                                              framework::PreFilterResult&) {
  state.Write(kStateKey, std::make_unique<PreFilterState>());
  if (pod->spec.resource_claims.empty()) return framework::Status::Skip();
  return framework::Status::Unresolvable(std::string(kGuardReason));
}

framework::Status DynamicResources::PostFilter(framework::CycleState& state,
                                               const framework::PodInfo&,
                                               const framework::NodeToStatus&,
                                               framework::PluginsRunner&,
                                               framework::NominatingInfo&) {
  // The text of upstream's CycleState.Read error.
  if (state.Read<PreFilterState>(kStateKey) == nullptr)
    return framework::Status::Error("not found");
  return framework::Status(framework::Code::kUnschedulable);
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&, framework::Handle&,
                                                 const framework::Features&) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<DynamicResources>());
}

}  // namespace stowage::plugins::dynamic_resources
