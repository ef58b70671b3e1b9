// Scheduler construction, informer event handlers and the binding workers.
#include "pkg/scheduler/scheduler.h"

#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"

namespace stowage::scheduler {

using framework::ClusterEvent;
using framework::EventResource;

Scheduler::Scheduler(client::RestClient& client, informer::InformerFactory& informers,
                     Options options)
    : client_(client),
      informers_(informers),
      options_(std::move(options)),
      pool_(options_.parallelism),
      algorithm_(snapshot_, pool_, options_.percentage_of_nodes_to_score) {
  events_ = std::make_unique<EventRecorder>(
      options_.event_client != nullptr ? *options_.event_client : client_, options_.instance);
  for (int i = 0; i < std::max(1, options_.binding_workers); ++i) {
    bind_workers_.emplace_back([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock<std::mutex> l(bind_mu_);
          bind_cv_.wait(l, [&] { return bind_closed_ || !bind_tasks_.empty(); });
          if (bind_tasks_.empty()) return;
          task = std::move(bind_tasks_.front());
          bind_tasks_.pop_front();
          ++bind_running_;
        }
        room_cv_.notify_all();
        task();
        std::lock_guard<std::mutex> l(bind_mu_);
        --bind_running_;
        bind_cv_.notify_all();
      }
    });
  }
}

Scheduler::~Scheduler() {
  {
    std::lock_guard<std::mutex> l(bind_mu_);
    bind_closed_ = true;
  }
  bind_cv_.notify_all();
  room_cv_.notify_all();
  for (auto& t : bind_workers_) t.join();
  // Pods still held at Permit would keep their threads (which use this object) waiting.
  for (auto& [name, fw] : profiles_) fw->RejectWaitingPods("the scheduler is stopping");
  {
    std::unique_lock<std::mutex> l(bind_mu_);
    bind_cv_.wait(l, [&] { return permit_threads_ == 0; });
  }
  if (queue_) queue_->Close();
}

void Scheduler::SubmitBinding(std::function<void()> task, bool waits_on_permit) {
  if (waits_on_permit) {
    {
      std::lock_guard<std::mutex> l(bind_mu_);
      ++bind_running_;
      ++permit_threads_;
    }
    std::thread([this, task = std::move(task)] {
      task();
      std::lock_guard<std::mutex> l(bind_mu_);
      --bind_running_;
      --permit_threads_;
      bind_cv_.notify_all();
    }).detach();
    return;
  }
  {
    std::lock_guard<std::mutex> l(bind_mu_);
    bind_tasks_.push_back(std::move(task));
  }
  bind_cv_.notify_one();
}

void Scheduler::WaitForBindingRoom(std::stop_token stop) {
  std::unique_lock<std::mutex> l(bind_mu_);
  room_cv_.wait(l, stop, [&] {
    return bind_closed_ || bind_tasks_.size() < std::max<size_t>(1, options_.max_queued_bindings);
  });
}

stowage::Status Scheduler::Init(const framework::Registry& registry,
                                const std::vector<framework::ProfileSpec>& profiles) {
  if (profiles.empty()) return InvalidArgumentError("at least one profile is required");
  std::map<std::string, framework::Framework*> by_name;
  for (const auto& spec : profiles) {
    auto fw = framework::Framework::New(registry, spec, *this);
    if (!fw.ok()) return fw.status();
    by_name[spec.scheduler_name] = fw->get();
    profiles_[spec.scheduler_name] = std::move(*fw);
  }
  queue_ = std::make_unique<queue::SchedulingQueue>(by_name, options_.queue);
  RegisterHandlers();
  return OkStatus();
}

