#include "pkg/metrics/metrics.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "pkg/metrics/families.h"

namespace stowage::metrics {
namespace {

// Families whose gate is off are registered here, where nobody reads them, so their
// accessors keep working.
Registry& Unserved() {
  static Registry* const kUnserved = new Registry();
  return *kUnserved;
}

template <typename T>
prometheus::Family<T>& Add(Registry& r, const FamilyDesc& d) {
  if constexpr (std::is_same_v<T, prometheus::Counter>) {
    return r.AddCounter(d);
  } else if constexpr (std::is_same_v<T, prometheus::Gauge>) {
    return r.AddGauge(d);
  } else {
    return r.AddHistogram(d);
  }
}

// Serves `entities` as a copy of every series of `pods` with type="pod" added: the entity view of
// a queue that holds single pods only.
template <typename T>
void AddPodEntities(Registry& r, prometheus::Family<T>& pods, const FamilyDesc& entities) {
  r.AddCollector({entities}, [&pods, entities] {
    std::vector<prometheus::MetricFamily> out = pods.Collect();
    for (auto& family : out) {
      family.name = entities.name;
      family.help = entities.ExposedHelp();
      for (auto& m : family.metric) {
        m.label.push_back({"type", "pod"});
        std::sort(m.label.begin(), m.label.end(),
                  [](const auto& a, const auto& b) { return a.name < b.name; });
      }
    }
    return out;
  });
}

template <typename T>
std::unique_ptr<ChildCache<T>> Cache(prometheus::Family<T>& f, const FamilyDesc& d) {
  return std::make_unique<ChildCache<T>>(f, d.labels, d.buckets);
}

// The registered families and the series resolved once. As upstream, label-less series (and
// pending_pods' four, cache_size's three) exist from registration; labelled ones appear when
// first touched, through a ChildCache.
struct Scheduler {
  explicit Scheduler(const FeatureGates& g);

