// CacheDebugger: kube-scheduler's cache debugger. On SIGUSR2 (cmd/stowage/app) it compares the
// cache and the queue with the informers and logs what differs ("Cache mismatch"), then logs
// every cached node with its pods and nominated pods and every pending pod. Upstream's
// pkg/scheduler/backend/cache/debugger, with the same log messages.
#pragma once

#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/queue/scheduling_queue.h"
#include "stowage/api/types.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"

namespace stowage::scheduler {

class CacheDebugger {
 public:
  CacheDebugger(const framework::Lister<api::Node>& nodes, const framework::Lister<api::Pod>& pods,
                const cache::Cache& cache, const queue::SchedulingQueue& queue)
      : nodes_(nodes), pods_(pods), cache_(cache), queue_(queue) {}

  // Compare, then the two dumps: what SIGUSR2 does.
  void CompareAndDump() const;
  // Logs "Cache mismatch" for nodes the informer has and the cache lacks (missed) or the other
  // way round (redundant), and likewise for pods, where the cache's side is its nodes' pods
  // plus the queue's pending pods.
  void Compare() const;
  // Logs "Dump of cached NodeInfo" and "Dump of scheduling queue".
  void Dump() const;

  // Sorted set differences: names in actual and not in cached, and the reverse.
  struct Difference {
    std::vector<std::string> missed;
    std::vector<std::string> redundant;
  };
  static Difference CompareStrings(std::vector<std::string> actual,
                                   std::vector<std::string> cached);
  // One node's entry in the dump, as upstream prints it.
  std::string PrintNodeInfo(const std::string& name, const framework::NodeInfo& info) const;
  static std::string PrintPod(const api::Pod& pod);
  // A Resource as Go prints upstream's *Resource with %+v.
  static std::string PrintResource(const framework::Resource& r);

 private:
  const framework::Lister<api::Node>& nodes_;
  const framework::Lister<api::Pod>& pods_;
  const cache::Cache& cache_;
  const queue::SchedulingQueue& queue_;
};

}  // namespace stowage::scheduler
