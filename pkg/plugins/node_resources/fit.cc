#include "pkg/plugins/node_resources/fit.h"

#include <algorithm>
#include <utility>

#include "pkg/dra/extended_resources.h"

namespace stowage::plugins::node_resources {
namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeResourcesFit";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesFit";

// The pod's effective request, computed once per cycle.
struct PreFilterState final : framework::StateData {
  framework::Resource request;
  std::vector<std::string> dra_backed;  // DraBackedResources(request)
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// The pod's request for each scoring resource, in the order of the configured resources.
struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;
  DraScoring dra;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

bool IsIgnored(const IgnoredResources& ignored, std::string_view name) {
  if (!framework::IsExtendedResourceName(name)) return false;
  if (ignored.names.contains(name)) return true;
  return !ignored.groups.empty() && ignored.groups.contains(name.substr(0, name.find('/')));
}

ScorerFn MakeScorer(const FitOptions& options) {
  switch (options.strategy) {
    case ScoringStrategyType::kMostAllocated: return MostAllocatedScorer(options.resources);
    case ScoringStrategyType::kRequestedToCapacityRatio:
      return RequestedToCapacityRatioScorer(options.resources, options.shape);
    case ScoringStrategyType::kLeastAllocated: break;
  }
  return LeastAllocatedScorer(options.resources);
}

}  // namespace

std::vector<std::string> DraBackedResources(const framework::Resource& request,
                                            const framework::Lister<api::DeviceClass>& classes) {
  std::vector<std::string> out;
  bool any = false;
  for (const auto& [name, quantity] : request.scalar) {
    any |= quantity != 0 && framework::IsDRAExtendedResourceName(name);
  }
  if (!any) return out;  // the common case: no class is listed
  const dra::DeviceClassResolver resolver(classes.List());
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity != 0 && framework::IsDRAExtendedResourceName(name) &&
        resolver.Get(name) != nullptr) {
      out.push_back(name);
    }
  }
  return out;  // sorted, as request.scalar is
}

std::vector<InsufficientResource> FitsRequest(const framework::Resource& pod_request,
                                              const framework::NodeInfo& node,
                                              const IgnoredResources& ignored,
                                              const std::vector<std::string>& dra_backed) {
  std::vector<InsufficientResource> out;
  const framework::Resource& alloc = node.allocatable();
  const framework::Resource& used = node.requested();

  const int64_t pods = static_cast<int64_t>(node.pods().size());
  if (pods + 1 > alloc.allowed_pod_number) {
    out.push_back({"pods", "Too many pods", 1, pods, alloc.allowed_pod_number, false});
  }
  if (pod_request.milli_cpu == 0 && pod_request.memory == 0 && pod_request.ephemeral_storage == 0 &&
      pod_request.scalar.empty()) {
    return out;
  }

  auto check = [&out](std::string_view name, int64_t request, int64_t in_use, int64_t capacity) {
    if (request <= 0 || request <= capacity - in_use) return;
    out.push_back({std::string(name), "Insufficient " + std::string(name), request, in_use,
                   capacity, request > capacity});
  };
  check("cpu", pod_request.milli_cpu, used.milli_cpu, alloc.milli_cpu);
  check("memory", pod_request.memory, used.memory, alloc.memory);
  check("ephemeral-storage", pod_request.ephemeral_storage, used.ephemeral_storage,
        alloc.ephemeral_storage);
  for (const auto& [name, quantity] : pod_request.scalar) {
    if (quantity == 0 || IsIgnored(ignored, name)) continue;
    // Served by DynamicResources where no device plugin advertises the resource.
    if (alloc.Scalar(name) <= 0 && std::binary_search(dra_backed.begin(), dra_backed.end(), name)) {
      continue;
    }
    check(name, quantity, used.Scalar(name), alloc.Scalar(name));
  }
  return out;
}

std::vector<InsufficientResource> Fits(const api::Pod& pod, const framework::NodeInfo& node,
                                       const std::vector<std::string>& dra_backed) {
  return FitsRequest(framework::ComputePodRequests(pod), node, IgnoredResources{}, dra_backed);
}

Fit::Fit(FitOptions options, const framework::Lister<api::DeviceClass>& classes)
    : scorer_(options.resources, /*use_requested=*/false, MakeScorer(options)), classes_(classes) {
  ignored_.names.insert(options.ignored_resources.begin(), options.ignored_resources.end());
  ignored_.groups.insert(options.ignored_resource_groups.begin(),
                         options.ignored_resource_groups.end());
}

framework::Status Fit::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                 const std::vector<const framework::NodeInfo*>& /*nodes*/,
                                 framework::PreFilterResult& /*result*/) {
  // SidecarContainers is GA, so restartable init containers are never rejected here.
  auto s = std::make_unique<PreFilterState>();
  s->request = pod.requests;
  s->dra_backed = DraBackedResources(pod.requests, classes_);
  state.Write(kPreFilterStateKey, std::move(s));
  return {};
}

framework::Status Fit::Filter(const framework::CycleState& state, const framework::PodInfo& /*pod*/,
                              const framework::NodeInfo& node) {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return framework::Status::Error(
        "error reading \"PreFilterNodeResourcesFit\" from cycleState: "
        "not found");
  }
  std::vector<InsufficientResource> insufficient =
      FitsRequest(s->request, node, ignored_, s->dra_backed);
  if (insufficient.empty()) return {};
  framework::Code code = framework::Code::kUnschedulable;
  std::vector<std::string> reasons;
  reasons.reserve(insufficient.size());
  for (InsufficientResource& r : insufficient) {
    if (r.unresolvable) code = framework::Code::kUnschedulableAndUnresolvable;
    reasons.push_back(std::move(r.reason));
  }
  return framework::Status(code, std::move(reasons));
}

framework::Status Fit::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                const std::vector<const framework::NodeInfo*>& /*nodes*/) {
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = scorer_.PodRequests(pod);
  s->dra = DraScoringFor(state, scorer_.resources());
  state.Write(kPreScoreStateKey, std::move(s));
  return {};
}

framework::Status Fit::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                             const framework::NodeInfo& node, int64_t& score) {
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests, score, s->dra);
  }
  // PreScore did not run (disabled): compute the requests here, as upstream falls back to.
  return scorer_.Score(node, scorer_.PodRequests(pod), score,
                       DraScoringFor(state, scorer_.resources()));
}

StatusOr<std::unique_ptr<framework::Plugin>> NewFit(const config::NodeResourcesFitArgs& args,
                                                    framework::Handle& handle,
                                                    const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<Fit>(FitOptionsFromArgs(args), handle.device_classes()));
}

}  // namespace stowage::plugins::node_resources