  families::PerProfile per_profile;
  prometheus::Histogram* algorithm_duration;
  prometheus::Histogram* preemption_victims;
  prometheus::Counter* preemption_attempts;
  prometheus::Histogram* attempts;
  prometheus::Counter* after_flush;
  std::array<prometheus::Gauge*, 4> pending;
  std::array<prometheus::Gauge*, 3> cache_size;
  std::unique_ptr<ChildCache<prometheus::Histogram>> event_handling;
  std::unique_ptr<ChildCache<prometheus::Histogram>> sli;
  std::unique_ptr<ChildCache<prometheus::Counter>> incoming;
  std::unique_ptr<ChildCache<prometheus::Gauge>> goroutines;
  std::unique_ptr<ChildCache<prometheus::Histogram>> permit_wait;
  std::unique_ptr<ChildCache<prometheus::Gauge>> unschedulable;
  std::unique_ptr<ChildCache<prometheus::Histogram>> hints;
  std::unique_ptr<ChildCache<prometheus::Gauge>> inflight;
  std::unique_ptr<ChildCache<prometheus::Histogram>> preemption_duration;
  std::unique_ptr<ChildCache<prometheus::Counter>> preemption_total;
  std::unique_ptr<ChildCache<prometheus::Counter>> volume_stage_errors;
  std::unique_ptr<ChildCache<prometheus::Counter>> resource_claim_creates;
  std::unique_ptr<ChildCache<prometheus::Counter>> binding_conditions_allocations;
  std::unique_ptr<ChildCache<prometheus::Histogram>> binding_conditions_wait;
};

Scheduler::Scheduler(const FeatureGates& g) {
  using prometheus::Counter;
  using prometheus::Gauge;
  using prometheus::Histogram;
  namespace f = families;
  Registry& on = Registry::Global();
  // Upstream's registration order: metricsList, the volume binder's pair, the gated ones.
  per_profile.schedule_attempts = &Add<Counter>(on, f::ScheduleAttempts());
  per_profile.attempt_duration = &Add<Histogram>(on, f::SchedulingAttemptDuration());
  auto& algorithm = Add<Histogram>(on, f::SchedulingAlgorithmDuration());
  auto& events = Add<Histogram>(on, f::EventHandlingDuration());
  auto& victims = Add<Histogram>(on, f::PreemptionVictims());
  auto& preemptions = Add<Counter>(on, f::PreemptionAttempts());
  auto& pending_pods = Add<Gauge>(on, f::PendingPods());
  AddPodEntities(on, pending_pods, f::QueuedEntities());
  auto& sli_family = Add<Histogram>(on, f::PodSchedulingSliDuration());
  auto& attempts_family = Add<Histogram>(on, f::PodSchedulingAttempts());
  auto& flush = Add<Counter>(on, f::PodScheduledAfterFlush());
  per_profile.extension_point_duration = &Add<Histogram>(on, f::FrameworkExtensionPointDuration());
  per_profile.plugin_execution_duration = &Add<Histogram>(on, f::PluginExecutionDuration());
  auto& incoming_family = Add<Counter>(on, f::QueueIncomingPods());
  AddPodEntities(on, incoming_family, f::QueueIncomingEntities());
  auto& goroutines_family = Add<Gauge>(on, f::Goroutines());
  auto& permit = Add<Histogram>(on, f::PermitWaitDuration());
  auto& cache = Add<Gauge>(on, f::CacheSize());
  auto& unschedulable_family = Add<Gauge>(on, f::UnschedulablePods());
  per_profile.plugin_evaluation = &Add<Counter>(on, f::PluginEvaluation());
  Add<Counter>(on, f::BatchAttempts());
  Add<Counter>(on, f::BatchCacheFlushed());
  Add<Counter>(on, f::BatchRescoreAttempts());
  Add<Histogram>(on, f::BatchRescoreDuration());
  Add<Histogram>(on, f::GetNodeHintDuration());
  Add<Histogram>(on, f::StoreScheduleResultsDuration());
  auto& hints_family = Add<Histogram>(on, f::QueueingHintExecutionDuration());
  auto& inflight_family = Add<Gauge>(on, f::InflightEvents());
  Add<Counter>(on, f::PreQueueingHintEvaluations());
  Add<Counter>(on, f::VolumeBinderCacheRequests());
  auto& volume_errors = Add<Counter>(on, f::VolumeSchedulingStageError());
  Registry& async_preemption = g.scheduler_async_preemption ? on : Unserved();
  auto& pre_duration = Add<Histogram>(async_preemption, f::PreemptionGoroutinesDuration());
  auto& pre_total = Add<Counter>(async_preemption, f::PreemptionGoroutinesExecution());
  Registry& async_api = g.scheduler_async_api_calls ? on : Unserved();
  Add<Counter>(async_api, f::AsyncApiCallExecution());
  Add<Histogram>(async_api, f::AsyncApiCallExecutionDuration());
  Add<Gauge>(async_api, f::PendingAsyncApiCalls());
  auto& claim_creates =
      Add<Counter>(g.dra_extended_resource ? on : Unserved(), f::ResourceClaimCreates());
  Registry& workload = g.generic_workload ? on : Unserved();
  Add<Counter>(workload, f::PodGroupScheduleAttempts());
  Add<Histogram>(workload, f::PodGroupSchedulingAttemptDuration());
  Add<Histogram>(workload, f::PodGroupSchedulingAlgorithmDuration());
  Add<Counter>(workload, f::WorkloadPreemptionAttempts());
  Add<Histogram>(workload, f::WorkloadPreemptionVictims());
  Add<Histogram>(workload, f::PreemptionWorkloadDisruptions());
  Add<Histogram>(workload, f::PreemptionEvaluationDuration());
  Add<Histogram>(workload, f::PreemptionExecutionDuration());
  Add<Counter>(workload, f::PreemptionPdbViolations());
  Registry& placements = g.topology_aware_workload_scheduling ? on : Unserved();
  Add<Counter>(placements, f::GeneratedPlacements());
  Add<Counter>(placements, f::PlacementEvaluations());
  Add<Histogram>(placements, f::PlacementEvaluationDuration());
  Registry& binding_conditions = g.dra_device_binding_conditions ? on : Unserved();
  auto& bc_allocations = Add<Counter>(binding_conditions, f::DraBindingConditionsAllocations());
  auto& bc_wait = Add<Histogram>(binding_conditions, f::DraBindingConditionsWaitDuration());

  algorithm_duration = &algorithm.Add({}, f::SchedulingAlgorithmDuration().buckets);
  preemption_victims = &victims.Add({}, f::PreemptionVictims().buckets);
  preemption_attempts = &preemptions.Add({});
  attempts = &attempts_family.Add({}, f::PodSchedulingAttempts().buckets);
  after_flush = &flush.Add({});
  for (Queue q : {Queue::kActive, Queue::kBackoff, Queue::kUnschedulable, Queue::kGated}) {
    pending[static_cast<size_t>(q)] = &pending_pods.Add({{"queue", std::string(QueueName(q))}});
  }
  cache_size = {&cache.Add({{"type", "assumed_pods"}}), &cache.Add({{"type", "pods"}}),
                &cache.Add({{"type", "nodes"}})};
  event_handling = Cache(events, f::EventHandlingDuration());
  volume_stage_errors = Cache(volume_errors, f::VolumeSchedulingStageError());
  resource_claim_creates = Cache(claim_creates, f::ResourceClaimCreates());
  binding_conditions_allocations = Cache(bc_allocations, f::DraBindingConditionsAllocations());
  binding_conditions_wait = Cache(bc_wait, f::DraBindingConditionsWaitDuration());
  sli = Cache(sli_family, f::PodSchedulingSliDuration());
  incoming = Cache(incoming_family, f::QueueIncomingPods());
  goroutines = Cache(goroutines_family, f::Goroutines());
  permit_wait = Cache(permit, f::PermitWaitDuration());
  unschedulable = Cache(unschedulable_family, f::UnschedulablePods());
  hints = Cache(hints_family, f::QueueingHintExecutionDuration());
  inflight = Cache(inflight_family, f::InflightEvents());
  preemption_duration = Cache(pre_duration, f::PreemptionGoroutinesDuration());
  preemption_total = Cache(pre_total, f::PreemptionGoroutinesExecution());
}

std::atomic<Scheduler*> g_scheduler{nullptr};
std::once_flag g_once;

Scheduler& S() {
  Scheduler* s = g_scheduler.load(std::memory_order_acquire);
  if (s != nullptr) return *s;
  Register();
  return *g_scheduler.load(std::memory_order_acquire);
}

}  // namespace

void Register(const FeatureGates& gates) {
  std::call_once(g_once,
                 [&] { g_scheduler.store(new Scheduler(gates), std::memory_order_release); });
}

namespace families {
const PerProfile& PerProfileFamilies() { return S().per_profile; }
}  // namespace families

std::vector<FamilyDesc> SchedulerFamilyDescs() {
  namespace f = families;
  return {f::ScheduleAttempts(),
          f::SchedulingAttemptDuration(),
          f::SchedulingAlgorithmDuration(),
          f::EventHandlingDuration(),
          f::PreemptionVictims(),
          f::PreemptionAttempts(),
          f::PendingPods(),
          f::QueuedEntities(),
          f::PodSchedulingSliDuration(),
          f::PodSchedulingAttempts(),
          f::PodScheduledAfterFlush(),
          f::FrameworkExtensionPointDuration(),
          f::PluginExecutionDuration(),
          f::QueueIncomingPods(),
          f::QueueIncomingEntities(),
          f::Goroutines(),
          f::PermitWaitDuration(),
          f::CacheSize(),
          f::UnschedulablePods(),
          f::PluginEvaluation(),
          f::BatchAttempts(),
          f::BatchCacheFlushed(),
          f::BatchRescoreAttempts(),
          f::BatchRescoreDuration(),
          f::GetNodeHintDuration(),
          f::StoreScheduleResultsDuration(),
          f::QueueingHintExecutionDuration(),
          f::InflightEvents(),
          f::PreQueueingHintEvaluations(),
          f::VolumeBinderCacheRequests(),
          f::VolumeSchedulingStageError(),
          f::PreemptionGoroutinesDuration(),
          f::PreemptionGoroutinesExecution(),
          f::AsyncApiCallExecution(),
          f::AsyncApiCallExecutionDuration(),
          f::PendingAsyncApiCalls(),
          f::ResourceClaimCreates(),
          f::PodGroupScheduleAttempts(),
          f::PodGroupSchedulingAttemptDuration(),
          f::PodGroupSchedulingAlgorithmDuration(),
          f::WorkloadPreemptionAttempts(),
          f::WorkloadPreemptionVictims(),
          f::PreemptionWorkloadDisruptions(),
          f::PreemptionEvaluationDuration(),
          f::PreemptionExecutionDuration(),
          f::PreemptionPdbViolations(),
          f::GeneratedPlacements(),
          f::PlacementEvaluations(),
          f::PlacementEvaluationDuration(),
          f::DraBindingConditionsAllocations(),
          f::DraBindingConditionsWaitDuration()};
}

std::string_view ResultName(Result r) {
  switch (r) {
    case Result::kScheduled: return "scheduled";
    case Result::kUnschedulable: return "unschedulable";
    case Result::kError: return "error";
  }
  return "error";
}

std::string_view CodeName(uint8_t code) {
  static constexpr std::array<std::string_view, kNumCodes> kNames = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending"};
  return code < kNumCodes ? kNames[code] : "Unknown";
}

std::string_view QueueName(Queue q) {
  switch (q) {
    case Queue::kActive: return "active";
    case Queue::kBackoff: return "backoff";
    case Queue::kUnschedulable: return "unschedulable";
    case Queue::kGated: return "gated";
  }
  return "active";
}

std::string_view HintResultName(HintResult h) {
  switch (h) {
    case HintResult::kQueue: return "Queue";
    case HintResult::kQueueSkip: return "QueueSkip";
    case HintResult::kError: return "Error";
  }
  return "Error";
}

prometheus::Histogram& SchedulingAlgorithmDuration() { return *S().algorithm_duration; }

prometheus::Histogram& EventHandlingDuration(std::string_view event) {
  return S().event_handling->Get({event});
}

prometheus::Gauge& PendingPods(Queue q) { return *S().pending[static_cast<size_t>(q)]; }

prometheus::Counter& QueueIncomingPods(Queue q, std::string_view event) {
  return S().incoming->Get({QueueName(q), event});
}

prometheus::Gauge& InflightEvents(std::string_view event) { return S().inflight->Get({event}); }

void ObserveQueueingHint(std::string_view plugin, std::string_view event, HintResult hint,
                         double seconds) {
  S().hints->Get({plugin, event, HintResultName(hint)}).Observe(seconds);
}

prometheus::Gauge& UnschedulablePods(std::string_view plugin, std::string_view profile) {
  return S().unschedulable->Get({plugin, profile});
}

prometheus::Gauge& Goroutines(std::string_view operation) {
  return S().goroutines->Get({operation});
}

prometheus::Histogram& PermitWaitDuration(uint8_t code) {
  return S().permit_wait->Get({CodeName(code)});
}

prometheus::Gauge& CacheSize(CacheType t) { return *S().cache_size[static_cast<size_t>(t)]; }

void ObservePodScheduled(int attempts, double sli_seconds) {
  static constexpr std::array<std::string_view, 15> kAttempts = {
      "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15+"};
  Scheduler& s = S();
  s.attempts->Observe(attempts);
  size_t i = attempts < 1 ? 0 : std::min<size_t>(attempts, kAttempts.size()) - 1;
  s.sli->Get({kAttempts[i]}).Observe(sli_seconds);
}

prometheus::Counter& PodScheduledAfterFlush() { return *S().after_flush; }
prometheus::Counter& PreemptionAttempts() { return *S().preemption_attempts; }
prometheus::Histogram& PreemptionVictims() { return *S().preemption_victims; }
prometheus::Counter& VolumeSchedulingStageError(std::string_view operation) {
  return S().volume_stage_errors->Get({operation});
}

prometheus::Counter& ResourceClaimCreates(bool success) {
  // The scheduler creates claims for pods' extended resources only: no admin access, owned by
  // a Pod of the core group.
  return S().resource_claim_creates->Get({success ? "success" : "failure", "false", "", "Pod"});
}

void ObserveDraBindingConditions(std::string_view profile, std::string_view driver,
                                 std::string_view status, std::optional<double> wait_seconds) {
  Scheduler& s = S();
  if (wait_seconds) {
    s.binding_conditions_wait->Get({profile, driver, status}).Observe(*wait_seconds);
  } else {
    s.binding_conditions_allocations->Get({profile, driver, status}).Increment();
  }
}

void ObservePreemptionGoroutine(bool success, double seconds) {
  std::string_view result = success ? "success" : "error";
  Scheduler& s = S();
  s.preemption_duration->Get({result}).Observe(seconds);
  s.preemption_total->Get({result}).Increment();
}

}  // namespace stowage::metrics
