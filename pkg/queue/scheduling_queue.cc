#include "pkg/queue/scheduling_queue.h"

#include <algorithm>
#include <chrono>

#include "pkg/common/error_list.h"
#include "pkg/common/logging.h"
#include "pkg/common/mutex.h"
#include "pkg/framework/extender.h"
#include "pkg/metrics/metrics.h"

namespace stowage::queue {

using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfo;

namespace {
// Backoff expiries are aligned to whole seconds so pods leave backoffQ in batches, ordered.
MonoTime Truncate(MonoTime t) {
  return MonoTime(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()));
}

// Upstream's special event labels.
constexpr std::string_view kUnscheduledPodAdd = "UnscheduledPodAdd";
constexpr std::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
constexpr std::string_view kForceActivate = "ForceActivate";
constexpr std::string_view kBackoffComplete = "BackoffComplete";
constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
constexpr std::string_view kUnschedulableTimeout = "UnschedulableTimeout";
constexpr std::string_view kPodPopped = "PodPopped";

// The queue names upstream's logs give.
constexpr std::string_view kActiveQ = "Active";
constexpr std::string_view kBackoffQ = "Backoff";
constexpr std::string_view kUnschedulableQ = "Unschedulable";

using metrics::Queue;
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
  if (options_.extenders) {
    // Every kind with every action rather than the wildcard, as upstream unrolls it.
    using R = framework::EventResource;
    for (R r : {R::kPod, R::kNode, R::kPersistentVolume, R::kPersistentVolumeClaim,
                R::kStorageClass, R::kCSINode, R::kCSIDriver}) {
      events_.emplace(std::string(framework::kExtenderName),
                      framework::ClusterEventWithHint{{r, framework::kAll}, nullptr});
    }
  }
}

SchedulingQueue::~SchedulingQueue() { Close(); }

uint32_t SchedulingQueue::RegisteredActions(framework::EventResource resource) const {
  // events_ is fixed at construction, so it is read without the lock.
  uint32_t actions = 0;
  for (const auto& [plugin, e] : events_) {
    if (e.event.resource == resource || e.event.resource == framework::EventResource::kWildCard) {
      actions |= e.event.action;
    }
  }
  return actions;
}

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
  EraseUnschedulable(key);
}

void SchedulingQueue::PutUnschedulable(const std::string& key, QueuedPodInfoPtr p,
                                       std::string_view event) {
  auto [it, inserted] = unschedulable_.try_emplace(key);
  if (!inserted && !it->second->gating_plugin.empty()) --gated_;
  if (!p->gating_plugin.empty()) ++gated_;
  if (inserted) metrics::QueueIncomingPods(Queue::kUnschedulable, event).Increment();
  it->second = std::move(p);
}

void SchedulingQueue::EraseUnschedulable(const std::string& key) {
  auto it = unschedulable_.find(key);
  if (it == unschedulable_.end()) return;
  if (!it->second->gating_plugin.empty()) --gated_;
  unschedulable_.erase(it);
}

void SchedulingQueue::SyncPendingGauges() {
  metrics::PendingPods(Queue::kActive).Set(static_cast<double>(active_.size()));
  metrics::PendingPods(Queue::kBackoff).Set(static_cast<double>(backoff_.size()));
  metrics::PendingPods(Queue::kUnschedulable)
      .Set(static_cast<double>(unschedulable_.size() - gated_));
  metrics::PendingPods(Queue::kGated).Set(static_cast<double>(gated_));
}

void SchedulingQueue::CountRejectors(const QueuedPodInfo& p, int delta) const {
  const std::string& profile = p.pod().spec.scheduler_name;
  for (const auto& plugin : p.unschedulable_plugins) {
    metrics::UnschedulablePods(plugin, profile).Increment(delta);
  }
  for (const auto& plugin : p.pending_plugins) {
    if (p.unschedulable_plugins.count(plugin)) continue;
    metrics::UnschedulablePods(plugin, profile).Increment(delta);
  }
}

void SchedulingQueue::EndInFlight(const std::string& uid) {
  auto f = in_flight_.find(uid);
  if (f == in_flight_.end()) return;
  in_flight_log_.erase(f->second);
  in_flight_.erase(f);
  metrics::InflightEvents(kPodPopped).Decrement();
  // Events before the oldest in-flight pod concern no pod any more.
  while (!in_flight_log_.empty() && !in_flight_log_.front().pod) {
    in_flight_log_.front().gauge->Decrement();
    in_flight_log_.pop_front();
  }
}

