#include "pkg/scheduler/pod_writer.h"

#include "pkg/api/encode.h"
#include "pkg/client/resources.h"
#include "pkg/scheduler/pod_status.h"

namespace stowage::scheduler {

stowage::Status ClientPodWriter::Bind(const api::Pod& pod, std::string_view node_name) {
  // Not Unavailable: the binder must not retry what only a renewed lease would allow.
  if (may_bind_ && !may_bind_()) {
    return FailedPreconditionError("not binding: this scheduler's lease may have expired");
  }
  return client::BindPod(client_, pod.metadata, node_name);
}

stowage::Status ClientPodWriter::PatchPodStatus(const api::Pod& pod,
                                                const api::PodStatus& new_status) {
  std::string patch = api::EncodePodStatusPatch(pod.status, new_status);
  if (patch == "{}") return OkStatus();
  return PatchPodStatusWithRetry(client_, pod.metadata, std::move(patch));
}

stowage::Status ClientPodWriter::DeletePod(const api::Pod& pod) {
  // Preemption's victims: a leader that may have lost its lease evicts nothing either.
  if (may_bind_ && !may_bind_()) {
    return FailedPreconditionError("not deleting: this scheduler's lease may have expired");
  }
  return client::DeletePod(client_, pod.metadata.namespace_, pod.metadata.name);
}

}  // namespace stowage::scheduler
