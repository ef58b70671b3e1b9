// The pod's effective resource request, as component-helpers' resourcehelper.PodRequests computes
// it: regular containers and sidecars run together, each init phase runs alone (with the
// sidecars started before it), the pod needs the largest of those, plus its overhead.
#include "pkg/framework/types.h"

namespace stowage::framework {
namespace {

// A container's requests; with non_zero, a missing cpu or memory request counts as the default.
Resource ContainerRequests(const api::Container& c, bool non_zero) {
  Resource r = Resource::FromList(c.resources.requests);
  if (non_zero) {
    if (!c.resources.requests.Get("cpu")) r.milli_cpu = kDefaultMilliCpuRequest;
    if (!c.resources.requests.Get("memory")) r.memory = kDefaultMemoryRequest;
  }
  return r;
}

bool IsSidecar(const api::Container& c) { return c.restart_policy == "Always"; }

// The reason of the pod's PodResizePending condition, empty if it has none.
std::string_view ResizePendingReason(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodResizePending") return c.reason;
  }
  return {};
}

}  // namespace

bool IsPodResizeDeferred(const api::Pod& pod) { return ResizePendingReason(pod) == "Deferred"; }
bool IsPodResizeInfeasible(const api::Pod& pod) {
  return ResizePendingReason(pod) == "Infeasible";
}

Resource ComputePodRequests(const api::Pod& pod, bool non_zero) {
  Resource reqs;
  for (const auto& c : pod.spec.containers) reqs.Add(ContainerRequests(c, non_zero));

  Resource sidecars;    // running sidecars, cumulative in declaration order
  Resource init_phase;  // the largest init phase
  for (const auto& c : pod.spec.init_containers) {
    Resource phase = ContainerRequests(c, non_zero);
    if (IsSidecar(c)) {
      sidecars.Add(phase);
      phase = sidecars;
    } else {
      phase.Add(sidecars);
    }
    init_phase.SetMax(phase);
  }
  reqs.Add(sidecars);
  reqs.SetMax(init_phase);

  // Pod-level requests (PodLevelResources, on in 1.36) replace the container aggregate for the
  // resources they name: cpu, memory and hugepages.
  if (pod.spec.resources) {
    const api::ResourceList& pl = pod.spec.resources->requests;
    if (const auto* q = pl.Get("cpu")) reqs.milli_cpu = q->MilliValue();
    if (const auto* q = pl.Get("memory")) reqs.memory = q->Value();
    for (const auto& [name, q] : pl.entries()) {
      if (name.starts_with("hugepages-")) reqs.SetScalar(name, q.Value());
    }
  }
  if (!pod.spec.overhead.empty()) reqs.Add(Resource::FromList(pod.spec.overhead));
  return reqs;
}

}  // namespace stowage::framework
