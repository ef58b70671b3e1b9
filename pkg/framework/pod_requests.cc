// The pod's effective resource request, as component-helpers' resourcehelper.PodRequests computes
// it (v0.37.2) with the options the scheduler uses for every PodInfo: regular containers and
// sidecars run together, each init phase runs alone (with the sidecars started before it), the
// pod needs the largest of those, plus its overhead.
//
// In-place resize: the pod holds the largest of what its spec asks, what the kubelet allocated
// and what the runtime applied, each aggregated over the whole pod (max(spec, allocated,
// actuated)). The pod-level status.allocatedResources / status.resources.requests stand for the
// last two when both are reported (InPlacePodLevelResourcesVerticalScaling, on); otherwise they
// are aggregated from the container statuses. An Infeasible resize leaves the spec out. A pod
// not yet bound has no status resources, so its request is its spec.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/framework/types.h"

namespace stowage::framework {
namespace {

// Which view of the containers' resources an aggregate is taken over.
enum class Source : uint8_t { kSpec, kAllocated, kActuated };

// The status the kubelet reports for the named container, regular or init (upstream looks in
// both lists for either kind).
const api::ContainerStatus* FindStatus(const api::Pod& pod, std::string_view name) {
  for (const auto* list : {&pod.status.container_statuses, &pod.status.init_container_statuses}) {
    for (const auto& cs : *list) {
      if (cs.name == name) return &cs;
    }
  }
  return nullptr;
}

// The requests a container contributes to the aggregate of src; nullptr for upstream's nil list.
// A container the kubelet has not reported on falls back to its spec, unless the resize is
// infeasible, where only what the node really granted counts.
const api::ResourceList* ContainerList(const api::Pod& pod, const api::Container& c, Source src,
                                       bool infeasible) {
  if (src == Source::kSpec) return &c.resources.requests;
  const api::ContainerStatus* cs = FindStatus(pod, c.name);
  if (src == Source::kActuated && cs && cs->resources && cs->resources->requests) {
    return &*cs->resources->requests;
  }
  if (cs && cs->allocated_resources) return &*cs->allocated_resources;
  return infeasible ? nullptr : &c.resources.requests;
}

// A container's requests; with non_zero, a missing cpu or memory request counts as the default.
Resource ListRequests(const api::ResourceList* list, bool non_zero) {
  Resource r = list ? Resource::FromList(*list) : Resource{};
  if (non_zero) {
    if (!list || !list->Get("cpu")) r.milli_cpu = kDefaultMilliCpuRequest;
    if (!list || !list->Get("memory")) r.memory = kDefaultMemoryRequest;
  }
  return r;
}

bool IsSidecar(const api::Container& c) { return c.restart_policy == "Always"; }

// The containers' aggregate over one source: containers and sidecars together, or the largest
// init phase if larger.
Resource Aggregate(const api::Pod& pod, bool non_zero, Source src, bool infeasible) {
  Resource reqs;
  for (const auto& c : pod.spec.containers) {
    reqs.Add(ListRequests(ContainerList(pod, c, src, infeasible), non_zero));
  }
  Resource sidecars;    // running sidecars, cumulative in declaration order
  Resource init_phase;  // the largest init phase
  for (const auto& c : pod.spec.init_containers) {
    Resource phase = ListRequests(ContainerList(pod, c, src, infeasible), non_zero);
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
  return reqs;
}

// Pod-level requests (PodLevelResources, on) replace the container aggregate for the resources
// they name among cpu, memory and hugepages; each takes the largest value the lists give it.
void ApplyPodLevel(const std::vector<const api::ResourceList*>& lists, Resource& reqs) {
  std::vector<std::pair<std::string_view, int64_t>> effective;
  for (const auto* list : lists) {
    for (const auto& [name, q] : list->entries()) {
      if (!IsPodLevelResource(name)) continue;
      int64_t v = name == "cpu" ? q.MilliValue() : q.Value();
      // Clang 14 cannot capture a structured binding, so the lambda takes a copy of the view.
      auto it =
          std::find_if(effective.begin(), effective.end(),
                       [key = std::string_view(name)](const auto& e) { return e.first == key; });
      if (it == effective.end()) {
        effective.emplace_back(name, v);
      } else {
        it->second = std::max(it->second, v);
      }
    }
  }
  for (const auto& [name, v] : effective) {
    if (name == "cpu") {
      reqs.milli_cpu = v;
    } else if (name == "memory") {
      reqs.memory = v;
    } else {
      reqs.SetScalar(name, v);
    }
  }
}

bool PodLevelRequestsSet(const api::Pod& pod) {
  if (!pod.spec.resources) return false;
  const auto& e = pod.spec.resources->requests.entries();
  return std::any_of(e.begin(), e.end(), [](const auto& x) { return IsPodLevelResource(x.first); });
}

// The reason of the pod's PodResizePending condition, empty if it has none.
std::string_view ResizePendingReason(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodResizePending") return c.reason;
  }
  return {};
}

}  // namespace

bool IsPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

bool IsPodResizeDeferred(const api::Pod& pod) { return ResizePendingReason(pod) == "Deferred"; }
bool IsPodResizeInfeasible(const api::Pod& pod) { return ResizePendingReason(pod) == "Infeasible"; }

Resource ComputePodRequests(const api::Pod& pod, bool non_zero) {
  const bool infeasible = IsPodResizeInfeasible(pod);
  const api::PodStatus& st = pod.status;

  Resource allocated, actuated;
  if (st.allocated_resources && st.resources && st.resources->requests) {
    // The kubelet's pod-level aggregates (cpu, memory, DRA already folded in).
    allocated = Resource::FromList(*st.allocated_resources);
    actuated = Resource::FromList(*st.resources->requests);
  } else {
    allocated = Aggregate(pod, non_zero, Source::kAllocated, infeasible);
    actuated = Aggregate(pod, non_zero, Source::kActuated, infeasible);
  }
  Resource reqs = infeasible ? Resource{} : Aggregate(pod, non_zero, Source::kSpec, infeasible);
  reqs.SetMax(allocated);
  reqs.SetMax(actuated);

  if (PodLevelRequestsSet(pod)) {
    std::vector<const api::ResourceList*> lists;
    if (!st.resources || !infeasible) lists.push_back(&pod.spec.resources->requests);
    if (st.resources) {
      if (st.resources->requests) lists.push_back(&*st.resources->requests);
      if (st.allocated_resources) lists.push_back(&*st.allocated_resources);
    }
    ApplyPodLevel(lists, reqs);
  }
  if (!pod.spec.overhead.empty()) reqs.Add(Resource::FromList(pod.spec.overhead));
  return reqs;
}

}  // namespace stowage::framework
