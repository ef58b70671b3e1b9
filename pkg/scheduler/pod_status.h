// The pod status the scheduler writes after a failed attempt, as upstream's updatePod
// (schedule_one.go) and util.PatchPodStatus: the PodScheduled condition (status False, the
// reason and message of the failure, observedGeneration = metadata.generation since
// PodObservedGenerationTracking is GA and locked) and optionally a new nominatedNodeName.
//
// The patch is computed against the pod as the informer holds it, so the API server receives
// exactly what upstream sends. A condition equal to the pod's in status, reason, message and
// probe time is no change, even when only observedGeneration differs (podutil's
// UpdatePodCondition does not compare it); with nothing to change there is no request.
// Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pkg/client/rest_client.h"
#include "stowage/api/types.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::scheduler {

// The strategic-merge patch of pods/status that sets PodScheduled=False with reason and
// message (its lastTransitionTime now, unless the status stays False) and, when
// nominated_node_name is given and differs, the nominated node ("" clears it); nullopt when the
// pod already says all of it.
std::optional<std::string> PodScheduledFailurePatch(
    const api::Pod& pod, std::string_view reason, const std::string& message,
    const std::optional<std::string>& nominated_node_name, std::string_view now);

// Sends the patch, retrying as 1.37's util.PatchPodStatus does (client-go's DefaultBackoff) on a
// conflict, an internal error, service unavailable or a refused connection.
Status PatchPodStatusWithRetry(client::RestClient& client, const api::ObjectMeta& pod,
                               std::string patch, Clock& clock = RealClock());

}  // namespace stowage::scheduler
