// Handle: what the framework gives plugins besides the pod: the cycle's snapshot of nodes, the
// worker pool, and the few API operations plugins perform (binding), behind interfaces so
// plugins depend on neither the cache nor the client.
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

class Handle {
 public:
  virtual ~Handle() = default;
  virtual const NodeInfoLister& SnapshotSharedLister() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  // POST pods/<name>/binding. A conflict (already bound) is an error.
  virtual stowage::Status BindPod(const api::Pod& pod, std::string_view node_name) = 0;
  // The pod with this UID if it is waiting at Permit (shared so it stays valid while used).
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) {
    (void)uid;
    return nullptr;
  }
};

}  // namespace stowage::framework
