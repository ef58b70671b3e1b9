// The informer event handlers (upstream eventhandlers.go): node and pod changes reach the cache
// and the scheduling queue, in the order the informers deliver them, and each handler observes
// event_handling_duration_seconds under its event's label.
#include "pkg/common/logging.h"
#include "pkg/metrics/metrics.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::scheduler {

using framework::ClusterEvent;

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

// Upstream's getLEPriorityPreCheck: only the pods of priority at most that of pod, the ones that
// left room for it while it was nominated.
queue::SchedulingQueue::PreEnqueueCheck LowerOrEqualPriority(const api::Pod& pod) {
  const int32_t priority = pod.spec.priority.value_or(0);
  return [priority](const api::Pod& p) { return p.spec.priority.value_or(0) <= priority; };
}
}  // namespace

template <typename T>
void Scheduler::RequeueOnChangesOf(framework::EventResource resource) {
  const uint32_t registered = queue_->RegisteredActions(resource);
  if (registered == 0) return;  // no plugin cares: the kind is not even watched
  // Hints get the objects as upstream passes them: the new one of an Add, both of an Update,
  // the deleted one (as the old) of a Delete.
  using Ptr = std::shared_ptr<const T>;
  auto on = [this, registered, resource](uint32_t action, const Ptr& o, const Ptr& n) {
    if ((registered & action) == 0) return;
    const ClusterEvent ev{resource, action};
    HandlingTimer t(Handling(ev.Label()));
    framework::EventObject old_obj, new_obj;
    if (o) old_obj = o;
    if (n) new_obj = n;
    queue_->MoveAllToActiveOrBackoffQueue(ev, old_obj, new_obj);
  };
  auto h = std::make_shared<informer::FuncHandler<T>>();
  h->add = [on](const Ptr& n, bool) { on(framework::kAdd, nullptr, n); };
  h->update = [on](const Ptr& o, const Ptr& n) {
    if (o->metadata.resource_version != n->metadata.resource_version) on(framework::kUpdate, o, n);
  };
  h->del = [on](const Ptr& o, bool) { on(framework::kDelete, o, nullptr); };
  informers_.For<T>().AddEventHandler(h);
}

void Scheduler::RegisterHandlers() {
  using framework::kEventAssignedPodAdd;
  using framework::kEventAssignedPodDelete;
  // The histograms of fixed labels are looked up once.
  static prometheus::Histogram& node_add = Handling(framework::kEventNodeAdd.Label());
  static prometheus::Histogram& node_delete = Handling(framework::kEventNodeDelete.Label());
  static prometheus::Histogram& assigned_add = Handling(kEventAssignedPodAdd.Label());
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
  nodes_.AddEventHandler(nodes);

  auto pods = std::make_shared<informer::FuncHandler<api::Pod>>();
  pods->add = [this](const api::PodPtr& p, bool) {
    if (!p->spec.node_name.empty()) {
      HandlingTimer t(assigned_add);
      CacheError("AddPod", *p, cache_.AddPod(p));
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
        CacheError("AddPod", *n, cache_.AddPod(n));
        queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodAdd, {}, n);
        return;
      }
      auto start = SteadyClock::now();
      CacheError("UpdatePod", *n, cache_.UpdatePod(o, n));
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
      // A nomination that moved or was cleared (a higher-priority preemptor clearing it, say)
      // frees the room it held on its node for lower- or equal-priority pods, as if an assigned
      // pod had gone (upstream's hasNominatedNodeNameChanged in updatePodInSchedulingQueue).
      if (!o->status.nominated_node_name.empty() &&
          o->status.nominated_node_name != n->status.nominated_node_name) {
        queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodDelete, o, {},
                                              LowerOrEqualPriority(*o));
      }
    }
  };
  pods->del = [this](const api::PodPtr& p, bool) {
    HandlingTimer t(p->spec.node_name.empty() ? unscheduled_delete : assigned_delete);
    const bool assigned_or_assumed = !p->spec.node_name.empty() || cache_.IsAssumedPod(*p);
    if (assigned_or_assumed) {
      if (cache_.IsAssumedPod(*p) && p->spec.node_name.empty()) {
        CacheError("ForgetPod", *p, cache_.ForgetPod(*p));
      } else {
        CacheError("RemovePod", *p, cache_.RemovePod(*p));
      }
      queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodDelete, p, {});
    }
    queue_->Delete(*p);
    // So does the deletion of a pod that was nominated (upstream's deletePodFromSchedulingQueue).
    if (!assigned_or_assumed && Responsible(*p) && !p->status.nominated_node_name.empty()) {
      queue_->MoveAllToActiveOrBackoffQueue(kEventAssignedPodDelete, p, {},
                                            LowerOrEqualPriority(*p));
    }
    // No event will be about the pod again: its event series and spam bucket go with it.
    events_->ForgetObject(p->metadata.uid);
  };
  // Terminal pods hold no resources and are not the scheduler's business, as upstream.
  pods_.AddEventHandler(pods);

  // The storage kinds the volume plugins read.
  RequeueOnChangesOf<api::PersistentVolume>(framework::EventResource::kPersistentVolume);
  RequeueOnChangesOf<api::PersistentVolumeClaim>(framework::EventResource::kPersistentVolumeClaim);
  RequeueOnChangesOf<api::StorageClass>(framework::EventResource::kStorageClass);
  RequeueOnChangesOf<api::CSINode>(framework::EventResource::kCSINode);
  RequeueOnChangesOf<api::CSIDriver>(framework::EventResource::kCSIDriver);
  RequeueOnChangesOf<api::CSIStorageCapacity>(framework::EventResource::kCSIStorageCapacity);
  RequeueOnChangesOf<api::VolumeAttachment>(framework::EventResource::kVolumeAttachment);
  // The resource.k8s.io kinds DynamicResources reads.
  RequeueOnChangesOf<api::ResourceClaim>(framework::EventResource::kResourceClaim);
  RequeueOnChangesOf<api::ResourceSlice>(framework::EventResource::kResourceSlice);
  RequeueOnChangesOf<api::DeviceClass>(framework::EventResource::kDeviceClass);
}

}  // namespace stowage::scheduler
