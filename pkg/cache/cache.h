// Cache: the scheduler's aggregate view of nodes and the pods on them, fed by the informers and
// by the scheduler's own decisions, and the source of each cycle's Snapshot.
//
// Assumed pods: once the scheduling cycle picks a node, the pod is *assumed* there, so the next
// cycle already counts its resources, while the binding happens asynchronously.
//
//        AssumePod            FinishBinding            informer Add (binding observed)
//   ───────────────► Assumed ───────────────► Bound* ─────────────────────────────────► Added
//                       │  ForgetPod (binding failed)     (*still assumed until observed)
//                       └──────────────────────────► removed
//
// An informer Add of an assumed pod confirms it (on the node the API reports); Update and Remove
// apply to added pods; a Remove of an assumed pod undoes the assumption. As upstream with its
// default TTL of zero, assumed pods do not expire. Pods may arrive before their node: they are
// kept on a node entry without a Node until the Node arrives; a node removed while it still has
// pods stays as such an entry until they are gone. Thread-safe.
//
// Metrics: cache_size{type="assumed_pods"|"pods"|"nodes"} follows every change (upstream
// refreshes it once a second); "pods" includes assumed pods and "nodes" node entries without a
// Node, as upstream counts them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "pkg/cache/node_tree.h"
#include "pkg/cache/snapshot.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/types.h"

namespace stowage::cache {

class Cache {
 public:
  // pod.spec.node_name must be set to the chosen node.
  Status AssumePod(framework::PodInfoPtr pod);
  Status FinishBinding(const api::Pod& pod);
  Status ForgetPod(const api::Pod& pod);
  bool IsAssumedPod(const api::Pod& pod) const;

  Status AddPod(api::PodPtr pod);
  Status UpdatePod(const api::PodPtr& old_pod, api::PodPtr new_pod);
  Status RemovePod(const api::Pod& pod);

  void AddNode(api::NodePtr node);
  void UpdateNode(const api::NodePtr& old_node, api::NodePtr new_node);
  void RemoveNode(const api::Node& node);

  // Brings snapshot up to date with the cache, copying only the nodes changed since its last
  // update; the node list is rebuilt only when nodes were added, removed or changed zone. An
  // inconsistency (which would be a bug) is repaired by a full rebuild and reported as an error,
  // and the cycle fails.
  Status UpdateSnapshot(Snapshot& snapshot);

  size_t NodeCount() const;
  size_t PodCount() const;

  // A copy of every node entry, by name, for the cache debugger (upstream's Cache.Dump); slow,
  // never on the scheduling path.
  struct Dump {
    std::map<std::string, framework::NodeInfo> nodes;
  };
  Dump DumpAll() const;

 private:
  struct PodState {
    framework::PodInfoPtr info;
    bool assumed = false;
    bool binding_finished = false;
  };
  // A node entry, linked into a list ordered by the generation of its last change (newest
  // first), so UpdateSnapshot visits only the nodes changed since the snapshot's generation.
  struct NodeItem {
    framework::NodeInfo info;
    NodeItem* prev = nullptr;
    NodeItem* next = nullptr;
  };
  static std::string PodKey(const api::Pod& pod);
  // The entry for name, created if absent, moved to the head because the caller will change it.
  framework::NodeInfo& TouchNode(const std::string& name) REQUIRES(mu_);
  void MoveToHead(NodeItem* item) REQUIRES(mu_);
  void Unlink(NodeItem* item) REQUIRES(mu_);
  void AddPodLocked(framework::PodInfoPtr info) REQUIRES(mu_);
  void RemovePodLocked(const api::Pod& pod, const std::string& node) REQUIRES(mu_);
  void UpdateImageStates(const api::Node* old_node, const api::Node* new_node) REQUIRES(mu_);
  // True if the node's image summaries changed (and with them its generation).
  bool RefreshImageSummaries(framework::NodeInfo& info) REQUIRES(mu_);
  void RemoveDeletedNodesFromSnapshot(Snapshot& snapshot) REQUIRES(mu_);
  // The node list in node-tree order, and the affinity lists from it.
  void RebuildLists(Snapshot& snapshot) REQUIRES(mu_);
  void TrimChangeLog(Snapshot& snapshot, bool list_rebuilt) REQUIRES(mu_);
  void UpdateMetrics() REQUIRES(mu_);

  mutable Mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<NodeItem>> nodes_ GUARDED_BY(mu_);
  NodeItem* head_ GUARDED_BY(mu_) = nullptr;  // most recently changed node entry
  std::unordered_map<std::string, PodState> pods_ GUARDED_BY(mu_);  // by UID (or ns/name)
  NodeTree tree_ GUARDED_BY(mu_);
  // image name -> (size, names of nodes that have it)
  struct ImageState {
    int64_t size = 0;
    std::unordered_set<std::string> nodes;
  };
  std::unordered_map<std::string, ImageState> images_ GUARDED_BY(mu_);
  bool images_changed_ GUARDED_BY(mu_) = false;
  // Counts changes of the node order; a snapshot that saw an older count rebuilds its list.
  int64_t tree_version_ GUARDED_BY(mu_) = 1;
  size_t assumed_ GUARDED_BY(mu_) = 0;  // entries of pods_ with assumed set
};

}  // namespace stowage::cache
