// DynamicResources (upstream plugins/dynamicresources, v1.37.2): allocates the devices of a pod's
// ResourceClaims with the structured allocator (pkg/dra) and writes the allocation into the
// claims before the pod is bound.
//   PreEnqueue  every claim of the pod exists (a template's claim has been created by the
//               resourceclaim controller), else UnschedulableAndUnresolvable with upstream's text;
//               and no claim is being allocated by another pod's binding cycle: such a pod is
//               held (the queue asks again as it leaves activeQ) and activated once that
//               allocation is written or dropped, instead of failing an attempt in PreFilter
//               as upstream's does when it comes first.
//   PreFilter   Skip for a pod without claims; rejects a claim in use by others or whose
//               allocation is in flight, or a request naming a missing DeviceClass; builds an
//               Allocator for the unallocated claims over every known claim's devices plus the
//               allocations in flight (ClaimTracker).
//   Filter      allocated claims: their node selector must match the node ("resourceclaim not
//               available on the node"); unallocated ones: Allocate on this node ("cannot
//               allocate all claims"), keeping the result per node.
//   Score       prioritized lists: the earlier a firstAvailable subrequest, the higher; normalized.
//   PostFilter  deallocates one unavailable claim reserved for nobody else (Unschedulable
//               "deallocation of ResourceClaim completed"), else Unschedulable; "not found" when
//               PreFilter never ran.
//   Reserve     records the node's allocations as in flight; Unreserve drops them and removes
//               the pod from a claim's reservedFor if PreBind wrote it.
//   PreBindPreFlight  Success when the pod has claims (the scheduler nominates the node first).
//   PreBind     per claim not yet reserved for the pod: the finalizer, then status.allocation
//               (with its timestamp) and status.reservedFor through Handle::claim_writer().
// Extended resources a DeviceClass provides (DRAExtendedResource) take the path extended.h
// describes: a claim made per node in Filter and created in PreBind.
// Devices with binding conditions (binding_conditions.h): PreBind waits for them, and Filter
// counts a claim whose binding failed or timed out as unavailable.
// Not implemented: pod groups, node-allocatable resources. Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/common/keyed_mutex.h"
#include "pkg/dra/allocator.h"
#include "pkg/plugins/dynamic_resources/claim_tracker.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugin_config/args.h"
#include "stowage/plugins/helper/score_with_normalize.h"

