#include "pkg/plugins/scheduling_gates/scheduling_gates.h"

#include <string>

#include "stowage/plugins/helper/event_objects.h"

namespace stowage::plugins::scheduling_gates {

framework::Status SchedulingGates::PreEnqueue(const api::Pod& pod) {
  const auto& gates = pod.spec.scheduling_gates;
  if (gates.empty()) return {};
  // Formatted as Go prints a []string: "[a b]".
  std::string msg = "waiting for scheduling gates: [";
  for (size_t i = 0; i < gates.size(); ++i) {
    if (i > 0) msg += ' ';
    msg += gates[i];
  }
  msg += ']';
  return framework::Status::Unresolvable(std::move(msg));
}

std::vector<framework::ClusterEventWithHint> SchedulingGates::EventsToRegister() const {
  return {{{framework::EventResource::kTargetPod, framework::kUpdatePodSchedulingGatesEliminated},
           IsSchedulableAfterGatesEliminated}};
}

framework::QueueingHint IsSchedulableAfterGatesEliminated(const api::Pod& pod,
                                                          const framework::EventObject& old_obj,
                                                          const framework::EventObject& new_obj) {
  helper::TypedEventObjects<api::Pod> objs;
  if (!helper::As(old_obj, new_obj, objs) || objs.new_obj == nullptr) {
    return framework::QueueingHint::kQueue;
  }
  return objs.new_obj->metadata.uid == pod.metadata.uid ? framework::QueueingHint::kQueue
                                                        : framework::QueueingHint::kSkip;
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<SchedulingGates>());
}

}  // namespace stowage::plugins::scheduling_gates
