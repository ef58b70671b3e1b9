// UnschedulablePods: pods rejected by plugins, waiting for a cluster event that one of those
// plugins' queueing hints says may help, and pods a PreEnqueue plugin holds back ("gated"),
// keyed by Key() (upstream's unschedulablePods, in 1.37 unschedulable_entities.go). It also
// remembers which pods the 5-minute leftover flush moved out, until they fail again or go.
//
// So that an event about one object need not ask every held pod, it indexes the pods by the
// keys of the objects they wait for (QueueingHints' narrowing), and keeps apart the pods no
// plugin rejected, whom any event may help.
//
// Metrics: queue_incoming_pods_total{queue="unschedulable"} counts each pod Put that was not
// there; the gated count feeds pending_pods{queue="gated"}.
//
// Thread-safety: none of its own. SchedulingQueue holds it GUARDED_BY its one mutex and calls it
// only with that mutex held; it takes no lock and calls out to nothing, so it adds no lock
// order. Invariant: gated() is the number of pods held whose gating_plugin is set, which is
// therefore not changed while a pod is held.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pkg/queue/queued_pod.h"

namespace stowage::queue {

class UnschedulablePods {
 public:
  using Map = std::unordered_map<std::string, QueuedPodInfoPtr>;

  // Holds p under key, replacing the pod held there if any; a new arrival is counted with event.
  void Put(const std::string& key, QueuedPodInfoPtr p, std::string_view event);
  // The pod held under key, or nullptr.
  QueuedPodInfoPtr Get(const std::string& key) const;
  bool Has(const std::string& key) const { return pods_.count(key) > 0; }
  // Lets the pod under key go and returns it; nullptr when none is held.
  QueuedPodInfoPtr Delete(const std::string& key);
  size_t size() const { return pods_.size(); }
  size_t gated() const { return gated_; }

  // Walking the pods to move some out: Take lets the pod at it go into *out and returns the
  // next position. A pod Put while walking (one that went straight back) may or may not be
  // visited, so walkers must tolerate seeing it, as unordered_map's iteration rules say.
  Map::iterator begin() { return pods_.begin(); }
  Map::iterator end() { return pods_.end(); }
  Map::const_iterator begin() const { return pods_.begin(); }
  Map::const_iterator end() const { return pods_.end(); }
  Map::iterator Take(Map::iterator it, QueuedPodInfoPtr* out);

  // Narrowing: keys adds the keys a held pod is indexed under (QueueingHints::PodKeys); unset,
  // nothing is indexed. Set it before the first Put.
  using KeysFn = std::function<void(const api::Pod&, std::vector<std::string>&)>;
  void SetKeys(KeysFn keys) { keys_ = std::move(keys); }
  // The keys of the held pods an event with event_keys may concern, each once: those indexed
  // under one of event_keys and those no plugin rejected.
  std::vector<std::string> Candidates(const std::vector<std::string>& event_keys) const;
  // Indexes the pod held under key again, after its object was replaced in place.
  void Reindex(const std::string& key);

  // The leftover flush's record, by pod UID (pod_scheduled_after_flush_total).
  void MarkFlushed(const std::string& uid) { flushed_.insert(uid); }
  void ForgetFlushed(const std::string& uid) { flushed_.erase(uid); }
  bool WasFlushed(const std::string& uid) const { return flushed_.count(uid) > 0; }
  size_t flushed() const { return flushed_.size(); }

 private:
  void Index(const std::string& key, const framework::QueuedPodInfo& p);
  void Unindex(const std::string& key);

  Map pods_;
  size_t gated_ = 0;
  KeysFn keys_;
  std::unordered_map<std::string, std::vector<std::string>> keys_of_;  // pod -> its index keys
  std::unordered_map<std::string, std::unordered_set<std::string>> pods_by_key_;
  std::unordered_set<std::string> unconditional_;  // held pods no plugin rejected
  std::unordered_set<std::string> flushed_;
};

}  // namespace stowage::queue