void SchedulingQueue::RecordInFlight(const ClusterEvent& event, const EventObject& old_obj,
                                     const EventObject& new_obj, const std::string* only) {
  if (in_flight_.empty()) return;
  prometheus::Gauge& gauge = metrics::InflightEvents(event.Label());
  gauge.Increment();
  in_flight_log_.push_back(
      LogEntry{false, only ? *only : std::string(), event, old_obj, new_obj, &gauge});
}

bool SchedulingQueue::PassPreEnqueue(QueuedPodInfoPtr& p, const std::string& key,
                                     std::string_view event) {
  framework::Framework* fw = ProfileFor(p->pod());
  framework::Status s = fw ? fw->RunPreEnqueuePlugins(p->pod()) : framework::Status();
  if (s.IsSuccess()) {
    p->gating_plugin.clear();
    return true;
  }
  p->gating_plugin = s.plugin();
  if (p->unschedulable_plugins.insert(s.plugin()).second && !p->pending_plugins.count(s.plugin())) {
    metrics::UnschedulablePods(s.plugin(), p->pod().spec.scheduler_name).Increment();
  }
  VLOG(4, "pod {} is gated by {}: {}", key, s.plugin(), s.Message());
  // A gated pod makes no attempt, so a flush that woke it must not count for a later bind.
  flushed_.erase(p->pod().metadata.uid);
  PutUnschedulable(key, std::move(p), event);
  VLOG(5,
       "Entity moved to an internal scheduling queue, because it is gated type=\"Pod\" "
       "entity=\"{}\" event=\"{}\" queue=\"{}\"",
       key, event, kUnschedulableQ);
  return false;
}

std::string_view SchedulingQueue::MoveToActive(QueuedPodInfoPtr p, std::string_view event) {
  std::string key = Key(p->pod());
  RemoveEverywhere(key);
  if (!PassPreEnqueue(p, key, event)) return kUnschedulableQ;
  // The SLI clock starts when the pod first enters activeQ, as upstream's InitialAttemptTimestamp.
  if (p->initial_attempt_timestamp == MonoTime{}) p->initial_attempt_timestamp = clock_.Now();
  active_.insert(p);
  index_[key] = std::move(p);
  metrics::QueueIncomingPods(Queue::kActive, event).Increment();
  cv_.Signal();
  return kActiveQ;
}

void SchedulingQueue::Add(api::PodPtr pod) {
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(std::move(pod));
  p->timestamp = clock_.Now();
  MutexLock l(mu_);
  UpdateNomination(p->pod_info);
  MoveToActive(std::move(p), kUnscheduledPodAdd);
  SyncPendingGauges();
}

void SchedulingQueue::Update(const api::PodPtr& old_pod, api::PodPtr new_pod) {
  std::string key = Key(*new_pod);
  MutexLock l(mu_);
  // As upstream's UpdateNominatedPod: an update that carries no nomination, old or new, keeps
  // one made in memory (by preemption) whose status patch the informer has not seen yet.
  std::string kept;
  if (old_pod->status.nominated_node_name.empty() && new_pod->status.nominated_node_name.empty()) {
    if (auto it = nominated_node_of_.find(old_pod->metadata.uid); it != nominated_node_of_.end()) {
      kept = it->second;
    }
  }
  UpdateNomination(framework::NewPodInfo(new_pod), kept);
  // The pod's own update: TargetPod events, so that only plugins that asked for this kind of
  // change of the rejected pod itself look at it (a status write is the general Update).
  std::vector<ClusterEvent> events =
      framework::PodSchedulingPropertiesChange(*new_pod, *old_pod, /*is_target_pod=*/true);
  if (in_flight_.count(new_pod->metadata.uid)) {
    for (const ClusterEvent& ev : events) {
      RecordInFlight(ev, old_pod, new_pod, &new_pod->metadata.uid);
    }
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
    for (const ClusterEvent& ev : events) {
      if (!WorthRequeuing(*p, ev, old_pod, new_pod)) continue;
      EraseUnschedulable(key);
      std::string_view queue = Requeue(std::move(p), ev.Label());
      VLOG(5,
           "Entity moved to an internal scheduling queue because the Pod is updated type=\"Pod\" "
           "entity=\"{}\" event=\"{}\" queue=\"{}\"",
           key, ev.Label(), queue);
      SyncPendingGauges();
      break;
    }
    return;
  }
  // Not queued (e.g. an update seen before its add): added as new, with the add's label.
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(std::move(new_pod));
  p->timestamp = clock_.Now();
  MoveToActive(std::move(p), kUnscheduledPodAdd);
  SyncPendingGauges();
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  std::string key = Key(pod);
  MutexLock l(mu_);
  RemoveNomination(pod.metadata.uid);
  // Its rejectors stop counting it wherever it waits (upstream forgets pods in backoffQ).
  if (auto it = index_.find(key); it != index_.end()) CountRejectors(*it->second, -1);
  if (auto it = unschedulable_.find(key); it != unschedulable_.end()) {
    CountRejectors(*it->second, -1);
  }
  flushed_.erase(pod.metadata.uid);
  RemoveEverywhere(key);
  SyncPendingGauges();
}

