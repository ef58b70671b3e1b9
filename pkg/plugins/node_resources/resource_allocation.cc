#include "pkg/plugins/node_resources/resource_allocation.h"

#include <algorithm>
#include <array>
#include <utility>

namespace stowage::plugins::node_resources {

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

bool IsBestEffort(std::span<const int64_t> pod_requests) {
  return std::all_of(pod_requests.begin(), pod_requests.end(), [](int64_t r) { return r == 0; });
}

DraScoring DraScoringFor(const framework::CycleState& state,
                         const std::vector<ResourceSpec>& resources) {
  const auto* s = state.Read<dra::ExtendedDevicesState>(dra::kExtendedDevicesKey);
  if (s == nullptr || s->devices == nullptr || s->devices->allocator == nullptr) return {};
  DraScoring out;
  bool any = false;
  for (const ResourceSpec& spec : resources) {
    const api::DeviceClass* c = framework::IsDRAExtendedResourceName(spec.name)
                                    ? s->devices->resolver.Get(spec.name)
                                    : nullptr;
    any |= c != nullptr;
    out.classes.push_back(c);
    out.selectors.push_back(c != nullptr ? dra::SelectorsOf(s->devices->allocator->inventory(), *c)
                                         : dra::ClassSelectors{});
  }
  if (any) out.devices = s->devices;
  return out;
}

ResourceAllocationScorer::ResourceAllocationScorer(std::vector<ResourceSpec> resources,
                                                   bool use_requested, ScorerFn scorer)
    : resources_(std::move(resources)), use_requested_(use_requested), scorer_(std::move(scorer)) {
  kinds_.reserve(resources_.size());
  for (const ResourceSpec& spec : resources_) kinds_.push_back(KindOf(spec.name));
}

ResourceAllocationScorer::Kind ResourceAllocationScorer::KindOf(std::string_view name) {
  if (name == "cpu") return Kind::kCpu;
  if (name == "memory") return Kind::kMemory;
  if (name == "ephemeral-storage") return Kind::kEphemeralStorage;
  // Other names (e.g. "pods") are not requests the scorers can weigh; upstream finds no
  // allocatable for them either, so they drop out.
  return framework::IsScalarResourceName(name) ? Kind::kScalar : Kind::kOther;
}

int64_t ResourceAllocationScorer::ValueOf(const framework::Resource& r, size_t i) const {
  switch (kinds_[i]) {
    case Kind::kCpu: return r.milli_cpu;
    case Kind::kMemory: return r.memory;
    case Kind::kEphemeralStorage: return r.ephemeral_storage;
    case Kind::kScalar: return r.Scalar(resources_[i].name);
    case Kind::kOther: return 0;
  }
  return 0;
}

std::vector<int64_t> ResourceAllocationScorer::PodRequests(const framework::PodInfo& pod) const {
  // The actual requests are precomputed in PodInfo; the non-zero variant differs from
  // PodInfo::non0_* when pod-level requests are set (the scorer always fills in the defaults
  // per container, then lets the pod level override), so it is computed here, once per cycle.
  const framework::Resource non_zero =
      use_requested_ ? framework::Resource{} : framework::ComputePodRequests(*pod.pod, true);
  const framework::Resource& source = use_requested_ ? pod.requests : non_zero;
  std::vector<int64_t> out;
  out.reserve(resources_.size());
  for (size_t i = 0; i < resources_.size(); ++i) out.push_back(ValueOf(source, i));
  return out;
}

namespace {

// A scalar resource no device plugin serves on node: DRA's devices of the class configured at
// index i may serve it (upstream logs and drops a resource whose devices cannot be counted).
// Kept out of Score so the common path carries no StatusOr on its stack.
[[gnu::noinline]] void CountDraDevices(const framework::NodeInfo& node, const DraScoring& dra,
                                       size_t i, int64_t& alloc, int64_t& used) {
  if (dra.classes[i] == nullptr || node.node() == nullptr) return;
  const dra::Allocator& a = *dra.devices->allocator;
  StatusOr<dra::DeviceTotals> t =
      dra::CountClassDevices(a.inventory(), a.allocated(), *node.node(), dra.selectors[i]);
  if (t.ok() && t->capacity > 0) {
    alloc = t->capacity;
    used = t->allocated;
  }
}

}  // namespace

framework::Status ResourceAllocationScorer::Score(const framework::NodeInfo& node,
                                                  std::span<const int64_t> pod_requests,
                                                  int64_t& score, const DraScoring& dra) const {
  score = 0;
  const size_t n = resources_.size();
  if (n == 0) return framework::Status::Error("resources not found");

  // Three lists of n entries; a handful of resources fit on the stack.
  constexpr size_t kInline = 8;
  // Every entry used is written below; exempt from the build's zeroing of locals
  // (-ftrivial-auto-var-init), which would clear all 24 on every node scored.
  [[gnu::uninitialized]] std::array<int64_t, 3 * kInline> inline_buffer;
  std::vector<int64_t> heap_buffer;
  int64_t* buffer = inline_buffer.data();
  if (n > kInline) {
    heap_buffer.resize(3 * n);
    buffer = heap_buffer.data();
  }
  std::span<int64_t> requested(buffer, n);
  std::span<int64_t> allocated(buffer + n, n);
  std::span<int64_t> allocatable(buffer + 2 * n, n);

  const framework::Resource& node_alloc = node.allocatable();
  const framework::Resource& cpu_mem_used =
      use_requested_ ? node.requested() : node.non_zero_requested();
  for (size_t i = 0; i < n; ++i) {
    // A resource left out scores as absent: all three stay 0.
    allocatable[i] = allocated[i] = requested[i] = 0;
    const int64_t pod_request = i < pod_requests.size() ? pod_requests[i] : 0;
    int64_t alloc = 0;
    int64_t used = 0;
    switch (kinds_[i]) {
      case Kind::kCpu:
        alloc = node_alloc.milli_cpu;
        used = cpu_mem_used.milli_cpu;
        break;
      case Kind::kMemory:
        alloc = node_alloc.memory;
        used = cpu_mem_used.memory;
        break;
      case Kind::kEphemeralStorage:
        alloc = node_alloc.ephemeral_storage;
        used = node.requested().ephemeral_storage;
        break;
      case Kind::kScalar: {
        // A scalar resource the pod does not ask for would only dilute the score.
        if (pod_request == 0) continue;
        const std::string& name = resources_[i].name;
        alloc = node_alloc.Scalar(name);
        used = node.requested().Scalar(name);
        if (alloc == 0 && !dra.empty()) CountDraDevices(node, dra, i, alloc, used);
        break;
      }
      case Kind::kOther: break;
    }
    if (alloc == 0) continue;
    allocatable[i] = alloc;
    allocated[i] = used;
    requested[i] = used + pod_request;
  }
  score = scorer_(requested, allocated, allocatable);
  return {};
}

}  // namespace stowage::plugins::node_resources
