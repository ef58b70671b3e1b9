#include "pkg/scheduler/pod_status.h"

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "stowage/api/pod_condition.h"
#include "stowage/common/backoff.h"

namespace stowage::scheduler {

namespace {
constexpr std::string_view kPodScheduled = "PodScheduled";
}  // namespace

std::optional<std::string> PodScheduledFailurePatch(
    const api::Pod& pod, std::string_view reason, const std::string& message,
    const std::optional<std::string>& nominated_node_name, std::string_view now) {
  api::Condition condition{.type = std::string(kPodScheduled),
                           .status = "False",
                           .reason = std::string(reason),
                           .message = message,
                           .last_transition_time = std::string(now),
                           .observed_generation = pod.metadata.generation};
  api::PodStatus updated = pod.status;
  const bool nominated_changes =
      nominated_node_name && *nominated_node_name != pod.status.nominated_node_name;
  const bool condition_changes = api::UpdatePodCondition(updated, std::move(condition));
  if (!condition_changes && !nominated_changes) return std::nullopt;
  if (nominated_changes) updated.nominated_node_name = *nominated_node_name;
  std::string patch = api::EncodePodStatusPatch(pod.status, updated);
  if (patch == "{}") return std::nullopt;
  return patch;
}

Status PatchPodStatusWithRetry(client::RestClient& client, const api::ObjectMeta& pod,
                               std::string patch, Clock& clock) {
  auto retriable = [](const Status& s) {
    return client::IsConflict(s) || client::IsServerError(s);
  };
  return RetryOnError(clock, retriable, [&] {
    return client::PatchPodStatus(client, pod.namespace_, pod.name, patch);
  });
}

}  // namespace stowage::scheduler