void SchedulingQueue::RemoveNomination(const std::string& uid) {
  auto it = nominated_node_of_.find(uid);
  if (it == nominated_node_of_.end()) return;
  auto& pods = nominated_[it->second];
  pods.erase(
      std::remove_if(pods.begin(), pods.end(),
                     [&](const framework::PodInfoPtr& p) { return p->pod->metadata.uid == uid; }),
      pods.end());
  if (pods.empty()) nominated_.erase(it->second);
  nominated_node_of_.erase(it);
}

void SchedulingQueue::UpdateNomination(const framework::PodInfoPtr& pod,
                                       const std::string& override_node) {
  const std::string& uid = pod->pod->metadata.uid;
  RemoveNomination(uid);
  const std::string& node =
      override_node.empty() ? pod->pod->status.nominated_node_name : override_node;
  // A bound pod is no longer a nomination: it is counted on its node by the cache.
  if (node.empty() || !pod->pod->spec.node_name.empty()) return;
  nominated_[node].push_back(pod);
  nominated_node_of_[uid] = node;
}

std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> SchedulingQueue::NominatedPods()
    const {
  MutexLock l(mu_);
  return nominated_;
}

void SchedulingQueue::DeleteNominatedPodIfExists(const api::Pod& pod) {
  MutexLock l(mu_);
  RemoveNomination(pod.metadata.uid);
}

std::vector<framework::PodInfoPtr> SchedulingQueue::NominatedPodsForNode(
    std::string_view node) const {
  MutexLock l(mu_);
  auto it = nominated_.find(std::string(node));
  return it == nominated_.end() ? std::vector<framework::PodInfoPtr>{} : it->second;
}

void SchedulingQueue::AddNominatedPod(const framework::PodInfoPtr& pod,
                                      const framework::NominatingInfo& nominating) {
  MutexLock l(mu_);
  if (nominating.mode == framework::NominatingInfo::Mode::kOverride) {
    if (nominating.node_name.empty()) {
      RemoveNomination(pod->pod->metadata.uid);
    } else {
      UpdateNomination(pod, nominating.node_name);
    }
    return;
  }
  UpdateNomination(pod);
}

void SchedulingQueue::Activate(const api::Pod& pod) {
  std::string key = Key(pod);
  MutexLock l(mu_);
  QueuedPodInfoPtr p;
  if (auto it = unschedulable_.find(key); it != unschedulable_.end()) {
    p = it->second;
    EraseUnschedulable(key);
  } else if (auto it = index_.find(key); it != index_.end() && backoff_.count(it->second)) {
    p = it->second;
    backoff_.erase(p);
    index_.erase(it);
  }
  // A pod being scheduled is activated by nothing: its attempt's outcome decides.
  if (!p || p->pod().metadata.uid != pod.metadata.uid) return;
  MoveToActive(std::move(p), kForceActivate);
  SyncPendingGauges();
}

QueuedPodInfoPtr SchedulingQueue::Pop() {
  MutexLock l(mu_);
  // PopFromBackoffQ: an idle scheduler does not wait out the backoff of a pod plugins rejected.
  // A pod that failed with an error still waits out its own, as in upstream's error backoff
  // heap, so a failing API call is not retried in a tight loop. (The set is passed in so the
  // lambda needs no capability of its own: Pop holds mu_.)
  auto poppable_backoff = [](const auto& backoff) {
    return std::find_if(backoff.begin(), backoff.end(), [](const QueuedPodInfoPtr& q) {
      return !q->unschedulable_plugins.empty() || !q->pending_plugins.empty();
    });
  };
  while (!closed_ && active_.empty() && poppable_backoff(backoff_) == backoff_.end()) {
    cv_.Wait(mu_);
  }
  if (closed_) return nullptr;
  QueuedPodInfoPtr p;
  if (!active_.empty()) {
    p = *active_.begin();
    active_.erase(active_.begin());
  } else {
    auto it = poppable_backoff(backoff_);
    p = *it;
    backoff_.erase(it);
    metrics::QueueIncomingPods(Queue::kActive, kPopFromBackoffQ).Increment();
  }
  index_.erase(Key(p->pod()));
  p->attempts++;
  if (!p->attempted) {
    p->attempted = true;
    if (p->initial_attempt_timestamp == MonoTime{}) p->initial_attempt_timestamp = clock_.Now();
  }
  CountRejectors(*p, -1);
  p->unschedulable_plugins.clear();
  p->pending_plugins.clear();
  if (const std::string& uid = p->pod().metadata.uid; !in_flight_.count(uid)) {
    in_flight_[uid] = in_flight_log_.insert(in_flight_log_.end(), LogEntry{.pod = true});
    metrics::InflightEvents(kPodPopped).Increment();
  }
  SyncPendingGauges();
  return p;
}

