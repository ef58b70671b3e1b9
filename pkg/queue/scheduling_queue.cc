#include "pkg/queue/scheduling_queue.h"

#include <algorithm>
#include <chrono>

#include "pkg/common/error_list.h"
#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"

namespace stowage::queue {

using framework::ClusterEvent;
using framework::EventObject;
using framework::QueuedPodInfo;

namespace {
// Upstream's special event labels.
constexpr std::string_view kUnscheduledPodAdd = "UnscheduledPodAdd";
constexpr std::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
constexpr std::string_view kForceActivate = "ForceActivate";
constexpr std::string_view kBackoffComplete = "BackoffComplete";
constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
constexpr std::string_view kUnschedulableTimeout = "UnschedulableTimeout";
// Not upstream's: a pod PreEnqueue held as it left activeQ (Pop).
constexpr std::string_view kPreEnqueueAtPop = "PreEnqueueAtPop";

// The queue names upstream's logs give.
constexpr std::string_view kActiveQ = "Active";
constexpr std::string_view kBackoffQ = "Backoff";
constexpr std::string_view kUnschedulableQ = "Unschedulable";

using metrics::Queue;

// unschedulable_pods{plugin,profile} += delta for each plugin that rejected (or gates) p.
void CountRejectors(const QueuedPodInfo& p, int delta) {
  const std::string& profile = p.pod().spec.scheduler_name;
  for (const auto& plugin : p.unschedulable_plugins) {
    metrics::UnschedulablePods(plugin, profile).Increment(delta);
  }
  for (const auto& plugin : p.pending_plugins) {
    if (p.unschedulable_plugins.count(plugin)) continue;
    metrics::UnschedulablePods(plugin, profile).Increment(delta);
  }
}
}  // namespace

SchedulingQueue::SchedulingQueue(std::map<std::string, framework::Framework*> profiles,
                                 QueueOptions options, Clock& clock)
    : profiles_(std::move(profiles)),
      options_(options),
      clock_(clock),
      hints_(profiles_, options_.extenders),
      active_(profiles_.begin()->second->queue_sort_plugin()),
      backoff_(profiles_.begin()->second->queue_sort_plugin(), options_.initial_backoff,
               options_.max_backoff, clock_) {
  if (hints_.Narrows()) {
    unschedulable_.SetKeys(
        [this](const api::Pod& pod, std::vector<std::string>& out) { hints_.PodKeys(pod, out); });
  }
}

SchedulingQueue::~SchedulingQueue() { Close(); }

uint32_t SchedulingQueue::RegisteredActions(framework::EventResource resource) const {
  return hints_.RegisteredActions(resource);
}

framework::Framework* SchedulingQueue::ProfileFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second;
}

void SchedulingQueue::RemoveEverywhere(const std::string& key) {
  active_.Delete(key);
  backoff_.Delete(key);
  unschedulable_.Delete(key);
}

void SchedulingQueue::SyncPendingGauges() {
  metrics::PendingPods(Queue::kActive).Set(static_cast<double>(active_.size()));
  metrics::PendingPods(Queue::kBackoff).Set(static_cast<double>(backoff_.size()));
  metrics::PendingPods(Queue::kUnschedulable)
      .Set(static_cast<double>(unschedulable_.size() - unschedulable_.gated()));
  metrics::PendingPods(Queue::kGated).Set(static_cast<double>(unschedulable_.gated()));
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
  unschedulable_.ForgetFlushed(p->pod().metadata.uid);
  unschedulable_.Put(key, std::move(p), event);
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
  active_.Add(std::move(p), event);
  cv_.Signal();
  return kActiveQ;
}

void SchedulingQueue::Add(api::PodPtr pod) {
  auto p = std::make_shared<QueuedPodInfo>();
  p->pod_info = framework::NewPodInfo(std::move(pod));
  p->timestamp = clock_.Now();
  MutexLock l(mu_);
  nominator_.Add(p->pod_info);
  MoveToActive(std::move(p), kUnscheduledPodAdd);
  SyncPendingGauges();
}