namespace stowage::plugins::dynamic_resources {

inline constexpr std::string_view kName = "DynamicResources";
inline constexpr std::string_view kStateKey = "DynamicResources";

// What every profile's DynamicResources shares, one per scheduler as upstream's DRA manager is:
// a device allocated in flight or just written by one profile's pod is taken for the others too.
struct SharedClaims {
  explicit SharedClaims(const framework::Lister<api::ResourceClaim>& informer)
      : tracker(informer) {}
  ClaimTracker tracker;
  // Pods held by PreEnqueue (namespace, name) by the UID of the claim whose allocation they
  // wait for. Taken before the tracker's lock, never while calling into the queue.
  Mutex waiting_mu;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>, std::less<>> waiting
      GUARDED_BY(waiting_mu);
  // One PreBind write per claim at a time, by UID: the pods sharing a claim reserve it one after
  // another on the newest copy, instead of all writing the same resourceVersion and all but one
  // conflicting (each conflict a rejected request and a wait for the newer copy).
  KeyedMutex claim_writes;
};

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               // Score and NormalizeScore; the helper's Extensions() is
                               // how the framework finds NormalizeScore (upstream's
                               // ScoreExtensions()), which PreFilterPlugin's Extensions()
                               // keeps this class from overriding itself.
                               public helper::ScoreWithNormalize,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::EnqueueExtensions {
 public:
  // compiler: compiles selectors (CelSelectorCompiler in production); outlives the plugin.
  // filter_timeout: how long Filter may search one node's devices (zero: no limit).
  // binding_timeout: how long PreBind waits for devices' binding conditions.
  DynamicResources(framework::Handle& handle, const dra::SelectorCompiler& compiler,
                   dra::Features features = {},
                   std::chrono::nanoseconds filter_timeout = std::chrono::nanoseconds(0),
                   std::chrono::nanoseconds binding_timeout = std::chrono::minutes(10),
                   Clock& clock = RealClock());

  std::string_view Name() const override { return kName; }
  framework::Status PreEnqueue(const api::Pod& pod) override;
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>& nodes,
                              framework::PreFilterResult& result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& filtered,
                               framework::PluginsRunner& runner,
                               framework::NominatingInfo& result) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   framework::NodeScoreList& scores) override;
  framework::Status Reserve(framework::CycleState& state, const api::Pod& pod,
                            std::string_view node) override;
  void Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view node) override;
  framework::Status PreBind(framework::CycleState& state, const api::Pod& pod,
                            std::string_view node) override;
  // Success when the pod has claims, which PreBind writes: the scheduler then nominates the
  // node first, as upstream's PreBindPreFlight asks; Skip otherwise.
  framework::Status PreBindPreFlight(framework::CycleState& state, const api::Pod& pod,
                                     std::string_view node) override;
  // Upstream's: Node Add/UpdateNodeLabel/UpdateNodeAllocatable; ResourceClaim Add/Update/Delete
  // and the pod's own generated claims, with hints; DeviceClass and ResourceSlice Add/Update.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  ClaimTracker& tracker() { return tracker_; }

 private:
  // The hint of ResourceClaim events (upstream's isSchedulableAfterClaimChange).
  framework::QueueingHint AfterClaimChange(const api::Pod& pod,
                                           const framework::EventObject& old_obj,
                                           const framework::EventObject& new_obj) const;
  // Checks the classes of a claim's requests (upstream's validateDeviceClass).
  framework::Status ValidateClasses(const api::ResourceClaim& claim) const;
  // PreBind's wait for the binding conditions of claims' devices, with its event and metrics.
  framework::Status WaitForBindingConditions(std::vector<dra::ResourceClaimPtr>& claims,
                                             const api::Pod& pod, std::string_view node);
  // PreBind's write of the claim's allocation (when given) and the pod's reservation, retried
  // on a newer copy after a conflict.
  StatusOr<dra::ResourceClaimPtr> WriteClaim(
      framework::ClaimWriter& writer, const api::Pod& pod, dra::ResourceClaimPtr claim,
      const std::optional<api::AllocationResult>& allocation);
  // A copy of the claim newer than stale (this scheduler's last write, or the informer's),
  // waited for up to 5 s; nullptr if none came or the claim is gone.
  dra::ResourceClaimPtr NewerCopy(const api::ResourceClaim& stale) const;
  // The slices (taint rules applied) and classes as an Inventory, rebuilt only when one of the
  // three listers' versions has moved since the last call.
  std::shared_ptr<const dra::Inventory> CurrentInventory();
  // Drops the in-flight allocation of the claim with uid and activates the pods PreEnqueue
  // held for it.
  void EndPendingAllocation(std::string_view uid);

  framework::Handle& handle_;
  const framework::Lister<api::ResourceSlice>& slices_;
  const framework::Lister<api::DeviceClass>& classes_;
  const framework::Lister<api::DeviceTaintRule>& taint_rules_;
  const dra::SelectorCompiler& compiler_;
  const dra::Features features_;
  const std::chrono::nanoseconds filter_timeout_;
  const std::chrono::nanoseconds binding_timeout_;
  Clock& clock_;
  const std::shared_ptr<SharedClaims> shared_;  // the handle's (Handle::SharedObject)
  ClaimTracker& tracker_;                       // shared_->tracker
  Mutex inventory_mu_;
  std::shared_ptr<const dra::Inventory> inventory_ GUARDED_BY(inventory_mu_);
  std::array<uint64_t, 3> inventory_versions_ GUARDED_BY(inventory_mu_) = {};
};
static_assert(std::is_base_of_v<framework::PreEnqueuePlugin, DynamicResources>);
static_assert(std::is_base_of_v<framework::FilterPlugin, DynamicResources>);
static_assert(std::is_base_of_v<framework::ScoreExtensions, DynamicResources>);
static_assert(std::is_base_of_v<framework::PreBindPlugin, DynamicResources>);

// Takes DynamicResourcesArgs: filterTimeout bounds Filter's search when DRASchedulerFilterTimeout
// is on; bindingTimeout bounds PreBind's wait for binding conditions. The plugin
// compiles selectors with the CEL bridge at cel::Engine::DefaultLibraryPath().
StatusOr<std::unique_ptr<framework::Plugin>> New(const config::DynamicResourcesArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::dynamic_resources
