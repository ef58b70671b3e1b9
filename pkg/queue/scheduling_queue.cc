#include "pkg/queue/scheduling_queue.h"

#include <algorithm>

#include "pkg/common/logging.h"

namespace stowage::queue {

using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfo;

namespace {
// Backoff expiries are aligned to whole seconds so pods leave backoffQ in batches, ordered.
MonoTime Truncate(MonoTime t) {
  return MonoTime(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()));
}
}  // namespace

std::string SchedulingQueue::Key(const api::Pod& pod) { return api::NamespacedName(pod.metadata); }

bool SchedulingQueue::ActiveLess::operator()(const QueuedPodInfoPtr& a,
                                             const QueuedPodInfoPtr& b) const {
  if (q->sort_profile_->QueueSortLess(*a, *b)) return true;
  if (q->sort_profile_->QueueSortLess(*b, *a)) return false;
  return Key(a->pod()) < Key(b->pod());  // a total order, so equal pods can coexist
}

bool SchedulingQueue::BackoffLess::operator()(const QueuedPodInfoPtr& a,
                                              const QueuedPodInfoPtr& b) const {
  MonoTime ea = q->BackoffExpiry(*a), eb = q->BackoffExpiry(*b);
  if (ea != eb) return ea < eb;
  return ActiveLess{q}(a, b);
}

SchedulingQueue::SchedulingQueue(std::map<std::string, framework::Framework*> profiles,
                                 QueueOptions options, Clock& clock)
    : profiles_(std::move(profiles)),
      sort_profile_(profiles_.begin()->second),
      options_(options),
      clock_(clock),
      active_(ActiveLess{this}),
      backoff_(BackoffLess{this}) {
  for (const auto& [name, fw] : profiles_) {
    for (auto& pe : fw->EventsToRegister()) events_.emplace(pe.plugin, std::move(pe.event));
  }
}

SchedulingQueue::~SchedulingQueue() { Close(); }

framework::Framework* SchedulingQueue::ProfileFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second;
}

MonoTime SchedulingQueue::BackoffExpiry(const QueuedPodInfo& p) const {
  int count = p.consecutive_errors_count > 0 ? p.consecutive_errors_count : p.unschedulable_count;
  if (count <= 0 || options_.max_backoff <= Duration::zero()) return Truncate(p.timestamp);
  Duration d = options_.initial_backoff;
  for (int i = 1; i < count && d < options_.max_backoff; ++i) d *= 2;
  return Truncate(p.timestamp + std::min(d, options_.max_backoff));
}

bool SchedulingQueue::IsBackingOff(const QueuedPodInfo& p) const {
  return BackoffExpiry(p) >= Truncate(clock_.Now()) &&
         (p.unschedulable_count > 0 || p.consecutive_errors_count > 0);
}

void SchedulingQueue::RemoveEverywhere(const std::string& key) {
  if (auto it = index_.find(key); it != index_.end()) {
    active_.erase(it->second);
    backoff_.erase(it->second);
    index_.erase(it);
  }
  unschedulable_.erase(key);
}

void SchedulingQueue::MoveToActive(QueuedPodInfoPtr p) {
  std::string key = Key(p->pod());
  framework::Framework* fw = ProfileFor(p->pod());
  framework::Status s = fw ? fw->RunPreEnqueuePlugins(p->pod()) : framework::Status();
  RemoveEverywhere(key);
  if (!s.IsSuccess()) {
    p->gating_plugin = s.plugin();
    p->unschedulable_plugins.insert(s.plugin());
    VLOG(4, "pod {} is gated by {}: {}", key, s.plugin(), s.Message());
    unschedulable_[key] = std::move(p);
    return;
  }
  p->gating_plugin.clear();
  active_.insert(p);
  index_[key] = std::move(p);
  cv_.notify_one();
}

void SchedulingQueue::Add(api::PodPtr pod) {
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(std::move(pod));
  p->timestamp = clock_.Now();
  std::lock_guard<std::mutex> l(mu_);
  UpdateNomination(p->pod_info);
  MoveToActive(std::move(p));
}