void SchedulingQueue::Update(const api::PodPtr& old_pod, api::PodPtr new_pod) {
  std::string key = Key(*new_pod);
  MutexLock l(mu_);
  nominator_.Update(*old_pod, framework::NewPodInfo(new_pod));
  // The pod's own update: TargetPod events, so that only plugins that asked for this kind of
  // change of the rejected pod itself look at it (a status write is the general Update).
  std::vector<ClusterEvent> events =
      framework::PodSchedulingPropertiesChange(*new_pod, *old_pod, /*is_target_pod=*/true);
  if (const std::string& uid = new_pod->metadata.uid; active_.IsInFlight(uid)) {
    for (const ClusterEvent& ev : events) active_.AddEventIfAnyInFlight(ev, old_pod, new_pod, &uid);
    return;
  }
  if (active_.Has(key) || backoff_.Has(key)) {
    framework::PodInfoPtr info = framework::NewPodInfo(std::move(new_pod));
    if (!active_.Update(key, info)) backoff_.Update(key, std::move(info));
    return;
  }
  if (QueuedPodInfoPtr p = unschedulable_.Get(key)) {
    p->pod_info = framework::NewPodInfo(new_pod);
    unschedulable_.Reindex(key);
    for (const ClusterEvent& ev : events) {
      if (!hints_.WorthRequeuing(*p, ev, old_pod, new_pod)) continue;
      unschedulable_.Delete(key);
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
  nominator_.Delete(pod.metadata.uid);
  unschedulable_.ForgetFlushed(pod.metadata.uid);
  // Its rejectors stop counting it wherever it waits (upstream forgets pods in backoffQ).
  for (const QueuedPodInfoPtr& p :
       {active_.Delete(key), backoff_.Delete(key), unschedulable_.Delete(key)}) {
    if (p) CountRejectors(*p, -1);
  }
  SyncPendingGauges();
}

std::unordered_map<std::string, std::vector<framework::PodInfoPtr>> SchedulingQueue::NominatedPods()
    const {
  MutexLock l(mu_);
  return nominator_.NominatedPods();
}

void SchedulingQueue::DeleteNominatedPodIfExists(const api::Pod& pod) {
  MutexLock l(mu_);
  nominator_.Delete(pod.metadata.uid);
}

std::vector<framework::PodInfoPtr> SchedulingQueue::NominatedPodsForNode(
    std::string_view node) const {
  MutexLock l(mu_);
  return nominator_.NominatedPodsForNode(node);
}

void SchedulingQueue::AddNominatedPod(const framework::PodInfoPtr& pod,
                                      const framework::NominatingInfo& nominating) {
  MutexLock l(mu_);
  nominator_.AddNominatedPod(pod, nominating);
}

void SchedulingQueue::Activate(const api::Pod& pod) {
  std::string key = Key(pod);
  MutexLock l(mu_);
  // As upstream, the pod is found by namespace and name only: a pod recreated under the name is
  // the one activated. A pod being scheduled is in neither part: its attempt's outcome decides.
  QueuedPodInfoPtr p = unschedulable_.Delete(key);
  if (!p) p = backoff_.Delete(key);
  if (!p) return;
  MoveToActive(std::move(p), kForceActivate);
  SyncPendingGauges();
}

QueuedPodInfoPtr SchedulingQueue::Pop() {
  MutexLock l(mu_);
  // PopFromBackoffQ: an idle scheduler does not wait out the backoff of a pod plugins rejected.
  // A pod that failed with an error still waits out its own, as in upstream's error backoff
  // heap, so a failing API call is not retried in a tight loop.
  QueuedPodInfoPtr p;
  for (;;) {
    while (!closed_ && active_.empty() && !backoff_.HasRejected()) cv_.Wait(mu_);
    if (closed_) return nullptr;
    if (!active_.empty()) {
      p = active_.Pop();
    } else {
      p = backoff_.PopRejected();
      metrics::QueueIncomingPods(Queue::kActive, kPopFromBackoffQ).Increment();
    }
    // A pod with resource claims passes PreEnqueue again as it leaves: a claim it shares may
    // have gone into another pod's binding cycle since it was queued, and DynamicResources
    // holds it until that allocation is written rather than let the attempt fail.
    if (p->pod().spec.resource_claims.empty() ||
        PassPreEnqueue(p, Key(p->pod()), kPreEnqueueAtPop)) {
      break;
    }
    SyncPendingGauges();
  }
  p->attempts++;
  if (!p->attempted) {
    p->attempted = true;
    if (p->initial_attempt_timestamp == MonoTime{}) p->initial_attempt_timestamp = clock_.Now();
  }
  CountRejectors(*p, -1);
  p->unschedulable_plugins.clear();
  p->pending_plugins.clear();
  active_.AddInFlight(p->pod().metadata.uid);
  SyncPendingGauges();
  return p;
}

void SchedulingQueue::Done(const api::Pod& pod) {
  MutexLock l(mu_);
  active_.DoneInFlight(pod.metadata.uid);
}

bool SchedulingQueue::WasFlushedFromUnschedulable(const api::Pod& pod) const {
  MutexLock l(mu_);
  return unschedulable_.WasFlushed(pod.metadata.uid);
}

std::string_view SchedulingQueue::Requeue(QueuedPodInfoPtr p, std::string_view event) {
  if (!p->gating_plugin.empty()) return MoveToActive(std::move(p), event);
  if (backoff_.IsBackingOff(*p)) {
    // As upstream with PopFromBackoffQ, PreEnqueue runs on the way into backoffQ, since neither
    // a pop from backoffQ nor the end of the backoff runs it: a preemptor whose victims are still
    // being evicted stays held instead of being retried as soon as the scheduler is idle.
    std::string key = Key(p->pod());
    RemoveEverywhere(key);
    if (!PassPreEnqueue(p, key, event)) return kUnschedulableQ;
    backoff_.Add(std::move(p), event);
    cv_.Signal();  // PopFromBackoffQ lets an idle scheduler take it
    return kBackoffQ;
  }
  return MoveToActive(std::move(p), event);
}

void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfoPtr p, bool error) {
  std::string key = Key(p->pod());
  const std::string uid = p->pod().metadata.uid;
  MutexLock l(mu_);
  if (active_.Has(key) || backoff_.Has(key) || unschedulable_.Has(key)) {
    // Its cycle is over all the same (upstream defers Done): left in flight, the pod would
    // keep every later event in the log until it was popped again.
    active_.DoneInFlight(uid);
    return;
  }
  unschedulable_.ForgetFlushed(uid);
  CountRejectors(*p, +1);
  if (error) {
    p->consecutive_errors_count++;
  } else {
    p->unschedulable_count++;
    p->consecutive_errors_count = 0;
  }
  p->timestamp = clock_.Now();
  p->flush_timestamp = MonoTime{};
  // Replay what happened since the pod was popped.
  bool requeue = error || p->unschedulable_plugins.empty() ||
                 active_.AnyEventSince(uid, [&](const ActiveQueue::InFlightEvent& e) {
                   return hints_.WorthRequeuing(*p, e.event, e.old_obj, e.new_obj);
                 });
  active_.DoneInFlight(uid);
  // The queue owns the pod from here on and mu_ is held, so the log may read it afterwards.
  const QueuedPodInfo* logged = p.get();
  std::string_view queue = kUnschedulableQ;
  if (requeue) {
    queue = Requeue(std::move(p), kScheduleAttemptFailure);
  } else {
    unschedulable_.Put(key, std::move(p), kScheduleAttemptFailure);
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
                                                    const EventObject& new_obj,
                                                    const PreEnqueueCheck& pre_check) {
  MutexLock l(mu_);
  // As upstream, an event no plugin registered for is neither evaluated nor kept for the pods
  // in flight.
  if (!hints_.IsEventOfInterest(event)) return;
  active_.AddEventIfAnyInFlight(event, old_obj, new_obj);
  // The pods to move are taken out first and requeued after, so that one a PreEnqueue plugin
  // sends straight back is not asked again about the same event.
  std::vector<QueuedPodInfoPtr> to_move;
  // When every plugin registered for the event narrows it, only the pods waiting for what it
  // changed (and those no plugin rejected) are asked: the others' hints would all say Skip.
  std::vector<std::string> event_keys;
  if (hints_.EventKeys(event, old_obj, new_obj, event_keys)) {
    for (const std::string& key : unschedulable_.Candidates(event_keys)) {
      QueuedPodInfoPtr pod = unschedulable_.Get(key);
      if (!pod || (pre_check && !pre_check(pod->pod())) ||
          !hints_.WorthRequeuing(*pod, event, old_obj, new_obj)) {
        continue;
      }
      unschedulable_.Delete(key);
      to_move.push_back(std::move(pod));
    }
  } else {
    for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
      // A gated pod's gating plugin is among its unschedulable plugins, so its events decide.
      if ((pre_check && !pre_check(it->second->pod())) ||
          !hints_.WorthRequeuing(*it->second, event, old_obj, new_obj)) {
        ++it;
        continue;
      }
      QueuedPodInfoPtr pod;
      it = unschedulable_.Take(it, &pod);
      to_move.push_back(std::move(pod));
    }
  }
  const std::string label = event.Label();
  for (QueuedPodInfoPtr& pod : to_move) {
    const QueuedPodInfo* logged = pod.get();  // kept by the queue, under mu_
    std::string_view queue = Requeue(std::move(pod), label);
    VLOG(5, "Pod moved to an internal scheduling queue pod=\"{}\" event=\"{}\" queue=\"{}\"",
         Key(logged->pod()), label, queue);
  }
  if (!to_move.empty()) SyncPendingGauges();
}

void SchedulingQueue::FlushBackoffQCompleted() {
  MutexLock l(mu_);
  while (QueuedPodInfoPtr p = backoff_.PopCompleted()) {
    active_.Add(std::move(p), kBackoffComplete);
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
    QueuedPodInfoPtr p;
    it = unschedulable_.Take(it, &p);
    p->flush_timestamp = now;
    unschedulable_.MarkFlushed(p->pod().metadata.uid);
    to_move.push_back(std::move(p));
  }
  // Requeued after the scan: a gated pod goes back into unschedulable while it is walked.
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
  auto collect = [&pods](const QueuedPodInfoPtr& p) { pods.push_back(p->pod_info->pod); };
  active_.ForEach(collect);
  backoff_.ForEach(collect);
  for (const auto& [key, p] : unschedulable_) collect(p);
  return {std::move(pods), "activeQ:" + std::to_string(active_.size()) +
                               "; backoffQ:" + std::to_string(backoff_.size()) +
                               "; unschedulableEntities:" + std::to_string(unschedulable_.size())};
}

SchedulingQueue::Sizes SchedulingQueue::SizesForTest() const {
  MutexLock l(mu_);
  return Sizes{.active = active_.size(),
               .backoff = backoff_.size(),
               .unschedulable = unschedulable_.size(),
               .flushed = unschedulable_.flushed(),
               .in_flight_pods = active_.InFlightPods(),
               .in_flight_events = active_.InFlightEvents(),
               .nominated = nominator_.size()};
}

bool SchedulingQueue::Idle() const {
  MutexLock l(mu_);
  // What Pop would wait on: nothing active and no rejected pod backoffQ would hand out.
  return active_.empty() && !backoff_.HasRejected() && active_.InFlightPods() == 0;
}

size_t SchedulingQueue::UnschedulableSize() const {
  MutexLock l(mu_);
  return unschedulable_.size();
}
std::optional<SchedulingQueue::PodState> SchedulingQueue::StateOf(const api::Pod& pod) const {
  const std::string key = Key(pod);
  const MonoTime now = clock_.Now();
  auto seconds = [](Duration d) { return std::chrono::duration<double>(d).count(); };
  MutexLock l(mu_);
  PodState s;
  QueuedPodInfoPtr p;
  if ((p = active_.Get(key))) {
    s.where = "active";
  } else if ((p = backoff_.Get(key))) {
    s.where = "backoff";
    s.seconds_until_retry = std::max(0.0, seconds(backoff_.Expiry(*p) - now));
  } else if ((p = unschedulable_.Get(key))) {
    s.where = p->gating_plugin.empty() ? "unschedulable" : "gated";
  } else if (active_.IsInFlight(pod.metadata.uid)) {
    s.where = "scheduling";
    return s;
  } else {
    return std::nullopt;
  }
  s.attempts = p->attempts;
  s.seconds_queued = seconds(now - p->timestamp);
  s.rejected_by = p->unschedulable_plugins;
  s.gated_by = p->gating_plugin;
  return s;
}

bool SchedulingQueue::IsInUnschedulable(const api::Pod& pod) const {
  MutexLock l(mu_);
  return unschedulable_.Has(Key(pod));
}

}  // namespace stowage::queue
