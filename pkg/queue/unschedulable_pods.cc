#include "pkg/queue/unschedulable_pods.h"

#include <utility>

#include "pkg/metrics/metrics.h"

namespace stowage::queue {

void UnschedulablePods::Put(const std::string& key, QueuedPodInfoPtr p, std::string_view event) {
  auto [it, inserted] = pods_.try_emplace(key);
  if (!inserted && !it->second->gating_plugin.empty()) --gated_;
  if (!p->gating_plugin.empty()) ++gated_;
  if (inserted) metrics::QueueIncomingPods(metrics::Queue::kUnschedulable, event).Increment();
  it->second = std::move(p);
}

QueuedPodInfoPtr UnschedulablePods::Get(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second;
}

QueuedPodInfoPtr UnschedulablePods::Delete(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return nullptr;
  QueuedPodInfoPtr p = std::move(it->second);
  if (!p->gating_plugin.empty()) --gated_;
  pods_.erase(it);
  return p;
}

UnschedulablePods::Map::iterator UnschedulablePods::Take(Map::iterator it, QueuedPodInfoPtr* out) {
  *out = std::move(it->second);
  if (!(*out)->gating_plugin.empty()) --gated_;
  return pods_.erase(it);
}

}  // namespace stowage::queue
