// FrameworkHandle: the framework::Handle the scheduler gives every profile's plugins: the
// cycle's snapshot, the worker pool, the pods waiting at Permit in any profile, a PodWriter,
// listers over the scheduler's informers, and the queue, events and threads preemption uses. It
// holds references only, so plugins reach no more of the scheduler than this; the objects
// referred to outlive the frameworks. Thread-safe as the objects it refers to are.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/framework/shared_objects.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/metrics/metrics.h"
#include "pkg/scheduler/informer_lister.h"
#include "stowage/common/mutex.h"
#include "stowage/framework/handle.h"

namespace stowage::scheduler {

// What a FrameworkHandle reaches of the running scheduler besides its snapshot, pool, writer
// and informers; an empty member leaves the Handle's default in place.
struct SchedulerHooks {
  // The scheduler's own pod informer (non-terminal pods), for pods().
  const informer::SharedInformer<api::Pod>* pods = nullptr;
  std::function<std::vector<framework::PodInfoPtr>(std::string_view)> nominated_pods;
  std::function<void(const api::Pod&)> activate;
  std::function<void(const api::Pod&, std::string_view, std::string_view, std::string_view,
                     std::string_view, std::string, const api::Pod*)>
      record_event;
  std::function<void(std::function<void()>)> run_async;
  std::function<std::shared_ptr<framework::PodInPreBind>(std::string_view)> pod_in_pre_bind;
  // The configured extenders, for preemption (framework/extender.h).
  std::vector<framework::Extender*> extenders;
  // Where VolumeBinding writes PVs and PVCs.
  framework::VolumeWriter* volume_writer = nullptr;
  // Where DynamicResources writes claims.
  framework::ClaimWriter* claim_writer = nullptr;
  // Set when the scheduler begins to stop.
  const std::atomic<bool>* stopping = nullptr;
};

class FrameworkHandle final : public framework::Handle {
 public:
  // The pod with this UID if it waits at Permit in some profile.
  using WaitingPodLookup = std::function<std::shared_ptr<framework::WaitingPod>(std::string_view)>;