framework::Framework* Scheduler::ProfileFor(const api::Pod& pod) const {
  auto it = profiles_.find(pod.spec.scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

std::shared_ptr<framework::WaitingPod> Scheduler::GetWaitingPod(std::string_view uid) {
  for (const auto& [name, fw] : profiles_) {
    if (auto w = fw->GetWaitingPod(uid)) return w;
  }
  return nullptr;
}

stowage::Status Scheduler::BindPod(const api::Pod& pod, std::string_view node_name) {
  return client::BindPod(client_, pod.metadata, node_name);
}

namespace {
using SteadyClock = std::chrono::steady_clock;

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

// Observes event_handling_duration_seconds{event} when the handler returns.
class HandlingTimer {
 public:
  explicit HandlingTimer(prometheus::Histogram& h) : h_(h), start_(SteadyClock::now()) {}
  ~HandlingTimer() { h_.Observe(Seconds(SteadyClock::now() - start_)); }

 private:
  prometheus::Histogram& h_;
  SteadyClock::time_point start_;
};

prometheus::Histogram& Handling(std::string_view event) {
  return metrics::EventHandlingDuration(event);
}
}  // namespace

void Scheduler::RegisterHandlers() {
  using framework::kEventAssignedPodAdd;
  using framework::kEventAssignedPodDelete;
  // The histograms of fixed labels are looked up once.
  static prometheus::Histogram& node_add = Handling(framework::kEventNodeAdd.Label());
  static prometheus::Histogram& node_delete = Handling(framework::kEventNodeDelete.Label());
  static prometheus::Histogram& assigned_add = Handling(kEventAssignedPodAdd.Label());
  static prometheus::Histogram& assigned_update =
      Handling(framework::kEventAssignedPodUpdate.Label());
  static prometheus::Histogram& assigned_delete = Handling(kEventAssignedPodDelete.Label());
  static prometheus::Histogram& unscheduled_add =
      Handling(framework::kEventUnscheduledPodAdd.Label());
  static prometheus::Histogram& unscheduled_update =
      Handling(framework::kEventUnscheduledPodUpdate.Label());
  static prometheus::Histogram& unscheduled_delete =
      Handling(framework::kEventUnscheduledPodDelete.Label());

  auto nodes = std::make_shared<informer::FuncHandler<api::Node>>();
  nodes->add = [this](const api::NodePtr& n, bool) {
    HandlingTimer t(node_add);
    cache_.AddNode(n);
    queue_->MoveAllToActiveOrBackoffQueue(framework::kEventNodeAdd, {}, n);
  };
  nodes->update = [this](const api::NodePtr& o, const api::NodePtr& n) {
    auto start = SteadyClock::now();
    cache_.UpdateNode(o, n);
    auto updating = SteadyClock::now() - start;
    // As upstream, each change is observed as the cache update plus its own requeueing.
    for (const ClusterEvent& ev : framework::NodeSchedulingPropertiesChange(*n, *o)) {
      auto moving = SteadyClock::now();
      queue_->MoveAllToActiveOrBackoffQueue(ev, o, n);
      Handling(ev.Label()).Observe(Seconds(updating + (SteadyClock::now() - moving)));
    }
  };
  nodes->del = [this](const api::NodePtr& n, bool) {
    HandlingTimer t(node_delete);
    cache_.RemoveNode(*n);
    queue_->MoveAllToActiveOrBackoffQueue(framework::kEventNodeDelete, n, {});
  };
  informers_.For<api::Node>().AddEventHandler(nodes);

  auto pods = std::make_shared<informer::FuncHandler<api::Pod>>();
  pods->add = [this](const api::PodPtr& p, bool) {
    if (!p->spec.node_name.empty()) {
      HandlingTimer t(assigned_add);
      if (auto s = cache_.AddPod(p); !s.ok()) VLOG(4, "cache add: {}", s.message());
      queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodAdd, {}, p);
    } else if (Responsible(*p)) {
      HandlingTimer t(unscheduled_add);
      queue_->Add(p);
    }
  };
  pods->update = [this](const api::PodPtr& o, const api::PodPtr& n) {
    if (o->metadata.resource_version == n->metadata.resource_version) return;
    if (!n->spec.node_name.empty()) {
      if (o->spec.node_name.empty()) {
        // The binding was observed (upstream's assigned-pod Add): the pod leaves the queue and
        // is confirmed in the cache.
        HandlingTimer t(assigned_add);
        queue_->Delete(*n);
        if (auto s = cache_.AddPod(n); !s.ok()) VLOG(4, "cache add: {}", s.message());
        queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodAdd, {}, n);
        return;
      }
      auto start = SteadyClock::now();
      if (auto s = cache_.UpdatePod(o, n); !s.ok()) VLOG(4, "cache update: {}", s.message());
      auto updating = SteadyClock::now() - start;
      // One requeueing per change (AssignedPodUpdatePodLabel, ...), each observed on its own.
      for (const ClusterEvent& ev : framework::PodSchedulingPropertiesChange(*n, *o, false)) {
        auto moving = SteadyClock::now();
        queue_->MoveAllToActiveOrBackoffQueue(ev, o, n);
        Handling(ev.Label()).Observe(Seconds(updating + (SteadyClock::now() - moving)));
      }
    } else if (Responsible(*n)) {
      HandlingTimer t(unscheduled_update);
      // Upstream also observes each specific change under its own label.
      std::vector<std::unique_ptr<HandlingTimer>> specific;
      for (const ClusterEvent& ev : framework::PodSchedulingPropertiesChange(*n, *o, false)) {
        if (ev.action != framework::kUpdate) {
          specific.push_back(std::make_unique<HandlingTimer>(Handling(ev.Label())));
        }
      }
      if (cache_.IsAssumedPod(*n)) return;  // its binding is in flight
      queue_->Update(o, n);
    }
  };
  pods->del = [this](const api::PodPtr& p, bool) {
    HandlingTimer t(p->spec.node_name.empty() ? unscheduled_delete : assigned_delete);
    if (!p->spec.node_name.empty() || cache_.IsAssumedPod(*p)) {
      if (cache_.IsAssumedPod(*p) && p->spec.node_name.empty()) {
        (void)cache_.ForgetPod(*p);
      } else if (auto s = cache_.RemovePod(*p); !s.ok()) {
        VLOG(4, "cache remove: {}", s.message());
      }
      queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodDelete, p, {});
    }
    queue_->Delete(*p);
  };
  // Terminal pods hold no resources and are not the scheduler's business, as upstream.
  informers_
      .For<api::Pod>(informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed"})
      .AddEventHandler(pods);
}

std::vector<api::PodPtr> Scheduler::ListPods() const {
  return informers_
      .For<api::Pod>(informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed"})
      .store()
      .List();
}

void Scheduler::Run(std::stop_token stop) {
  queue_->Run();
  std::stop_callback close(stop, [this] { queue_->Close(); });
  while (!stop.stop_requested()) {
    WaitForBindingRoom(stop);
    if (stop.stop_requested()) break;
    ScheduleOne();
  }
  // Let in-flight bindings finish so assumed pods do not leak, within a bound so that an
  // unreachable API server cannot hold up shutdown (the pods stay unbound and are retried by
  // whichever scheduler runs next).
  std::unique_lock<std::mutex> l(bind_mu_);
  if (!bind_cv_.wait_for(l, options_.binding_drain_timeout,
                         [&] { return bind_tasks_.empty() && bind_running_ == 0; })) {
    LOG_WARN("{} binding(s) still in flight after {}s; stopping without them",
             bind_tasks_.size() + bind_running_,
             std::chrono::duration_cast<std::chrono::seconds>(options_.binding_drain_timeout).count());
  }
}

}  // namespace stowage::scheduler
