// What the parts of the scheduling queue share: the pointer to a queued pod, the key a pod is
// queued under, and activeQ's order. Stateless; safe from any thread.
#pragma once

#include <memory>
#include <string>

#include "stowage/api/types.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/types.h"

namespace stowage::queue {

using QueuedPodInfoPtr = std::shared_ptr<framework::QueuedPodInfo>;

// The key of a pod in every part of the queue: "namespace/name", as upstream's cache keys, so an
// update finds the pod whatever else changed.
inline std::string Key(const api::Pod& pod) { return api::NamespacedName(pod.metadata); }

// activeQ's order: the QueueSort plugin's, then the key, a total order so that pods the plugin
// finds equal can coexist in an ordered set. The plugin must outlive the order.
class QueueOrder {
 public:
  explicit QueueOrder(const framework::QueueSortPlugin& sort) : sort_(&sort) {}
  bool operator()(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
    if (sort_->Less(a, b)) return true;
    if (sort_->Less(b, a)) return false;
    return Key(a.pod()) < Key(b.pod());
  }
  bool operator()(const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) const {
    return (*this)(*a, *b);
  }

 private:
  const framework::QueueSortPlugin* sort_;
};

}  // namespace stowage::queue
