#include "pkg/queue/queueing_hints.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "pkg/metrics/metrics.h"
#include "stowage/framework/extender.h"

namespace stowage::queue {

using framework::ClusterEvent;
using framework::EventObject;

QueueingHints::QueueingHints(const std::map<std::string, framework::Framework*>& profiles,
                             bool extenders) {
  for (const auto& [name, fw] : profiles) {
    for (auto& pe : fw->EventsToRegister()) events_.emplace(pe.plugin, std::move(pe.event));
  }
  if (extenders) {
    // Every kind with every action rather than the wildcard, as upstream unrolls it.
    using R = framework::EventResource;
    for (R r : {R::kPod, R::kNode, R::kPersistentVolume, R::kPersistentVolumeClaim,
                R::kStorageClass, R::kCSINode, R::kCSIDriver, R::kCSIStorageCapacity,
                R::kVolumeAttachment, R::kResourceClaim, R::kResourceSlice, R::kDeviceClass}) {
      events_.emplace(std::string(framework::kExtenderName),
                      framework::ClusterEventWithHint{{r, framework::kAll}, nullptr});
    }
  }
  for (const auto& [plugin, e] : events_) {
    if (e.narrowing.pod_keys && e.narrowing.event_keys) narrowing_.push_back(&e);
  }
}

namespace {
std::string Tagged(size_t registration, std::string_view key) {
  std::string out = std::to_string(registration);
  out += '|';
  out += key;
  return out;
}
}  // namespace

void QueueingHints::PodKeys(const api::Pod& pod, std::vector<std::string>& out) const {
  std::vector<std::string> keys;
  for (size_t i = 0; i < narrowing_.size(); ++i) {
    keys.clear();
    narrowing_[i]->narrowing.pod_keys(pod, keys);
    for (const std::string& k : keys) out.push_back(Tagged(i, k));
  }
}

bool QueueingHints::EventKeys(const ClusterEvent& event, const EventObject& old_obj,
                              const EventObject& new_obj, std::vector<std::string>& out) const {
  if (event.IsWildCard() || narrowing_.empty()) return false;
  std::vector<std::string> keys;
  for (const auto& [plugin, registered] : events_) {
    if (!registered.event.Matches(event)) continue;
    auto it = std::find(narrowing_.begin(), narrowing_.end(), &registered);
    if (it == narrowing_.end()) return false;
    keys.clear();
    if (!registered.narrowing.event_keys(old_obj, new_obj, keys)) return false;
    for (const std::string& k : keys) out.push_back(Tagged(it - narrowing_.begin(), k));
  }
  return true;
}

uint32_t QueueingHints::RegisteredActions(framework::EventResource resource) const {
  uint32_t actions = 0;
  for (const auto& [plugin, e] : events_) {
    if (e.event.resource == resource || e.event.resource == framework::EventResource::kWildCard) {
      actions |= e.event.action;
    }
  }
  return actions;
}

bool QueueingHints::IsEventOfInterest(const ClusterEvent& event) const {
  if (event.IsWildCard()) return true;
  for (const auto& [plugin, registered] : events_) {
    if (registered.event.Matches(event)) return true;
  }
  return false;
}

bool QueueingHints::WorthRequeuing(const framework::QueuedPodInfo& p, const ClusterEvent& event,
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

}  // namespace stowage::queue