void SchedulingQueue::Done(const api::Pod& pod) {
  MutexLock l(mu_);
  EndInFlight(pod.metadata.uid);
}

bool SchedulingQueue::WasFlushedFromUnschedulable(const api::Pod& pod) const {
  MutexLock l(mu_);
  return flushed_.count(pod.metadata.uid) > 0;
}

bool SchedulingQueue::IsEventOfInterest(const ClusterEvent& event) const {
  if (event.IsWildCard()) return true;
  for (const auto& [plugin, registered] : events_) {
    if (registered.event.Matches(event)) return true;
  }
  return false;
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
        // A plugin without a hint function queues, as upstream's default hint does.
        auto start = std::chrono::steady_clock::now();
        bool queue = !it->second.hint ||
                     it->second.hint(p.pod(), old_obj, new_obj) == framework::QueueingHint::kQueue;
        metrics::ObserveQueueingHint(
            plugin, event.Label(),
            queue ? metrics::HintResult::kQueue : metrics::HintResult::kQueueSkip,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (queue) return true;
      }
    }
  }
  return false;
}

std::string_view SchedulingQueue::Requeue(QueuedPodInfoPtr p, std::string_view event) {
  std::string key = Key(p->pod());
  if (!p->gating_plugin.empty()) return MoveToActive(std::move(p), event);
  if (IsBackingOff(*p)) {
    // As upstream with PopFromBackoffQ, PreEnqueue runs on the way into backoffQ, since neither
    // a pop from backoffQ nor the end of the backoff runs it: a preemptor whose victims are still
    // being evicted stays held instead of being retried as soon as the scheduler is idle.
    RemoveEverywhere(key);
    if (!PassPreEnqueue(p, key, event)) return kUnschedulableQ;
    backoff_.insert(p);
    index_[key] = std::move(p);
    metrics::QueueIncomingPods(Queue::kBackoff, event).Increment();
    cv_.Signal();  // PopFromBackoffQ lets an idle scheduler take it
    return kBackoffQ;
  }
  return MoveToActive(std::move(p), event);
}

void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfoPtr p, bool error) {
  std::string key = Key(p->pod());
  MutexLock l(mu_);
  if (index_.count(key) || unschedulable_.count(key)) return;
  const std::string uid = p->pod().metadata.uid;
  flushed_.erase(uid);
  CountRejectors(*p, +1);
  if (error) {
    p->consecutive_errors_count++;
  } else {
    p->unschedulable_count++;
    p->consecutive_errors_count = 0;
  }
  p->timestamp = clock_.Now();
  p->flush_timestamp = MonoTime{};
  bool requeue = error || p->unschedulable_plugins.empty();
  if (auto f = in_flight_.find(uid); f != in_flight_.end()) {
    // Replay what happened since the pod was popped.
    for (auto e = std::next(f->second); !requeue && e != in_flight_log_.end(); ++e) {
      if (e->pod || (!e->only_uid.empty() && e->only_uid != uid)) continue;
      requeue = WorthRequeuing(*p, e->event, e->old_obj, e->new_obj);
    }
    EndInFlight(uid);
  }
  // The queue owns the pod from here on and mu_ is held, so the log may read it afterwards.
  const QueuedPodInfo* logged = p.get();
  std::string_view queue = kUnschedulableQ;
  if (requeue) {
    queue = Requeue(std::move(p), kScheduleAttemptFailure);
  } else {
    PutUnschedulable(key, std::move(p), kScheduleAttemptFailure);
  }
  VLOG(3,
       "Pod moved to an internal scheduling queue pod=\"{}\" event=\"{}\" queue=\"{}\" "
       "hint=\"{}\" unschedulable plugins=\"{}\"",
       key, kScheduleAttemptFailure, queue, requeue ? "Queue" : "QueueSkip",
       Join(std::vector<std::string>(logged->unschedulable_plugins.begin(),
                                     logged->unschedulable_plugins.end()),
            ","));
  SyncPendingGauges();
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(const ClusterEvent& event,
                                                    const EventObject& old_obj,
                                                    const EventObject& new_obj) {
  MutexLock l(mu_);
  // As upstream, an event no plugin registered for is neither evaluated nor kept for the pods
  // in flight.
  if (!IsEventOfInterest(event)) return;
  RecordInFlight(event, old_obj, new_obj, nullptr);
  const std::string label = event.Label();
  bool moved = false;
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    // A gated pod's gating plugin is among its unschedulable plugins, so its events decide.
    if (!WorthRequeuing(*it->second, event, old_obj, new_obj)) {
      ++it;
      continue;
    }
    QueuedPodInfoPtr pod = std::move(it->second);
    if (!pod->gating_plugin.empty()) --gated_;
    it = unschedulable_.erase(it);
    const QueuedPodInfo* logged = pod.get();  // kept by the queue, under mu_
    std::string_view queue = Requeue(std::move(pod), label);
    VLOG(5, "Pod moved to an internal scheduling queue pod=\"{}\" event=\"{}\" queue=\"{}\"",
         Key(logged->pod()), label, queue);
    moved = true;
  }
  if (moved) SyncPendingGauges();
}

