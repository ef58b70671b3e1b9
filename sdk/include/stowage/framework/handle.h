// Handle: what the framework gives plugins besides the pod: the cycle's snapshot of nodes, the
// worker pool, the pods waiting at Permit, the few API writes plugins make (PodWriter), listers
// of the other kinds they read (namespaces, services, workload controllers, PDBs, storage), the
// nominator and the queue's Activate, behind interfaces so plugins depend on neither the cache,
// the informers, the client nor the scheduler.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"
#include "stowage/framework/types.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {
class WaitingPod;
class PodInPreBind;
class Extender;
}  // namespace stowage::framework

namespace stowage::framework {

// Read-only access to the snapshot the current cycle works on.
class NodeInfoLister {
 public:
  virtual ~NodeInfoLister() = default;
  // All nodes, in the zone-interleaved order of the node tree.
  virtual const std::vector<const NodeInfo*>& List() const = 0;
  virtual const std::vector<const NodeInfo*>& HavePodsWithAffinityList() const = 0;
  virtual const std::vector<const NodeInfo*>& HavePodsWithRequiredAntiAffinityList() const = 0;
  virtual const NodeInfo* Get(std::string_view node_name) const = 0;

  // The change log, for plugins that keep per-node results across cycles. A NodeInfo's
  // generation is globally unique, so (NodeInfo*, generation) identifies its contents.
  // generation(): the newest change this snapshot holds. ChangedSince(g, out) appends the nodes
  // changed after g (a node may appear twice; compare its generation) and returns true, or
  // returns false when the log does not reach back to g or the node list changed since: then
  // every node must be looked at again. A lister without a log always answers false.
  virtual int64_t generation() const { return 0; }
  virtual bool ChangedSince(int64_t /*generation*/, std::vector<const NodeInfo*>& /*out*/) const {
    return false;
  }
  // Changes whenever List()'s membership or order changes (positions in it are then stale).
  virtual int64_t list_version() const { return 0; }
};

// Runs fn(i) for i in [0, n) on a pool of `parallelism` workers, in chunks; returns when all
// are done or stop() turned true (checked between pieces).
class Parallelizer {
 public:
  virtual ~Parallelizer() = default;
  virtual void Until(size_t n, const std::function<void(size_t)>& fn,
                     const std::function<bool()>& stop = {}) = 0;
  virtual int parallelism() const = 0;
};

// The API writes plugins make about pods: binding (DefaultBinder), status updates (the
// nominations and conditions of preemption) and deletion (preemption's victims). Each call is one
// request (PatchPodStatus retries a conflict as upstream's util.PatchPodStatus); further retrying
// is the plugin's choice.
// Implementations are thread-safe: binding cycles of several pods call them concurrently.
class PodWriter {
 public:
  virtual ~PodWriter() = default;
  // POST pods/<name>/binding of pod (namespace, name and UID) to node_name. A conflict (the pod
  // is already bound) is an error.
  virtual stowage::Status Bind(const api::Pod& pod, std::string_view node_name) = 0;
  // Changes pod's status to new_status with the two-way strategic merge patch from pod.status
  // (no request when they are equal). A pod deleted meanwhile answers NotFound.
  virtual stowage::Status PatchPodStatus(const api::Pod& pod, const api::PodStatus& new_status) = 0;
  // DELETE the pod (namespace and name) with the default grace period, as upstream's
  // util.DeletePod. A pod already gone answers NotFound.
  virtual stowage::Status DeletePod(const api::Pod& pod) = 0;
};

// The API writes of volume binding: upstream's binder updates a PV's claimRef (a static
// binding) and a PVC's selected-node annotation (a provisioning request), and the PV controller
// does the rest. Each call is one request that fails with a Conflict when the object changed
// since the resource version it carries, and answers the object as the apiserver stored it.
// Implementations are thread-safe.
class VolumeWriter {
 public:
  virtual ~VolumeWriter() = default;
  // Writes pv's spec.claimRef and metadata.annotations.
  virtual StatusOr<std::shared_ptr<const api::PersistentVolume>> UpdateVolume(
      const api::PersistentVolume& pv) = 0;
  // Writes claim's metadata.annotations.
  virtual StatusOr<std::shared_ptr<const api::PersistentVolumeClaim>> UpdateClaim(
      const api::PersistentVolumeClaim& claim) = 0;
};

// The API writes of DynamicResources: the finalizer that protects an allocated claim, then its
// status (upstream's bindClaim). Each call is one request that fails with a Conflict when the
// claim changed since the resource version it carries, and answers the claim as the apiserver
// stored it. Implementations are thread-safe.
class ClaimWriter {
 public:
  virtual ~ClaimWriter() = default;
  // Adds finalizer to claim's metadata.finalizers (kept when already there).
  virtual StatusOr<std::shared_ptr<const api::ResourceClaim>> AddClaimFinalizer(
      const api::ResourceClaim& claim, std::string_view finalizer) = 0;
  // Writes claim's status.allocation and status.reservedFor.
  virtual StatusOr<std::shared_ptr<const api::ResourceClaim>> UpdateClaimStatus(
      const api::ResourceClaim& claim) = 0;
  // Creates claim (its metadata.generateName, namespace, owners, annotations and spec; no
  // status), for the claim the scheduler makes for a pod's extended resources.
  virtual StatusOr<std::shared_ptr<const api::ResourceClaim>> CreateClaim(
      const api::ResourceClaim& claim) {
    (void)claim;
    return stowage::UnimplementedError("this handle cannot create ResourceClaims");
  }
  // Takes finalizer off the claim, then deletes it; a claim already gone is no error.
  virtual stowage::Status DeleteClaim(const api::ResourceClaim& claim, std::string_view finalizer) {
    (void)claim, (void)finalizer;
    return stowage::UnimplementedError("this handle cannot delete ResourceClaims");
  }
};

// Read access to the informer cache of one kind (upstream's listers). Thread-safe; the objects
// are immutable and shared, so a result stays valid however the cache changes afterwards.
template <typename T>
class Lister {
 public:
  using Ptr = std::shared_ptr<const T>;
  virtual ~Lister() = default;
  // Every object of the kind.
  virtual std::vector<Ptr> List() const = 0;
  // The objects of one namespace (namespaced kinds).
  virtual std::vector<Ptr> List(std::string_view ns) const = 0;
  // The object named name in ns (ns empty for cluster-scoped kinds); nullptr if absent.
  virtual Ptr Get(std::string_view ns, std::string_view name) const = 0;
  // A number that changes whenever the objects do, read before List(), so a plugin may keep what
  // it derived from a list until it changes; nullopt when the lister cannot tell, and then
  // nothing derived may be kept.
  virtual std::optional<uint64_t> Version() const { return std::nullopt; }
};

// What a Lister may offer besides (ask with dynamic_cast): the objects written since a Version(),
// so a plugin that keeps what it derived from a list brings it up to date from those alone.
template <typename T>
class ChangeFeed {
 public:
  using Ptr = std::shared_ptr<const T>;
  // One write: before is null for an add, after is null for a deletion.
  struct Change {
    Ptr before, after;
  };
  virtual ~ChangeFeed() = default;
  // Appends the writes after version since, oldest first, to out and sets now to the version
  // they lead to; false when they are not all kept any more, and then the plugin lists again.
  virtual bool ChangesSince(uint64_t since, std::vector<Change>& out, uint64_t& now) const = 0;
};

// A lister that holds nothing, for handles without informers (unit tests, bench_cycle).
template <typename T>
class EmptyLister final : public Lister<T> {
 public:
  using typename Lister<T>::Ptr;
  std::vector<Ptr> List() const override { return {}; }
  std::vector<Ptr> List(std::string_view) const override { return {}; }
  Ptr Get(std::string_view, std::string_view) const override { return nullptr; }
  std::optional<uint64_t> Version() const override { return 0; }
  static const EmptyLister& Instance() {
    static const EmptyLister lister;
    return lister;
  }
};

// Where preemption reports its metrics (scheduler_preemption_attempts_total,
// scheduler_preemption_victims, scheduler_preemption_goroutines_*), so plugins need not link
// pkg/metrics. The defaults record nothing.
class PreemptionMetrics {
 public:
  virtual ~PreemptionMetrics() = default;
  virtual void Attempt() {}
  virtual void Victims(int count) { (void)count; }
  // One asynchronous preemption's API calls, how they ended and how long they took.
  virtual void Goroutine(bool success, double seconds) { (void)success, (void)seconds; }
};

// Where the volume binder reports its failures (scheduler_volume_scheduling_stage_error_total,
// by operation: predicate, assume or bind), so plugins need not link pkg/metrics. The default
// records nothing.
class VolumeMetrics {
 public:
  virtual ~VolumeMetrics() = default;
  virtual void StageError(std::string_view operation) { (void)operation; }
};

// Where DynamicResources reports device binding conditions (scheduler_dra_bindingconditions_*),
// so plugins need not link pkg/metrics. The default records nothing.
class DraMetrics {
 public:
  virtual ~DraMetrics() = default;
  // One device PreBind waited for (wait_seconds set), or one device with binding conditions in
  // the claims of an attempt; status is how the wait ended: success, failed, timeout or error.
  virtual void BindingConditions(std::string_view profile, std::string_view driver,
                                 std::string_view status, std::optional<double> wait_seconds) {
    (void)profile, (void)driver, (void)status, (void)wait_seconds;
  }
};

class Handle {
 public:
  virtual ~Handle() = default;
  virtual const NodeInfoLister& SnapshotSharedLister() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  // Where plugins send the API writes they make.
  virtual PodWriter& pod_writer() = 0;
  // The pod with this UID if it is waiting at Permit (shared so it stays valid while used).
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) {
    (void)uid;
    return nullptr;
  }
  // The pod with this UID if its binding cycle is running PreBind (upstream's GetPodInPreBind).
  virtual std::shared_ptr<PodInPreBind> GetPodInPreBind(std::string_view uid) {
    (void)uid;
    return nullptr;
  }

