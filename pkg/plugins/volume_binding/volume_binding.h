// VolumeBinding (upstream plugins/volumebinding): a pod's PersistentVolumeClaims decide where
// it may go, and the scheduler binds the claims that wait for their first consumer.
//
// PreFilter rejects, as UnschedulableAndUnresolvable with upstream's words, a pod whose claim is
// missing, lost, terminating, not owned (generic ephemeral volumes) or unbound with immediate
// binding. Filter keeps the nodes that bound claims' volumes allow by their node affinity and
// where each unbound WaitForFirstConsumer claim gets a volume: a matching static PV, or
// provisioning that the class's allowed topologies and the driver's CSIStorageCapacity allow.
// Score prefers, by VolumeBindingArgs.shape, nodes whose volumes the claims fill least (or
// most). Reserve assumes the choice, PreBind writes it and waits up to bindTimeoutSeconds for
// the PV controller to bind, Unreserve forgets it. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/plugins/volume_binding/binder.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugin_config/args.h"

namespace stowage::plugins::volume_binding {

inline constexpr std::string_view kName = "VolumeBinding";
inline constexpr std::string_view kStateKey = "PreFilterVolumeBinding";

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  // scorer: the capacity score of a node from (requested, capacity) per class; null when
  // StorageCapacityScoring is off, which turns Score off too.
  using Scorer = std::function<int64_t(const std::vector<std::pair<int64_t, int64_t>>&)>;
  VolumeBinding(framework::Handle& handle, Binder::Options options, Scorer scorer,
                bool capacity_scoring);
  std::string_view Name() const override { return kName; }
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             const std::vector<const framework::NodeInfo*>& nodes) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;
  framework::Status Reserve(framework::CycleState& state, const api::Pod& pod,
                            std::string_view node) override;
  void Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view node) override;
  // Skip when every claim is bound already, so the scheduler need not nominate the node first.
  framework::Status PreBindPreFlight(framework::CycleState& state, const api::Pod& pod,
                                     std::string_view node) override;
  framework::Status PreBind(framework::CycleState& state, const api::Pod& pod,
                            std::string_view node) override;
  // Upstream's events: StorageClass, PVC and CSIStorageCapacity Add/Update, PV Add/Update,
  // Node Add/UpdateNodeLabel, CSINode Add/Update and CSIDriver Update, with upstream's hints.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  Binder& binder() { return binder_; }

 private:
  const framework::Lister<api::PersistentVolumeClaim>& claims_;
  const framework::Lister<api::StorageClass>& classes_;
  Binder binder_;
  const Scorer scorer_;
  const bool capacity_scoring_;
};

// Takes VolumeBindingArgs (bindTimeoutSeconds, shape).
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::VolumeBindingArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::volume_binding
