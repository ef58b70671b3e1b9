#include "pkg/queue/unschedulable_pods.h"

#include <utility>

#include "pkg/metrics/metrics.h"

namespace stowage::queue {

void UnschedulablePods::Put(const std::string& key, QueuedPodInfoPtr p, std::string_view event) {
  auto [it, inserted] = pods_.try_emplace(key);
  if (!inserted && !it->second->gating_plugin.empty()) --gated_;
  if (!p->gating_plugin.empty()) ++gated_;
  if (inserted) metrics::QueueIncomingPods(metrics::Queue::kUnschedulable, event).Increment();
  if (!inserted) Unindex(key);
  Index(key, *p);
  it->second = std::move(p);
}

void UnschedulablePods::Index(const std::string& key, const framework::QueuedPodInfo& p) {
  if (p.unschedulable_plugins.empty() && p.pending_plugins.empty()) unconditional_.insert(key);
  if (!keys_) return;
  std::vector<std::string> keys;
  keys_(p.pod(), keys);
  if (keys.empty()) return;
  for (const std::string& k : keys) pods_by_key_[k].insert(key);
  keys_of_[key] = std::move(keys);
}

void UnschedulablePods::Unindex(const std::string& key) {
  unconditional_.erase(key);
  auto it = keys_of_.find(key);
  if (it == keys_of_.end()) return;
  for (const std::string& k : it->second) {
    auto pods = pods_by_key_.find(k);
    if (pods == pods_by_key_.end()) continue;
    pods->second.erase(key);
    if (pods->second.empty()) pods_by_key_.erase(pods);
  }
  keys_of_.erase(it);
}

void UnschedulablePods::Reindex(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  Unindex(key);
  Index(key, *it->second);
}

std::vector<std::string> UnschedulablePods::Candidates(
    const std::vector<std::string>& event_keys) const {
  std::unordered_set<std::string> seen(unconditional_.begin(), unconditional_.end());
  for (const std::string& k : event_keys) {
    auto it = pods_by_key_.find(k);
    if (it != pods_by_key_.end()) seen.insert(it->second.begin(), it->second.end());
  }
  return {seen.begin(), seen.end()};
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
  Unindex(key);
  pods_.erase(it);
  return p;
}

UnschedulablePods::Map::iterator UnschedulablePods::Take(Map::iterator it, QueuedPodInfoPtr* out) {
  *out = std::move(it->second);
  if (!(*out)->gating_plugin.empty()) --gated_;
  Unindex(it->first);
  return pods_.erase(it);
}

}  // namespace stowage::queue