  // Listers of the kinds plugins read besides pods and nodes. The scheduler creates a kind's
  // informer on the first call, so a plugin calls these in its factory (before the informers
  // start) and the kind is listed and synced with the others; kinds no plugin asks for are never
  // watched. The defaults hold nothing.
  virtual const Lister<api::Namespace>& namespaces() {
    return EmptyLister<api::Namespace>::Instance();
  }
  virtual const Lister<api::Service>& services() { return EmptyLister<api::Service>::Instance(); }
  virtual const Lister<api::ReplicaSet>& replica_sets() {
    return EmptyLister<api::ReplicaSet>::Instance();
  }
  virtual const Lister<api::StatefulSet>& stateful_sets() {
    return EmptyLister<api::StatefulSet>::Instance();
  }
  virtual const Lister<api::ReplicationController>& replication_controllers() {
    return EmptyLister<api::ReplicationController>::Instance();
  }
  virtual const Lister<api::PodDisruptionBudget>& pod_disruption_budgets() {
    return EmptyLister<api::PodDisruptionBudget>::Instance();
  }
  // The pods the scheduler's own informer holds (non-terminal ones), as they are now.
  virtual const Lister<api::Pod>& pods() { return EmptyLister<api::Pod>::Instance(); }

  // The nominator (upstream's PodNominator): the pods nominated to node_name, as the queue
  // holds them now.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(std::string_view node_name) {
    (void)node_name;
    return {};
  }
  // Moves the pod, if it waits in the queue (unschedulable or held by a PreEnqueue plugin),
  // to the active queue through PreEnqueue again (upstream's Handle.Activate).
  virtual void Activate(const api::Pod& pod) { (void)pod; }
  // Runs task off the scheduling thread (upstream's goroutine); the scheduler waits for it
  // when it stops. The default runs it at once, on the calling thread.
  virtual void RunAsync(std::function<void()> task) { task(); }
  // The configured extenders (extender.h), in the configuration's order; preemption asks
  // those with a preempt verb. The default has none.
  virtual const std::vector<Extender*>& extenders() const {
    static const std::vector<Extender*> none;
    return none;
  }
  virtual PreemptionMetrics& preemption_metrics() {
    static PreemptionMetrics* const none = new PreemptionMetrics;
    return *none;
  }
  virtual VolumeMetrics& volume_metrics() {
    static VolumeMetrics* const none = new VolumeMetrics;
    return *none;
  }
  // Records an event about regarding, reported by the profile named controller (type Normal or
  // Warning), as the scheduler's own events are; related (may be null) is the event's secondary
  // object, as the preemptor of a Preempted event.
  virtual void RecordEvent(const api::Pod& regarding, std::string_view controller,
                           std::string_view type, std::string_view reason, std::string_view action,
                           std::string note, const api::Pod* related) {
    (void)regarding, (void)controller, (void)type, (void)reason, (void)action, (void)note,
        (void)related;
  }

  // The storage kinds the volume plugins read (upstream's PV, PVC and StorageClass listers).
  // Declared last so that plugin libraries built before them keep their vtable slots.
  virtual const Lister<api::PersistentVolume>& persistent_volumes() {
    return EmptyLister<api::PersistentVolume>::Instance();
  }
  virtual const Lister<api::PersistentVolumeClaim>& persistent_volume_claims() {
    return EmptyLister<api::PersistentVolumeClaim>::Instance();
  }
  virtual const Lister<api::StorageClass>& storage_classes() {
    return EmptyLister<api::StorageClass>::Instance();
  }
  // The CSI kinds VolumeBinding and NodeVolumeLimits read.
  virtual const Lister<api::CSINode>& csi_nodes() { return EmptyLister<api::CSINode>::Instance(); }
  virtual const Lister<api::CSIDriver>& csi_drivers() {
    return EmptyLister<api::CSIDriver>::Instance();
  }
  virtual const Lister<api::CSIStorageCapacity>& csi_storage_capacities() {
    return EmptyLister<api::CSIStorageCapacity>::Instance();
  }
  // Where VolumeBinding writes its PV and PVC updates; null when the handle reaches no API.
  virtual VolumeWriter* volume_writer() { return nullptr; }
  // True once the scheduler has begun to stop: long waits in plugins (PreBind's) end early.
  virtual bool Stopping() const { return false; }
  // The VolumeAttachments NodeVolumeLimits counts against a node's CSI limits.
  virtual const Lister<api::VolumeAttachment>& volume_attachments() {
    return EmptyLister<api::VolumeAttachment>::Instance();
  }
  // The resource.k8s.io/v1 kinds DynamicResources reads.
  virtual const Lister<api::ResourceClaim>& resource_claims() {
    return EmptyLister<api::ResourceClaim>::Instance();
  }
  virtual const Lister<api::ResourceClaimTemplate>& resource_claim_templates() {
    return EmptyLister<api::ResourceClaimTemplate>::Instance();
  }
  virtual const Lister<api::ResourceSlice>& resource_slices() {
    return EmptyLister<api::ResourceSlice>::Instance();
  }
  virtual const Lister<api::DeviceClass>& device_classes() {
    return EmptyLister<api::DeviceClass>::Instance();
  }
  virtual const Lister<api::DeviceTaintRule>& device_taint_rules() {
    return EmptyLister<api::DeviceTaintRule>::Instance();
  }
  // Where DynamicResources writes claims' allocations; null when the handle reaches no API.
  virtual ClaimWriter* claim_writer() { return nullptr; }
  virtual DraMetrics& dra_metrics() {
    static DraMetrics* const none = new DraMetrics;
    return *none;
  }
  // State every profile's instance of a plugin must share, as upstream keeps its DRA manager
  // once per scheduler: the object make() builds on the first call with key, that same object
  // on every later call. A handle for one profile alone may return make() each time.
  virtual std::shared_ptr<void> SharedObject(std::string_view key,
                                             const std::function<std::shared_ptr<void>()>& make) {
    (void)key;
    return make();
  }
};

}  // namespace stowage::framework

#pragma GCC visibility pop