void SchedulingQueue::Update(const api::PodPtr& old_pod, api::PodPtr new_pod) {
  std::string key = Key(*new_pod);
  std::lock_guard<std::mutex> l(mu_);
  UpdateNomination(framework::NewPodInfo(new_pod));
  if (auto f = in_flight_.find(new_pod->metadata.uid); f != in_flight_.end()) {
    f->second.events.emplace_back(ClusterEvent{framework::EventResource::kUnschedulablePod,
                                               framework::kUpdate, "UnschedulablePodUpdate"},
                                  old_pod, new_pod);
    return;
  }
  if (auto it = index_.find(key); it != index_.end()) {
    QueuedPodInfoPtr p = it->second;
    bool was_active = active_.erase(p) > 0;
    backoff_.erase(p);
    p->pod_info = framework::NewPodInfo(std::move(new_pod));
    (was_active ? (void)active_.insert(p) : (void)backoff_.insert(p));
    return;
  }
  if (auto it = unschedulable_.find(key); it != unschedulable_.end()) {
    QueuedPodInfoPtr p = it->second;
    p->pod_info = framework::NewPodInfo(new_pod);
    uint32_t action = framework::kUpdate;
    if (old_pod->spec.scheduling_gates.size() > 0 && new_pod->spec.scheduling_gates.empty()) {
      action = framework::kUpdatePodSchedulingGatesEliminated;
    } else if (!(old_pod->metadata.labels == new_pod->metadata.labels)) {
      action = framework::kUpdatePodLabel;
    }
    ClusterEvent ev{framework::EventResource::kUnschedulablePod, action, "UnschedulablePodUpdate"};
    if (WorthRequeuing(*p, ev, old_pod, new_pod)) {
      unschedulable_.erase(it);
      Requeue(std::move(p));
    }
    return;
  }
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(std::move(new_pod));
  p->timestamp = clock_.Now();
  MoveToActive(std::move(p));
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  std::lock_guard<std::mutex> l(mu_);
  RemoveNomination(pod.metadata.uid);
  RemoveEverywhere(Key(pod));
}

void SchedulingQueue::RemoveNomination(const std::string& uid) {
  auto it = nominated_node_of_.find(uid);
  if (it == nominated_node_of_.end()) return;
  auto& pods = nominated_[it->second];
  pods.erase(std::remove_if(pods.begin(), pods.end(),
                            [&](const framework::PodInfoPtr& p) { return p->pod->metadata.uid == uid; }),
             pods.end());
  if (pods.empty()) nominated_.erase(it->second);
  nominated_node_of_.erase(it);
}

void SchedulingQueue::UpdateNomination(const framework::PodInfoPtr& pod) {
  const std::string& uid = pod->pod->metadata.uid;
  RemoveNomination(uid);
  const std::string& node = pod->pod->status.nominated_node_name;
  // A bound pod is no longer a nomination: it is counted on its node by the cache.
  if (node.empty() || !pod->pod->spec.node_name.empty()) return;
  nominated_[node].push_back(pod);
  nominated_node_of_[uid] = node;
}

std::unordered_map<std::string, std::vector<framework::PodInfoPtr>>
SchedulingQueue::NominatedPods() const {
  std::lock_guard<std::mutex> l(mu_);
  return nominated_;
}

void SchedulingQueue::DeleteNominatedPodIfExists(const api::Pod& pod) {
  std::lock_guard<std::mutex> l(mu_);
  RemoveNomination(pod.metadata.uid);
}

QueuedPodInfoPtr SchedulingQueue::Pop() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [&] { return closed_ || !active_.empty() || !backoff_.empty(); });
  if (closed_) return nullptr;
  QueuedPodInfoPtr p;
  if (!active_.empty()) {
    p = *active_.begin();
    active_.erase(active_.begin());
  } else {
    // PopFromBackoffQ: an idle scheduler does not wait out a backoff.
    p = *backoff_.begin();
    backoff_.erase(backoff_.begin());
  }
  index_.erase(Key(p->pod()));
  p->attempts++;
  if (!p->attempted) {
    p->attempted = true;
    p->initial_attempt_timestamp = clock_.Now();
  }
  p->unschedulable_plugins.clear();
  p->pending_plugins.clear();
  in_flight_[p->pod().metadata.uid] = InFlight{};
  return p;
}

void SchedulingQueue::Done(const api::Pod& pod) {
  std::lock_guard<std::mutex> l(mu_);
  in_flight_.erase(pod.metadata.uid);
}

bool SchedulingQueue::WorthRequeuing(const QueuedPodInfo& p, const ClusterEvent& event,
                                     const EventObject& old_obj, const EventObject& new_obj) const {
  if (event.IsWildCard()) return true;
  const std::set<std::string>& rejectors = p.unschedulable_plugins;
  if (rejectors.empty() && p.pending_plugins.empty()) return true;
  for (const auto* plugins : {&rejectors, &p.pending_plugins}) {
    for (const auto& plugin : *plugins) {
      auto [begin, end] = events_.equal_range(plugin);
      for (auto it = begin; it != end; ++it) {
        if (!it->second.event.Matches(event)) continue;
        if (!it->second.hint ||
            it->second.hint(p.pod(), old_obj, new_obj) == framework::QueueingHint::kQueue) {
          return true;
        }
      }
    }
  }
  return false;
}

