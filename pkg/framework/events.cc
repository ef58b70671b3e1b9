#include "pkg/framework/events.h"

namespace stowage::framework {

bool ClusterEvent::Matches(const ClusterEvent& observed) const {
  if (IsWildCard() || observed.IsWildCard()) return true;
  bool same_resource =
      resource == observed.resource || resource == EventResource::kWildCard ||
      // A registration for Pod covers the assigned and unschedulable refinements.
      (resource == EventResource::kPod && (observed.resource == EventResource::kAssignedPod ||
                                           observed.resource == EventResource::kUnschedulablePod));
  return same_resource && (action & observed.action) != 0;
}

}  // namespace stowage::framework
