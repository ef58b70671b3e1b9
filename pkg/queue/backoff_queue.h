// BackoffQueue: pods that failed and wait out their backoff before going back to activeQ
// (upstream's backoffQueue). The backoff is initial << (attempts-1), capped at max, counted in
// consecutive errors when the last failures were errors and in rejections otherwise; the expiry
// is aligned to whole seconds so pods leave in batches, ordered by expiry then QueueOrder.
//
// Metrics: queue_incoming_pods_total{queue="backoff"} counts each Add with its event.
//
// Thread-safety: none of its own. SchedulingQueue holds it GUARDED_BY its one mutex and calls it
// only with that mutex held; it takes no lock and calls out only to the QueueSort plugin and the
// clock, so it adds no lock order. Invariants: a key is queued at most once; a queued pod's
// counts and timestamp, which its place depends on, are not changed while it is queued.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pkg/queue/indexed_pods.h"
#include "pkg/queue/queued_pod.h"
#include "stowage/common/clock.h"

namespace stowage::queue {

class BackoffQueue {
 public:
  // A max_backoff of zero or less turns backoff off: a pod's expiry is its timestamp.
  BackoffQueue(const framework::QueueSortPlugin& sort, Duration initial_backoff,
               Duration max_backoff, Clock& clock);

  // When p's backoff ends, aligned down to a whole second.
  MonoTime Expiry(const framework::QueuedPodInfo& p) const;
  // Whether p has failed and its backoff has not ended by the clock's current second.
  bool IsBackingOff(const framework::QueuedPodInfo& p) const;

  // Queues p, whose key must not be queued here, counting it with event.
  void Add(QueuedPodInfoPtr p, std::string_view event);
  // The pod queued under key, or nullptr.
  QueuedPodInfoPtr Get(const std::string& key) const;
  bool Has(const std::string& key) const { return pods_.Has(key); }
  // Takes the pod under key out and returns it; nullptr when none is queued.
  QueuedPodInfoPtr Delete(const std::string& key);
  // Replaces the pod info of the pod queued under key; false when none.
  bool Update(const std::string& key, framework::PodInfoPtr pod_info);
  // Takes the head out when its backoff has ended; nullptr otherwise.
  QueuedPodInfoPtr PopCompleted();
  // PopFromBackoffQ: whether a pod that plugins rejected (rather than one that failed with an
  // error) waits here, and taking out the first such pod, backing off or not.
  bool HasRejected() const;
  QueuedPodInfoPtr PopRejected();
  bool empty() const { return pods_.pods().empty(); }
  size_t size() const { return pods_.pods().size(); }
  // Calls fn on every queued pod, in order.
  void ForEach(const std::function<void(const QueuedPodInfoPtr&)>& fn) const;

 private:
  // Expiry, then QueueOrder.
  struct Order {
    const BackoffQueue* q;
    QueueOrder active;
    bool operator()(const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) const;
  };
  using Pods = IndexedPods<Order>;
  Pods::Set::const_iterator FirstRejected() const;

  const Duration initial_backoff_;
  const Duration max_backoff_;
  Clock& clock_;
  Pods pods_;
};

}  // namespace stowage::queue
