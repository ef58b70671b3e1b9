// IndexedPods: queued pods kept in an order and findable by key, the one structure activeQ and
// backoffQ share (each upstream heap has its own key index too). A key is held at most once;
// a pod's order is never changed in place (Update takes it out and puts it back).
// Thread-safety: none; its owner's lock guards it.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "pkg/queue/queued_pod.h"

namespace stowage::queue {

template <typename Order>
class IndexedPods {
 public:
  using Set = std::set<QueuedPodInfoPtr, Order>;

  explicit IndexedPods(Order order) : pods_(std::move(order)) {}

  // Holds p, whose key must not be held yet.
  void Add(QueuedPodInfoPtr p) {
    std::string key = Key(p->pod());
    pods_.insert(p);
    by_key_[std::move(key)] = std::move(p);
  }
  QueuedPodInfoPtr Get(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : it->second;
  }
  bool Has(const std::string& key) const { return by_key_.count(key) > 0; }
  // Takes the pod under key out; nullptr when none is held.
  QueuedPodInfoPtr Delete(const std::string& key) {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return nullptr;
    QueuedPodInfoPtr p = std::move(it->second);
    pods_.erase(p);
    by_key_.erase(it);
    return p;
  }
  // Replaces the pod info under key, out and back in, as the new info may sort elsewhere.
  bool Update(const std::string& key, framework::PodInfoPtr pod_info) {
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return false;
    pods_.erase(it->second);
    it->second->pod_info = std::move(pod_info);
    pods_.insert(it->second);
    return true;
  }
  // Takes out the pod at it, an iterator of pods().
  QueuedPodInfoPtr Take(typename Set::const_iterator it) {
    QueuedPodInfoPtr p = *it;
    pods_.erase(it);
    by_key_.erase(Key(p->pod()));
    return p;
  }
  const Set& pods() const { return pods_; }

 private:
  Set pods_;
  std::unordered_map<std::string, QueuedPodInfoPtr> by_key_;
};

}  // namespace stowage::queue
