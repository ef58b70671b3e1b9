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
  pods_.Add(std::move(p));
  metrics::QueueIncomingPods(metrics::Queue::kBackoff, event).Increment();
}

QueuedPodInfoPtr BackoffQueue::Get(const std::string& key) const { return pods_.Get(key); }

QueuedPodInfoPtr BackoffQueue::Delete(const std::string& key) { return pods_.Delete(key); }

bool BackoffQueue::Update(const std::string& key, framework::PodInfoPtr pod_info) {
  return pods_.Update(key, std::move(pod_info));
}

QueuedPodInfoPtr BackoffQueue::PopCompleted() {
  const auto& pods = pods_.pods();
  if (pods.empty() || IsBackingOff(**pods.begin())) return nullptr;
  return pods_.Take(pods.begin());
}

BackoffQueue::Pods::Set::const_iterator BackoffQueue::FirstRejected() const {
  const auto& pods = pods_.pods();
  return std::find_if(pods.begin(), pods.end(), [](const QueuedPodInfoPtr& q) {
    return !q->unschedulable_plugins.empty() || !q->pending_plugins.empty();
  });
}

bool BackoffQueue::HasRejected() const { return FirstRejected() != pods_.pods().end(); }

QueuedPodInfoPtr BackoffQueue::PopRejected() {
  auto it = FirstRejected();
  if (it == pods_.pods().end()) return nullptr;
  return pods_.Take(it);
}

void BackoffQueue::ForEach(const std::function<void(const QueuedPodInfoPtr&)>& fn) const {
  for (const QueuedPodInfoPtr& p : pods_.pods()) fn(p);
}

}  // namespace stowage::queue
