#include "pkg/plugins/volume_binding/volume_binding.h"

#include <optional>
#include <string>

#include "pkg/plugins/volume_binding/claims.h"
#include "stowage/api/labels.h"

namespace stowage::plugins::volume_binding {
namespace {

// A bound claim's volume as Filter checks it: missing, or its node affinity compiled once.
struct BoundVolume {
  bool missing = false;
  std::optional<api::NodeSelectorMatcher> affinity;  // none: any node
};

struct PreFilterState final : framework::StateData {
  std::vector<BoundVolume> bound;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

}  // namespace

VolumeBinding::VolumeBinding(framework::Handle& handle)
    : volumes_(handle.persistent_volumes()),
      claims_(handle.persistent_volume_claims()),
      classes_(handle.storage_classes()) {}

framework::Status VolumeBinding::PreFilter(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::vector<const framework::NodeInfo*>&,
                                           framework::PreFilterResult&) {
  ClaimsOrReason sorted = SortPodClaims(*pod, claims_, classes_);
  if (sorted.unschedulable) return framework::Status::Unresolvable(*sorted.unschedulable);
  if (!sorted.claims.has_claims) return framework::Status::Skip();
  if (sorted.error) return framework::Status::Error(*sorted.error);
  if (!sorted.claims.unbound_immediate.empty()) {
    return framework::Status::Unresolvable(std::string(kErrUnboundImmediate));
  }
  if (!sorted.claims.unbound_delayed.empty()) {
    return framework::Status::Unresolvable(std::string(kGuardReason));
  }
  auto s = std::make_unique<PreFilterState>();
  for (const ClaimPtr& pvc : sorted.claims.bound) {
    BoundVolume& b = s->bound.emplace_back();
    auto pv = volumes_.Get("", pvc->volume_name);
    if (pv == nullptr) {
      b.missing = true;
    } else if (pv->node_affinity) {
      b.affinity = api::NodeSelectorMatcher::Compile(*pv->node_affinity);
    }
  }
  state.Write(kStateKey, std::move(s));
  return {};
}

framework::Status VolumeBinding::Filter(const framework::CycleState& state,
                                        const framework::PodInfo&,
                                        const framework::NodeInfo& node) {
  const auto* s = state.Read<PreFilterState>(kStateKey);
  if (s == nullptr) {
    return framework::Status::Error("reading \"" + std::string(kStateKey) +
                                    "\" from cycleState: not found");
  }
  // As upstream's checkBoundClaims, the first volume that fails decides; its node affinity is
  // matched against the node's labels only (upstream builds a node without a name for it, so
  // matchFields terms are skipped).
  for (const BoundVolume& b : s->bound) {
    if (b.missing) return framework::Status::Unresolvable(std::string(kErrReasonPVNotExist));
    if (b.affinity && !b.affinity->Matches(node.node()->metadata.labels, "")) {
      return framework::Status::Unresolvable(std::string(kErrReasonNodeConflict));
    }
  }
  return {};
}

std::vector<framework::ClusterEventWithHint> VolumeBinding::EventsToRegister() const {
  using framework::EventResource;
  constexpr uint32_t kAddOrUpdate = framework::kAdd | framework::kUpdate;
  return {
      {{EventResource::kStorageClass, kAddOrUpdate}, nullptr},
      {{EventResource::kPersistentVolumeClaim, kAddOrUpdate}, nullptr},
      {{EventResource::kPersistentVolume, kAddOrUpdate}, nullptr},
      {{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel}, nullptr},
  };
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&,
                                                 framework::Handle& handle,
                                                 const framework::Features&) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<VolumeBinding>(handle));
}

}  // namespace stowage::plugins::volume_binding
