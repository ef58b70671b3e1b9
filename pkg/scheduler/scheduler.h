// Scheduler: wires informers, cache, queue and the profiles' frameworks, and runs the scheduling
// loop (upstream pkg/scheduler: scheduler.go, schedule_one.go, eventhandlers.go).
//
// One thread runs scheduling cycles one pod at a time (Filter and Score fan out over the worker
// pool); each chosen pod is assumed in the cache and handed to a binding worker (BindingPool),
// so binding (an API call) overlaps the next cycle. Failures patch the pod's PodScheduled
// condition (through StatusWriter), record a FailedScheduling event and requeue the pod.
// Plugins see only handle() (FrameworkHandle), never the Scheduler. The informer handlers are
// in event_handlers.cc; New (setup.h) builds a Scheduler from its configuration. Thread-safe:
// Run blocks until stopped.
//
// Metrics (pkg/metrics, upstream's names): schedule_attempts_total and
// scheduling_attempt_duration_seconds per result and profile,
// scheduling_algorithm_duration_seconds, pod_scheduling_attempts,
// pod_scheduling_sli_duration_seconds and pod_scheduled_after_flush_total for bound pods,
// goroutines{operation="binding"} while binding cycles run, event_handling_duration_seconds{event}
// in the informer handlers; 10% of cycles are marked for plugin_execution_duration_seconds.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/client/rest_client.h"
#include "pkg/framework/runtime/parallelize.h"
#include "pkg/framework/runtime/runtime.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/queue/scheduling_queue.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/binding_pool.h"
#include "pkg/scheduler/claim_writer.h"
#include "pkg/scheduler/event_recorder.h"
#include "pkg/scheduler/explain.h"
#include "pkg/scheduler/framework_handle.h"
#include "pkg/scheduler/pod_writer.h"
#include "pkg/scheduler/pods_in_pre_bind.h"
#include "pkg/scheduler/status_writer.h"
#include "pkg/scheduler/volume_writer.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/extender.h"
#include "stowage/framework/registry.h"

namespace stowage::scheduler {

struct Options {
  int parallelism = 16;
  std::optional<int32_t> percentage_of_nodes_to_score;  // global; profiles may override
  queue::QueueOptions queue;
  int binding_workers = 16;
  // Bindings waiting for a free worker at most. Beyond it the scheduling loop waits, so it does
  // not run ahead of what the API server can bind: pods wait in the scheduling queue (where
  // later events still reach them) rather than assumed in a binding backlog.
  size_t max_queued_bindings = 32;
  // Binding cycles whose PreBind has work (claims, volumes) run on threads of their own, at most
  // this many at once; beyond it the scheduling loop waits, as for max_queued_bindings.
  size_t max_prebind_bindings = 128;
  // Workers that send the PodScheduled patches of failed attempts (StatusWriter), apart from
  // the binding workers so that a burst of failures does not hold up bindings.
  int status_workers = 4;
  // How long Run waits, once stopped, for bindings (and then status patches) already in flight.
  std::chrono::milliseconds binding_drain_timeout = std::chrono::seconds(15);
  std::string instance;  // reportingInstance of events, e.g. "stowage-<host>"
  // The client events are written with; null: the scheduler's client. Upstream gives events a
  // client of their own so that they do not spend the bindings' rate limit.
  client::RestClient* event_client = nullptr;
  // Called once a failed pod has been handed back to the queue, before its event and status
  // are written: tests change the pod (delete it, update it) at that point.
  std::function<void()> after_failure_requeue_for_test;
  // Asked before each binding and each preemption victim's deletion is sent; false refuses it
  // (the pod is requeued). A leader passes whether its own clock says it still holds the lease,
  // so a leader resumed after a stall binds and evicts nothing once another may lead. Null:
  // always allowed. Must be cheap and thread-safe.
  std::function<bool()> may_bind;
  // The configured extenders (pkg/extender builds them), in the configuration's order. They
  // filter and score in every profile, bind instead of the Bind plugins and take part in
  // preemption, as upstream's.
  std::vector<std::shared_ptr<framework::Extender>> extenders;
  // The clock of the queue's backoffs and flushes; null: the real one. `stowage simulate` gives
  // a FakeClock it moves on when the scheduler is idle, so backoffs cost no real time.
  Clock* queue_clock = nullptr;
  // Called on the scheduling thread before each cycle pops its pod. `stowage simulate` waits
  // there until the previous cycle's binding, preemption and writes have reached the informers,
  // so that a run does not depend on thread timing and repeats exactly.
  std::function<void()> before_cycle;
};

class Scheduler {
 public:
  Scheduler(client::RestClient& client, informer::InformerFactory& informers, Options options);
  ~Scheduler();

  // Takes the profiles' frameworks (built with handle(); one per scheduler name), creates the
  // queue and registers the informer handlers. Call before the informers start so the initial
  // lists reach the cache and queue. New (setup.h) builds a scheduler from its configuration.
  stowage::Status Init(std::vector<std::unique_ptr<framework::Framework>> frameworks);
  // Init with one framework per spec, built from registry.
  stowage::Status Init(const framework::Registry& registry,
                       const std::vector<framework::ProfileSpec>& profiles);
  // Runs the scheduling loop until stop is requested; then drains in-flight bindings.
  void Run(std::stop_token stop);