void SchedulingQueue::Requeue(QueuedPodInfoPtr p) {
  std::string key = Key(p->pod());
  if (!p->gating_plugin.empty()) return MoveToActive(std::move(p));
  if (IsBackingOff(*p)) {
    backoff_.insert(p);
    index_[key] = std::move(p);
    cv_.notify_one();  // PopFromBackoffQ lets an idle scheduler take it
    return;
  }
  MoveToActive(std::move(p));
}

void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfoPtr p, bool error) {
  std::string key = Key(p->pod());
  std::lock_guard<std::mutex> l(mu_);
  if (index_.count(key) || unschedulable_.count(key)) return;
  InFlight flight;
  if (auto f = in_flight_.find(p->pod().metadata.uid); f != in_flight_.end()) {
    flight = std::move(f->second);
    in_flight_.erase(f);
  }
  if (error) {
    p->consecutive_errors_count++;
  } else {
    p->unschedulable_count++;
    p->consecutive_errors_count = 0;
  }
  p->timestamp = clock_.Now();
  bool requeue = error || p->unschedulable_plugins.empty();
  for (const auto& [ev, o, n] : flight.events) {
    if (requeue) break;
    requeue = WorthRequeuing(*p, ev, o, n);
  }
  if (requeue) return Requeue(std::move(p));
  unschedulable_[key] = std::move(p);
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(const ClusterEvent& event,
                                                    const EventObject& old_obj,
                                                    const EventObject& new_obj) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [uid, flight] : in_flight_) flight.events.emplace_back(event, old_obj, new_obj);
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    // A gated pod's gating plugin is among its unschedulable plugins, so its events decide.
    if (!WorthRequeuing(*it->second, event, old_obj, new_obj)) {
      ++it;
      continue;
    }
    QueuedPodInfoPtr pod = std::move(it->second);
    it = unschedulable_.erase(it);
    Requeue(std::move(pod));
  }
}

void SchedulingQueue::FlushBackoffQCompleted() {
  std::lock_guard<std::mutex> l(mu_);
  while (!backoff_.empty() && !IsBackingOff(**backoff_.begin())) {
    QueuedPodInfoPtr p = *backoff_.begin();
    backoff_.erase(backoff_.begin());
    index_.erase(Key(p->pod()));
    active_.insert(p);
    index_[Key(p->pod())] = std::move(p);
    cv_.notify_one();
  }
}

void SchedulingQueue::FlushUnschedulablePodsLeftover() {
  std::lock_guard<std::mutex> l(mu_);
  MonoTime now = clock_.Now();
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (now - it->second->timestamp <= options_.max_in_unschedulable) {
      ++it;
      continue;
    }
    QueuedPodInfoPtr p = std::move(it->second);
    it = unschedulable_.erase(it);
    Requeue(std::move(p));
  }
}

void SchedulingQueue::Run() {
  timer_ = std::jthread([this](std::stop_token stop) {
    int ticks = 0;
    while (!stop.stop_requested()) {
      // Tick on whole-second boundaries, as upstream aligns its flushes.
      auto now = std::chrono::steady_clock::now();
      auto next = std::chrono::ceil<std::chrono::seconds>(now.time_since_epoch());
      if (!SleepFor(next - now.time_since_epoch() + std::chrono::milliseconds(1), stop)) break;
      FlushBackoffQCompleted();
      if (++ticks % 30 == 0) FlushUnschedulablePodsLeftover();
    }
  });
}

void SchedulingQueue::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
  }
  cv_.notify_all();
  if (timer_.joinable()) {
    timer_.request_stop();
    timer_.join();
  }
}

size_t SchedulingQueue::ActiveSize() const {
  std::lock_guard<std::mutex> l(mu_);
  return active_.size();
}
size_t SchedulingQueue::BackoffSize() const {
  std::lock_guard<std::mutex> l(mu_);
  return backoff_.size();
}
size_t SchedulingQueue::UnschedulableSize() const {
  std::lock_guard<std::mutex> l(mu_);
  return unschedulable_.size();
}
bool SchedulingQueue::IsInUnschedulable(const api::Pod& pod) const {
  std::lock_guard<std::mutex> l(mu_);
  return unschedulable_.count(Key(pod)) > 0;
}

}  // namespace stowage::queue
