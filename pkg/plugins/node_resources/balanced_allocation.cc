#include "pkg/plugins/node_resources/balanced_allocation.h"

#include <cmath>
#include <string>
#include <utility>

namespace stowage::plugins::node_resources {
namespace {

constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";

struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;
  DraScoring dra;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace

int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable) {
  // The floating-point operations run in upstream's order so results round identically.
  constexpr size_t kInline = 8;
  // Only the first n are read, each written first: exempt from the build's zeroing of locals.
  [[gnu::uninitialized]] double inline_fractions[kInline];
  std::vector<double> heap_fractions;
  double* fractions = inline_fractions;
  if (requested.size() > kInline) {
    heap_fractions.resize(requested.size());
    fractions = heap_fractions.data();
  }
  size_t n = 0;
  double total = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) continue;
    double fraction = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (fraction > 1) fraction = 1;
    total += fraction;
    fractions[n++] = fraction;
  }
  double std_dev = 0.0;
  if (n == 2) {
    std_dev = std::fabs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(framework::kMaxNodeScore));
}

int64_t BalancedResourceScorer(std::span<const int64_t> requested,
                               std::span<const int64_t> allocated,
                               std::span<const int64_t> allocatable) {
  const int64_t with_pod = BalancedResourceScore(requested, allocatable);
  const int64_t without_pod = BalancedResourceScore(allocated, allocatable);
  // Both balances lie in [50, 100], so the difference lies in [-50, 50]; shifting and halving
  // maps it back onto [50, 100] around 75 for "no change".
  constexpr int64_t kHalf = framework::kMaxNodeScore / 2;
  return kHalf + (kHalf + with_pod - without_pod) / 2;
}

std::vector<ResourceSpec> BalancedAllocationResources(
    const config::NodeResourcesBalancedAllocationArgs& args) {
  // Empty only when the plugin is built without a configuration, which would have defaulted it.
  if (args.resources.empty()) return DefaultResources();
  std::vector<ResourceSpec> out;
  for (const config::ResourceSpec& r : args.resources) out.push_back({r.name, r.weight});
  return out;
}

BalancedAllocation::BalancedAllocation(std::vector<ResourceSpec> resources)
    : scorer_(std::move(resources), /*use_requested=*/true, BalancedResourceScorer) {}

framework::Status BalancedAllocation::PreScore(
    framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<const framework::NodeInfo*>& /*nodes*/) {
  std::vector<int64_t> requests = scorer_.PodRequests(pod);
  // Scoring best-effort pods by balance would pile them onto the same node
  // (kubernetes/kubernetes#129138), so the plugin sits them out.
  if (IsBestEffort(requests)) return framework::Status::Skip();
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = std::move(requests);
  s->dra = DraScoringFor(state, scorer_.resources());
  state.Write(kPreScoreStateKey, std::move(s));
  return {};
}

framework::Status BalancedAllocation::Score(const framework::CycleState& state,
                                            const framework::PodInfo& pod,
                                            const framework::NodeInfo& node, int64_t& score) {
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    return scorer_.Score(node, s->pod_requests, score, s->dra);
  }
  // PreScore did not run: compute here, scoring best-effort pods 0.
  std::vector<int64_t> requests = scorer_.PodRequests(pod);
  if (IsBestEffort(requests)) {
    score = 0;
    return {};
  }
  return scorer_.Score(node, requests, score, DraScoringFor(state, scorer_.resources()));
}

StatusOr<std::unique_ptr<framework::Plugin>> NewBalancedAllocation(
    const config::NodeResourcesBalancedAllocationArgs& args, framework::Handle& /*handle*/,
    const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<BalancedAllocation>(BalancedAllocationResources(args)));
}

}  // namespace stowage::plugins::node_resources
