// The Scheduler's construction, profiles, loop and shutdown.
#include "pkg/scheduler/scheduler.h"

#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"
#include "pkg/scheduler/cache_debugger.h"
#include "pkg/scheduler/informer_lister.h"
#include "pkg/scheduler/setup.h"

namespace stowage::scheduler {
namespace {
std::vector<framework::Extender*> ExtenderPointers(
    const std::vector<std::shared_ptr<framework::Extender>>& extenders) {
  std::vector<framework::Extender*> out;
  for (const auto& e : extenders) out.push_back(e.get());
  return out;
}
}  // namespace

Scheduler::Scheduler(client::RestClient& client, informer::InformerFactory& informers,
                     Options options)
    : client_(client),
      informers_(informers),
      // Extenders are sent whole Pods and Nodes, as upstream sends them.
      pods_(informers.For<api::Pod>(
          informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed",
                           .whole_objects = !options.extenders.empty()})),
      nodes_(
          informers.For<api::Node>(informer::Filter{.whole_objects = !options.extenders.empty()})),
      options_(std::move(options)),
      pool_(options_.parallelism),
      pod_writer_(client_, options_.may_bind),
      volume_writer_(client_, options_.may_bind),
      claim_writer_(client_, options_.may_bind),
      handle_(
          snapshot_, pool_, pod_writer_,
          [this](std::string_view uid) { return GetWaitingPod(uid); }, &informers,
          SchedulerHooks{
              .pods = &pods_,
              .nominated_pods =
                  [this](std::string_view node) { return queue_->NominatedPodsForNode(node); },
              .activate = [this](const api::Pod& pod) { queue_->Activate(pod); },
              .record_event =
                  [this](const api::Pod& regarding, std::string_view controller,
                         std::string_view type, std::string_view reason, std::string_view action,
                         std::string note, const api::Pod* related) {
                    events_->Record(regarding, controller, type, reason, action, std::move(note),
                                    related);
                  },
              // Preemption's API calls run on threads of their own, joined when the scheduler
              // stops, before the queue and the event recorder they use are destroyed.
              .run_async =
                  [this](std::function<void()> task) { binding_.SubmitWaiting(std::move(task)); },
              .pod_in_pre_bind =
                  [this](std::string_view uid) -> std::shared_ptr<framework::PodInPreBind> {
                return pods_in_pre_bind_.Get(uid);
              },
              .extenders = ExtenderPointers(options_.extenders),
              .volume_writer = &volume_writer_,
              .claim_writer = &claim_writer_,
              .stopping = &stopping_}),
      algorithm_(snapshot_, pool_, options_.percentage_of_nodes_to_score,
                 ExtenderPointers(options_.extenders)),
      status_writer_(client_, options_.status_workers),
      binding_(options_.binding_workers, options_.max_queued_bindings,
               options_.max_prebind_bindings) {
  events_ = std::make_unique<EventRecorder>(
      options_.event_client != nullptr ? *options_.event_client : client_, options_.instance);
}

Scheduler::~Scheduler() {
  stopping_ = true;  // ends PreBind's waits for volumes, which the shutdown below joins
  // Pods still held at Permit would keep their threads (which use this object) waiting.
  binding_.Shutdown([this] {
    for (auto& [name, fw] : profiles_) fw->RejectWaitingPods("the scheduler is stopping");
  });
  if (queue_) queue_->Close();
}

stowage::Status Scheduler::Init(const framework::Registry& registry,
                                const std::vector<framework::ProfileSpec>& profiles) {
  auto frameworks = FrameworksFromSpecs(registry, profiles, handle_);
  if (!frameworks.ok()) return frameworks.status();
  return Init(std::move(*frameworks));
}

stowage::Status Scheduler::Init(std::vector<std::unique_ptr<framework::Framework>> frameworks) {
  if (frameworks.empty()) return InvalidArgumentError("at least one profile is required");
  std::map<std::string, framework::Framework*> by_name;
  for (auto& fw : frameworks) {
    const std::string& name = fw->scheduler_name();
    if (by_name.count(name)) return InvalidArgumentError("duplicate profile \"" + name + "\"");
    by_name[name] = fw.get();
    profiles_[name] = std::move(fw);
  }
  queue::QueueOptions queue_options = options_.queue;
  queue_options.extenders = !options_.extenders.empty();
  queue_ = std::make_unique<queue::SchedulingQueue>(
      by_name, queue_options, options_.queue_clock ? *options_.queue_clock : RealClock());
  RegisterHandlers();
  return OkStatus();
}

framework::Framework* Scheduler::ProfileFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

std::shared_ptr<framework::WaitingPod> Scheduler::GetWaitingPod(std::string_view uid) const {
  for (const auto& [name, fw] : profiles_) {
    if (auto w = fw->GetWaitingPod(uid)) return w;
  }
  return nullptr;
}

std::vector<api::PodPtr> Scheduler::ListPods() const { return pods_.store().List(); }

void Scheduler::CacheError(std::string_view operation, const api::Pod* pod,
                           const stowage::Status& s) {
  cache_errors_.fetch_add(1, std::memory_order_relaxed);
  if (pod == nullptr) {
    LOG_ERROR("Scheduler cache {} failed err=\"{}\"", operation, s.message());
  } else {
    LOG_ERROR("Scheduler cache {} failed err=\"{}\" pod=\"{}\"", operation, s.message(),
              api::NamespacedName(pod->metadata));
  }
}

bool Scheduler::Quiet() { return queue_->Idle() && WritesDone(); }

bool Scheduler::WritesDone() {
  return binding_.Drain(std::chrono::milliseconds(0)) == 0 &&
         status_writer_.Drain(std::chrono::milliseconds(0)) == 0;
}

void Scheduler::Run(std::stop_token stop) {
  queue_->Run();
  std::stop_callback close(stop, [this] { queue_->Close(); });
  while (!stop.stop_requested()) {
    binding_.WaitForRoom(stop);
    if (stop.stop_requested()) break;
    if (options_.before_cycle) options_.before_cycle();
    ScheduleOne();
  }
  // Let in-flight bindings finish so assumed pods do not leak, within a bound so that an
  // unreachable API server cannot hold up shutdown (the pods stay unbound and are retried by
  // whichever scheduler runs next).
  if (size_t left = binding_.Drain(options_.binding_drain_timeout); left > 0) {
    LOG_WARN(
        "{} binding(s) still in flight after {}s; stopping without them", left,
        std::chrono::duration_cast<std::chrono::seconds>(options_.binding_drain_timeout).count());
  }
  // Then the patches of failures, the binding failures' included.
  if (size_t left = status_writer_.Drain(options_.binding_drain_timeout); left > 0) {
    LOG_WARN("{} pod status update(s) still in flight; stopping without them", left);
  }
}

void Scheduler::DebugCache() const {
  InformerLister<api::Node> nodes(nodes_);
  InformerLister<api::Pod> pods(pods_);
  CacheDebugger(nodes, pods, cache_, *queue_).CompareAndDump();
}

}  // namespace stowage::scheduler