void SchedulingQueue::FlushBackoffQCompleted() {
  MutexLock l(mu_);
  while (!backoff_.empty() && !IsBackingOff(**backoff_.begin())) {
    QueuedPodInfoPtr p = *backoff_.begin();
    backoff_.erase(backoff_.begin());
    index_.erase(Key(p->pod()));
    active_.insert(p);
    index_[Key(p->pod())] = std::move(p);
    metrics::QueueIncomingPods(Queue::kActive, kBackoffComplete).Increment();
    cv_.Signal();
  }
  SyncPendingGauges();
}

void SchedulingQueue::FlushUnschedulablePodsLeftover() {
  MutexLock l(mu_);
  MonoTime now = clock_.Now();
  std::vector<QueuedPodInfoPtr> to_move;
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    // The 5 minutes run from the last attempt, or from the last flush if later (1.37), so a pod
    // that went straight back (gated) waits another 5 minutes rather than one flush period.
    MonoTime since = std::max(it->second->timestamp, it->second->flush_timestamp);
    if (now - since <= options_.max_in_unschedulable) {
      ++it;
      continue;
    }
    QueuedPodInfoPtr p = std::move(it->second);
    if (!p->gating_plugin.empty()) --gated_;
    it = unschedulable_.erase(it);
    p->flush_timestamp = now;
    flushed_.insert(p->pod().metadata.uid);
    to_move.push_back(std::move(p));
  }
  // Requeued after the scan: a gated pod goes back into unschedulable_ while it is walked.
  for (auto& p : to_move) {
    const QueuedPodInfo* logged = p.get();  // kept by the queue, under mu_
    std::string_view queue = Requeue(std::move(p), kUnschedulableTimeout);
    VLOG(5, "Pod moved to an internal scheduling queue pod=\"{}\" event=\"{}\" queue=\"{}\"",
         Key(logged->pod()), kUnschedulableTimeout, queue);
  }
  SyncPendingGauges();
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
    MutexLock l(mu_);
    closed_ = true;
  }
  cv_.SignalAll();
  if (timer_.joinable()) {
    timer_.request_stop();
    timer_.join();
  }
}

size_t SchedulingQueue::ActiveSize() const {
  MutexLock l(mu_);
  return active_.size();
}
size_t SchedulingQueue::BackoffSize() const {
  MutexLock l(mu_);
  return backoff_.size();
}
std::pair<std::vector<api::PodPtr>, std::string> SchedulingQueue::PendingPods() const {
  MutexLock l(mu_);
  std::vector<api::PodPtr> pods;
  pods.reserve(active_.size() + backoff_.size() + unschedulable_.size());
  for (const auto& p : active_) pods.push_back(p->pod_info->pod);
  for (const auto& p : backoff_) pods.push_back(p->pod_info->pod);
  for (const auto& [key, p] : unschedulable_) pods.push_back(p->pod_info->pod);
  return {std::move(pods), "activeQ:" + std::to_string(active_.size()) +
                               "; backoffQ:" + std::to_string(backoff_.size()) +
                               "; unschedulableEntities:" + std::to_string(unschedulable_.size())};
}

size_t SchedulingQueue::UnschedulableSize() const {
  MutexLock l(mu_);
  return unschedulable_.size();
}
bool SchedulingQueue::IsInUnschedulable(const api::Pod& pod) const {
  MutexLock l(mu_);
  return unschedulable_.count(Key(pod)) > 0;
}

}  // namespace stowage::queue
