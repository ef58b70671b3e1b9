// FrameworkHandle: the framework::Handle the scheduler gives every profile's plugins: the
// cycle's snapshot, the worker pool, the pods waiting at Permit in any profile, a PodWriter and
// listers over the scheduler's informers. It holds references only, so plugins reach no more of
// the scheduler than this; the objects referred to outlive the frameworks. Thread-safe as the
// objects it refers to are.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "pkg/common/mutex.h"
#include "pkg/framework/handle.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/informer_lister.h"

namespace stowage::scheduler {

class FrameworkHandle final : public framework::Handle {
 public:
  // The pod with this UID if it waits at Permit in some profile.
  using WaitingPodLookup = std::function<std::shared_ptr<framework::WaitingPod>(std::string_view)>;

  // informers may be null (no listers: they hold nothing).
  FrameworkHandle(const framework::NodeInfoLister& snapshot, framework::Parallelizer& pool,
                  framework::PodWriter& writer, WaitingPodLookup waiting_pods,
                  informer::InformerFactory* informers = nullptr)
      : snapshot_(snapshot),
        pool_(pool),
        writer_(writer),
        waiting_pods_(std::move(waiting_pods)),
        informers_(informers) {}

  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot_; }
  framework::Parallelizer& parallelizer() override { return pool_; }
  framework::PodWriter& pod_writer() override { return writer_; }
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view uid) override {
    return waiting_pods_(uid);
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

  const framework::NodeInfoLister& snapshot_;
  framework::Parallelizer& pool_;
  framework::PodWriter& writer_;
  const WaitingPodLookup waiting_pods_;
  informer::InformerFactory* const informers_;
  Mutex mu_;
  std::unique_ptr<InformerLister<api::Namespace>> namespaces_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::Service>> services_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ReplicaSet>> replica_sets_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::StatefulSet>> stateful_sets_ GUARDED_BY(mu_);
  std::unique_ptr<InformerLister<api::ReplicationController>> replication_controllers_
      GUARDED_BY(mu_);
};

}  // namespace stowage::scheduler
