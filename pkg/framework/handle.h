// Handle: what the framework gives plugins besides the pod: the cycle's snapshot of nodes, the
// worker pool, the pods waiting at Permit and the few API writes plugins make (PodWriter),
// behind interfaces so plugins depend on neither the cache, the client nor the scheduler.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/common/status.h"
#include "pkg/framework/types.h"

namespace stowage::framework {
class WaitingPod;
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

// The API writes plugins make about pods: binding (DefaultBinder) and status updates (the
// nominations and conditions of preemption). Each call is one request (PatchPodStatus retries a
// conflict as upstream's util.PatchPodStatus); further retrying is the plugin's choice.
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
};

}  // namespace stowage::framework