  // What the profiles' plugins are given (the snapshot, the worker pool, waiting pods and the
  // API writer); build plugins for Init with it.
  framework::Handle& handle() { return handle_; }

  cache::Cache& cache() { return cache_; }
  // Cache operations that failed since construction. Each is a bug in the assumed-pod state
  // machine (cache.h) or in event delivery, and is logged at error level. Kept here rather
  // than as a metric because upstream serves no such family.
  uint64_t cache_errors() const { return cache_errors_.load(std::memory_order_relaxed); }
  // Every non-terminal pod the scheduler's pod informer holds (for /metrics/resources).
  std::vector<api::PodPtr> ListPods() const;
  queue::SchedulingQueue& queue() { return *queue_; }
  EventRecorder& events() { return *events_; }
  // What a scheduling cycle would do with the pending pod ns/name, over every node of a fresh
  // snapshot of the cache (explain.h), with nothing reserved or written. Safe from any thread:
  // it runs between two scheduling cycles, on the cycle's own snapshot and search, so a running
  // scheduler waits for it once (`stowage explain`, /debug/explain). NotFound for a pod the
  // informer does not hold; FailedPrecondition for a bound pod or one no profile serves.
  StatusOr<Explanation> Explain(std::string_view ns, std::string_view name);
  // Nothing is being scheduled, bound or written: activeQ is empty, no cycle runs, and no
  // binding, async preemption or status patch is queued or in flight. A pod in backoff or
  // unschedulable waits for time or an event. Safe from any thread.
  bool Quiet();
  // No binding, async preemption or status patch is queued or in flight.
  bool WritesDone();
  // Upstream's cache debugger, which SIGUSR2 runs: compares the cache and the queue with the
  // informers, then dumps both to the log (cache_debugger.h). Safe from any thread.
  void DebugCache() const;

 private:
  void ScheduleOne();
  // Finds a host; on failure sets fit (a rejection) or returns an error status.
  // start is when the pod's scheduling cycle began (the attempt's metrics measure from it).
  void BindingCycle(framework::Framework* fw, std::unique_ptr<framework::CycleState> state,
                    queue::QueuedPodInfoPtr qpod, framework::PodInfoPtr assumed, std::string host,
                    std::chrono::milliseconds permit_wait, framework::Status preflight,
                    MonoTime start);
  // Binds through the first interested binder extender (an ignorable one that fails is
  // skipped), or else through the Bind plugins (upstream's bind and extendersBinding).
  framework::Status Bind(framework::Framework& fw, framework::CycleState& state,
                         const api::Pod& pod, const std::string& host);
  void HandleFailure(framework::Framework* fw, queue::QueuedPodInfoPtr qpod,
                     const framework::Status& status, const FitError* fit, MonoTime start);
  void RegisterHandlers();
  // Requeues pods on changes of kind T (a kind the scheduler reads through listers only) when
  // some plugin registered events on resource, upstream's handlers for the other kinds.
  template <typename T>
  void RequeueOnChangesOf(framework::EventResource resource);
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view uid) const;
  // Logs a failed cache operation on pod at error level and counts it (cache_errors()).
  void CacheError(std::string_view operation, const api::Pod* pod, const stowage::Status& s);
  void CacheError(std::string_view operation, const api::Pod& pod, const stowage::Status& s) {
    if (!s.ok()) CacheError(operation, &pod, s);
  }
  framework::Framework* ProfileFor(const api::Pod& pod) const;
  bool Responsible(const api::Pod& pod) const { return ProfileFor(pod) != nullptr; }

  client::RestClient& client_;
  informer::InformerFactory& informers_;
  // The informers the handlers are registered on, obtained once so that failure handling and
  // ListPods read the very store the handlers see (a lookup by filter could start another
  // list and watch of every pod). Pods: the non-terminal ones, as upstream.
  informer::SharedInformer<api::Pod>& pods_;
  informer::SharedInformer<api::Node>& nodes_;
  const Options options_;
  cache::Cache cache_;
  cache::Snapshot snapshot_;
  framework::WorkerPool pool_;
  std::atomic<bool> stopping_{false};
  ClientPodWriter pod_writer_;
  ClientVolumeWriter volume_writer_;
  ClientClaimWriter claim_writer_;
  PodsInPreBind pods_in_pre_bind_;
  // After snapshot_, pool_ and pod_writer_, which it refers to, and before profiles_, whose
  // plugins refer to it.
  FrameworkHandle handle_;
  std::map<std::string, std::unique_ptr<framework::Framework>> profiles_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
  std::unique_ptr<EventRecorder> events_;
  std::atomic<uint64_t> cache_errors_{0};
  Algorithm algorithm_;  // after snapshot_ and pool_, which it refers to
  // Held by the scheduling thread for each scheduling cycle, and by Explain, which uses the
  // cycle's snapshot_ and algorithm_ in between.
  Mutex cycle_mu_;
  StatusWriter status_writer_;
  // Last: its threads use everything above, so it is shut down (in ~Scheduler) first.
  BindingPool binding_;
};

// The failure message of a FitError (framework::FitErrorMessage), named here as the scheduler
// writes it.
using framework::FitErrorMessage;

}  // namespace stowage::scheduler
