#include "pkg/queue/active_queue.h"

#include <iterator>
#include <utility>

#include "pkg/metrics/metrics.h"

namespace stowage::queue {

namespace {
constexpr std::string_view kPodPopped = "PodPopped";  // inflight_events' label for pods
}  // namespace

ActiveQueue::ActiveQueue(const framework::QueueSortPlugin& sort) : pods_(QueueOrder(sort)) {}

void ActiveQueue::Add(QueuedPodInfoPtr p, std::string_view event) {
  pods_.Add(std::move(p));
  metrics::QueueIncomingPods(metrics::Queue::kActive, event).Increment();
}

QueuedPodInfoPtr ActiveQueue::Get(const std::string& key) const { return pods_.Get(key); }

QueuedPodInfoPtr ActiveQueue::Delete(const std::string& key) { return pods_.Delete(key); }

bool ActiveQueue::Update(const std::string& key, framework::PodInfoPtr pod_info) {
  return pods_.Update(key, std::move(pod_info));
}

QueuedPodInfoPtr ActiveQueue::Pop() { return pods_.Take(pods_.pods().begin()); }

void ActiveQueue::ForEach(const std::function<void(const QueuedPodInfoPtr&)>& fn) const {
  for (const QueuedPodInfoPtr& p : pods_.pods()) fn(p);
}

void ActiveQueue::AddInFlight(const std::string& uid) {
  if (in_flight_.count(uid)) return;
  in_flight_[uid] = log_.insert(log_.end(), LogEntry{.pod = true});
  metrics::InflightEvents(kPodPopped).Increment();
}

void ActiveQueue::DoneInFlight(const std::string& uid) {
  auto f = in_flight_.find(uid);
  if (f == in_flight_.end()) return;
  log_.erase(f->second);
  in_flight_.erase(f);
  metrics::InflightEvents(kPodPopped).Decrement();
  // Events before the oldest in-flight pod concern no pod any more.
  while (!log_.empty() && !log_.front().pod) {
    log_.front().gauge->Decrement();
    log_.pop_front();
  }
}

void ActiveQueue::AddEventIfAnyInFlight(const framework::ClusterEvent& event,
                                        const framework::EventObject& old_obj,
                                        const framework::EventObject& new_obj,
                                        const std::string* only) {
  if (in_flight_.empty()) return;
  prometheus::Gauge& gauge = metrics::InflightEvents(event.Label());
  gauge.Increment();
  log_.push_back(LogEntry{
      false, InFlightEvent{only ? *only : std::string(), event, old_obj, new_obj}, &gauge});
}

bool ActiveQueue::AnyEventSince(const std::string& uid,
                                const std::function<bool(const InFlightEvent&)>& pred) const {
  auto f = in_flight_.find(uid);
  if (f == in_flight_.end()) return false;
  for (auto e = std::next(f->second); e != log_.end(); ++e) {
    if (e->pod || (!e->event.only_uid.empty() && e->event.only_uid != uid)) continue;
    if (pred(e->event)) return true;
  }
  return false;
}

}  // namespace stowage::queue
