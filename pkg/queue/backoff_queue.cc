#include "pkg/queue/backoff_queue.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "pkg/metrics/metrics.h"

namespace stowage::queue {

namespace {
// Backoff expiries are aligned to whole seconds so pods leave backoffQ in batches, ordered.
MonoTime Truncate(MonoTime t) {
  return MonoTime(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()));
}
}  // namespace

bool BackoffQueue::Order::operator()(const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) const {
  MonoTime ea = q->Expiry(*a), eb = q->Expiry(*b);
  if (ea != eb) return ea < eb;
  return active(a, b);
}

BackoffQueue::BackoffQueue(const framework::QueueSortPlugin& sort, Duration initial_backoff,
                           Duration max_backoff, Clock& clock)
    : initial_backoff_(initial_backoff),
      max_backoff_(max_backoff),
      clock_(clock),
      pods_(Order{this, QueueOrder(sort)}) {}

MonoTime BackoffQueue::Expiry(const framework::QueuedPodInfo& p) const {
  int count = p.consecutive_errors_count > 0 ? p.consecutive_errors_count : p.unschedulable_count;
  if (count <= 0 || max_backoff_ <= Duration::zero()) return Truncate(p.timestamp);
  Duration d = initial_backoff_;
  for (int i = 1; i < count && d < max_backoff_; ++i) d *= 2;
  return Truncate(p.timestamp + std::min(d, max_backoff_));
}

bool BackoffQueue::IsBackingOff(const framework::QueuedPodInfo& p) const {
  return Expiry(p) >= Truncate(clock_.Now()) &&
         (p.unschedulable_count > 0 || p.consecutive_errors_count > 0);
}

void BackoffQueue::Add(QueuedPodInfoPtr p, std::string_view event) {
  std::string key = Key(p->pod());
  pods_.insert(p);
  by_key_[std::move(key)] = std::move(p);
  metrics::QueueIncomingPods(metrics::Queue::kBackoff, event).Increment();
}

QueuedPodInfoPtr BackoffQueue::Get(const std::string& key) const {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : it->second;
}

QueuedPodInfoPtr BackoffQueue::Delete(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return nullptr;
  QueuedPodInfoPtr p = std::move(it->second);
  pods_.erase(p);
  by_key_.erase(it);
  return p;
}

bool BackoffQueue::Update(const std::string& key, framework::PodInfoPtr pod_info) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return false;
  // Out and back in, as in activeQ: the tie-break on QueueOrder may move it.
  pods_.erase(it->second);
  it->second->pod_info = std::move(pod_info);
  pods_.insert(it->second);
  return true;
}

QueuedPodInfoPtr BackoffQueue::PopCompleted() {
  if (pods_.empty() || IsBackingOff(**pods_.begin())) return nullptr;
  QueuedPodInfoPtr p = *pods_.begin();
  pods_.erase(pods_.begin());
  by_key_.erase(Key(p->pod()));
  return p;
}

BackoffQueue::Set::const_iterator BackoffQueue::FirstRejected() const {
  return std::find_if(pods_.begin(), pods_.end(), [](const QueuedPodInfoPtr& q) {
    return !q->unschedulable_plugins.empty() || !q->pending_plugins.empty();
  });
}

bool BackoffQueue::HasRejected() const { return FirstRejected() != pods_.end(); }

QueuedPodInfoPtr BackoffQueue::PopRejected() {
  auto it = FirstRejected();
  if (it == pods_.end()) return nullptr;
  QueuedPodInfoPtr p = *it;
  pods_.erase(it);
  by_key_.erase(Key(p->pod()));
  return p;
}

void BackoffQueue::ForEach(const std::function<void(const QueuedPodInfoPtr&)>& fn) const {
  for (const QueuedPodInfoPtr& p : pods_) fn(p);
}

}  // namespace stowage::queue