  // informers may be null (no listers: they hold nothing).
  FrameworkHandle(const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
                  framework::PodWriter& writer, WaitingPodLookup waiting_pods,
                  informer::InformerFactory* informers = nullptr, SchedulerHooks hooks = {})
      : snapshot_(snapshot),
        pool_(pool),
        writer_(writer),
        waiting_pods_(std::move(waiting_pods)),
        informers_(informers),
        hooks_(std::move(hooks)) {
    if (hooks_.pods != nullptr) pods_ = std::make_unique<InformerLister<api::Pod>>(*hooks_.pods);
  }

  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot_; }
  framework::Parallelizer& parallelizer() override { return pool_; }
  framework::PodWriter& pod_writer() override { return writer_; }
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view uid) override {
    return waiting_pods_(uid);
  }
  std::shared_ptr<framework::PodInPreBind> GetPodInPreBind(std::string_view uid) override {
    return hooks_.pod_in_pre_bind ? hooks_.pod_in_pre_bind(uid) : nullptr;
  }

  const framework::Lister<api::Namespace>& namespaces() override {
    return Get(&FrameworkHandle::namespaces_);
  }
  const framework::Lister<api::Service>& services() override {
    return Get(&FrameworkHandle::services_);
  }
  const framework::Lister<api::ReplicaSet>& replica_sets() override {
    return Get(&FrameworkHandle::replica_sets_);
  }
  const framework::Lister<api::StatefulSet>& stateful_sets() override {
    return Get(&FrameworkHandle::stateful_sets_);
  }
  const framework::Lister<api::ReplicationController>& replication_controllers() override {
    return Get(&FrameworkHandle::replication_controllers_);
  }
  const framework::Lister<api::PodDisruptionBudget>& pod_disruption_budgets() override {
    return Get(&FrameworkHandle::pod_disruption_budgets_);
  }
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override {
    return Get(&FrameworkHandle::persistent_volumes_);
  }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return Get(&FrameworkHandle::persistent_volume_claims_);
  }
  const framework::Lister<api::StorageClass>& storage_classes() override {
    return Get(&FrameworkHandle::storage_classes_);
  }
  const framework::Lister<api::CSINode>& csi_nodes() override {
    return Get(&FrameworkHandle::csi_nodes_);
  }
  const framework::Lister<api::CSIDriver>& csi_drivers() override {
    return Get(&FrameworkHandle::csi_drivers_);
  }
  const framework::Lister<api::CSIStorageCapacity>& csi_storage_capacities() override {
    return Get(&FrameworkHandle::csi_storage_capacities_);
  }
  framework::VolumeWriter* volume_writer() override { return hooks_.volume_writer; }
  framework::ClaimWriter* claim_writer() override { return hooks_.claim_writer; }
  bool Stopping() const override { return hooks_.stopping != nullptr && hooks_.stopping->load(); }
  const framework::Lister<api::VolumeAttachment>& volume_attachments() override {
    return Get(&FrameworkHandle::volume_attachments_);
  }
  const framework::Lister<api::ResourceClaim>& resource_claims() override {
    return Get(&FrameworkHandle::resource_claims_);
  }
  const framework::Lister<api::ResourceClaimTemplate>& resource_claim_templates() override {
    return Get(&FrameworkHandle::resource_claim_templates_);
  }
  const framework::Lister<api::ResourceSlice>& resource_slices() override {
    return Get(&FrameworkHandle::resource_slices_);
  }
  const framework::Lister<api::DeviceClass>& device_classes() override {
    return Get(&FrameworkHandle::device_classes_);
  }
  const framework::Lister<api::DeviceTaintRule>& device_taint_rules() override {
    return Get(&FrameworkHandle::device_taint_rules_);
  }
  const framework::Lister<api::Pod>& pods() override {
    if (!pods_) return framework::EmptyLister<api::Pod>::Instance();
    return *pods_;
  }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) override {
    return hooks_.nominated_pods ? hooks_.nominated_pods(node)
                                 : std::vector<framework::PodInfoPtr>{};
  }
  void Activate(const api::Pod& pod) override {
    if (hooks_.activate) hooks_.activate(pod);
  }
  void RecordEvent(const api::Pod& regarding, std::string_view controller, std::string_view type,
                   std::string_view reason, std::string_view action, std::string note,
                   const api::Pod* related) override {
    if (hooks_.record_event) {
      hooks_.record_event(regarding, controller, type, reason, action, std::move(note), related);
    }
  }
  void RunAsync(std::function<void()> task) override {
    if (hooks_.run_async) return hooks_.run_async(std::move(task));
    task();
  }
  framework::PreemptionMetrics& preemption_metrics() override { return preemption_metrics_; }
  framework::VolumeMetrics& volume_metrics() override { return volume_metrics_; }
  framework::DraMetrics& dra_metrics() override { return dra_metrics_; }
  const std::vector<framework::Extender*>& extenders() const override { return hooks_.extenders; }
  // One handle serves every profile, so an object kept here is the scheduler's, as upstream's
  // shared managers are.
  std::shared_ptr<void> SharedObject(std::string_view key,
                                     const std::function<std::shared_ptr<void>()>& make) override {
    return shared_.Get(key, make);
  }

 private:
  // The lister of T, its informer created by the factory on the first call.
  template <typename T>
  const framework::Lister<T>& Get(std::unique_ptr<InformerLister<T>> FrameworkHandle::*member) {
    if (informers_ == nullptr) return framework::EmptyLister<T>::Instance();
    MutexLock l(mu_);
    auto& slot = this->*member;
    if (!slot) slot = std::make_unique<InformerLister<T>>(informers_->For<T>());
    return *slot;
  }

  // The scheduler's preemption families (pkg/metrics).
  class Metrics final : public framework::PreemptionMetrics {
   public:
    void Attempt() override { metrics::PreemptionAttempts().Increment(); }
    void Victims(int count) override { metrics::PreemptionVictims().Observe(count); }
    void Goroutine(bool success, double seconds) override {
      metrics::ObservePreemptionGoroutine(success, seconds);
    }
  };

  class VolumeStageErrors final : public framework::VolumeMetrics {
   public:
    void StageError(std::string_view operation) override {
      metrics::VolumeSchedulingStageError(operation).Increment();
    }
  };

  class DraBindingConditions final : public framework::DraMetrics {
   public:
    void BindingConditions(std::string_view profile, std::string_view driver,
                           std::string_view status, std::optional<double> wait_seconds) override {
      metrics::ObserveDraBindingConditions(profile, driver, status, wait_seconds);
    }
  };

  const framework::NodeInfoLister& snapshot_;
  framework::Parallelizer& pool_;
  framework::PodWriter& writer_;
  const WaitingPodLookup waiting_pods_;
  informer::InformerFactory* const informers_;
  const SchedulerHooks hooks_;
  std::unique_ptr<InformerLister<api::Pod>> pods_;  // set once, in the constructor
  Metrics preemption_metrics_;
  VolumeStageErrors volume_metrics_;
  DraBindingConditions dra_metrics_;
  Mutex mu_;
  std::unique_ptr<InformerLister<api::Namespace>> namespaces_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::Service>> services_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ReplicaSet>> replica_sets_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::StatefulSet>> stateful_sets_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ReplicationController>> replication_controllers_
      GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::PodDisruptionBudget>> pod_disruption_budgets_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::PersistentVolume>> persistent_volumes_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::PersistentVolumeClaim>> persistent_volume_claims_
      GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::StorageClass>> storage_classes_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::CSINode>> csi_nodes_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::CSIDriver>> csi_drivers_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::CSIStorageCapacity>> csi_storage_capacities_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::VolumeAttachment>> volume_attachments_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ResourceClaim>> resource_claims_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ResourceClaimTemplate>> resource_claim_templates_
      GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ResourceSlice>> resource_slices_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::DeviceClass>> device_classes_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::DeviceTaintRule>> device_taint_rules_ GUARDED_BY(mu_);
  // Last, so its objects, which may refer to the listers above, go first.
  framework::SharedObjects shared_;
};

}  // namespace stowage::scheduler
