// A framework::Handle for plugin unit tests: a settable snapshot of NodeInfos, a Parallelizer
// that runs every piece on the calling thread, a PodWriter (the handle itself) that records its
// calls and returns injectable errors, settable PDBs and nominated pods, and recorded events and
// activations (RunAsync keeps the Handle's default: at once, on the caller's thread). Also builders
// of NodeInfos shaped like the cache's snapshot.
//
// Thread-safety: Bind and the bind-call accessors may be used from several threads; setting
// the nodes must not race with readers of SnapshotSharedLister().
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/framework/shared_objects.h"
#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"
#include "tests/testing/fake_lister.h"

namespace stowage::testing {

using NodeInfoPtr = std::shared_ptr<framework::NodeInfo>;

// A NodeInfo for node holding every pod given (their spec.nodeName is not checked). Image states
// count only this node; use MakeNodeInfos for cluster-wide counts.
NodeInfoPtr MakeNodeInfo(api::NodePtr node, const std::vector<api::PodPtr>& pods = {});

// One NodeInfo per node, in order, as the snapshot builds them: each pod goes to the node its
// spec.nodeName names (other pods are dropped), and each node's image states map every name of
// every image it lists to {that image's size, the number of nodes listing the name}.
std::vector<NodeInfoPtr> MakeNodeInfos(const std::vector<api::NodePtr>& nodes,
                                       const std::vector<api::PodPtr>& pods = {});

// Views NodeInfos as plugins receive them in PreFilter/PreScore.
std::vector<const framework::NodeInfo*> Pointers(const std::vector<NodeInfoPtr>& infos);

// Runs fn(0..n-1) in order on the calling thread.
class SequentialParallelizer : public framework::Parallelizer {
 public:
  void Until(size_t n, const std::function<void(size_t)>& fn,
             const std::function<bool()>& stop = {}) override;
  int parallelism() const override { return 1; }
};

class FakeNodeInfoLister : public framework::NodeInfoLister {
 public:
  void Set(std::vector<NodeInfoPtr> infos);
  const std::vector<const framework::NodeInfo*>& List() const override { return all_; }
  const std::vector<const framework::NodeInfo*>& HavePodsWithAffinityList() const override {
    return with_affinity_;
  }
  const std::vector<const framework::NodeInfo*>& HavePodsWithRequiredAntiAffinityList()
      const override {
    return with_required_anti_affinity_;
  }
  const framework::NodeInfo* Get(std::string_view node_name) const override;

 private:
  std::vector<NodeInfoPtr> owned_;
  std::vector<const framework::NodeInfo*> all_;
  std::vector<const framework::NodeInfo*> with_affinity_;
  std::vector<const framework::NodeInfo*> with_required_anti_affinity_;
};

class FakeHandle : public framework::Handle, public framework::PodWriter {
 public:
  // One recorded Bind call.
  struct BindCall {
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string node;
  };

  FakeHandle() = default;
  explicit FakeHandle(std::vector<NodeInfoPtr> infos) { SetNodeInfos(std::move(infos)); }

  void SetNodeInfos(std::vector<NodeInfoPtr> infos) { lister_.Set(std::move(infos)); }
  // SetNodeInfos(MakeNodeInfos(nodes, pods)).
  void SetNodes(const std::vector<api::NodePtr>& nodes, const std::vector<api::PodPtr>& pods = {});
  // The error Bind returns from now on (OK: succeed). Calls are recorded either way.
  void SetBindError(stowage::Status error);
  // Errors the next Bind calls return, one each, before SetBindError's applies again.
  void SetBindErrors(std::vector<stowage::Status> errors);
  std::vector<BindCall> bind_calls() const;

  // One recorded PatchPodStatus or DeletePod call, with the status written (patches only).
  struct WriteCall {
    std::string verb;  // "patch" or "delete"
    std::string namespace_;
    std::string name;
    api::PodStatus status;
  };
  // One recorded event.
  struct EventCall {
    std::string regarding;  // namespace/name
    std::string controller, type, reason, action, note;
    std::string related;  // namespace/name, empty when none
  };

  const framework::NodeInfoLister& SnapshotSharedLister() const override { return lister_; }
  framework::Parallelizer& parallelizer() override { return parallelizer_; }
  framework::PodWriter& pod_writer() override { return *this; }
  stowage::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  // Recorded; succeed unless SetWriteError gave an error.
  stowage::Status PatchPodStatus(const api::Pod& pod, const api::PodStatus& new_status) override;
  stowage::Status DeletePod(const api::Pod& pod) override;
  void SetWriteError(stowage::Status error);
  std::vector<WriteCall> write_calls() const;

  // What pod_disruption_budgets() lists.
  void SetPdbs(std::vector<api::PodDisruptionBudget> pdbs);
  const framework::Lister<api::PodDisruptionBudget>& pod_disruption_budgets() override {
    return pdbs_;
  }
  // The nominator: pods nominated to each node.
  void SetNominatedPods(std::vector<framework::PodInfoPtr> pods);
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) override;
  void Activate(const api::Pod& pod) override;
  std::vector<std::string> activated() const;  // namespace/name of each Activate
  void RecordEvent(const api::Pod& regarding, std::string_view controller, std::string_view type,
                   std::string_view reason, std::string_view action, std::string note,
                   const api::Pod* related) override;
  std::vector<EventCall> events() const;
  // Shared as the scheduler's handle shares them: two plugins on this handle are two profiles.
  std::shared_ptr<void> SharedObject(std::string_view key,
                                     const std::function<std::shared_ptr<void>()>& make) override {
    return shared_.Get(key, make);
  }

 private:
  framework::SharedObjects shared_;
  FakeNodeInfoLister lister_;
  SequentialParallelizer parallelizer_;
  mutable Mutex mu_;
  stowage::Status bind_error_ GUARDED_BY(mu_);
  std::vector<stowage::Status> next_bind_errors_ GUARDED_BY(mu_);  // front first
  std::vector<BindCall> bind_calls_ GUARDED_BY(mu_);
  stowage::Status write_error_ GUARDED_BY(mu_);
  std::vector<WriteCall> write_calls_ GUARDED_BY(mu_);
  std::vector<framework::PodInfoPtr> nominated_ GUARDED_BY(mu_);
  std::vector<std::string> activated_ GUARDED_BY(mu_);
  std::vector<EventCall> events_ GUARDED_BY(mu_);
  FakeLister<api::PodDisruptionBudget> pdbs_;  // set before use
};

}  // namespace stowage::testing
