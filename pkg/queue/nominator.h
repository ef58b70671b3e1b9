// Nominator: the pods expected to land on a node they were nominated to (status
// .nominatedNodeName, or a nomination a scheduling attempt made before the patch carrying it is
// seen), so that lower- or equal-priority pods leave room for them (upstream's nominator).
// A bound pod is never nominated: the cache counts it on its node.
//
// Thread-safety: none of its own. Upstream's nominator has a lock of its own; here
// SchedulingQueue holds it GUARDED_BY its one mutex (every caller already holds that mutex), and
// it takes no lock and calls out to nothing, so it adds no lock order. Invariant: a pod UID is
// nominated to at most one node, and a node with no nominated pod has no entry.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stowage/framework/interface.h"
#include "stowage/framework/types.h"

namespace stowage::queue {

class Nominator {
 public:
  using NodePods = std::unordered_map<std::string, std::vector<framework::PodInfoPtr>>;

  // Records pod's nomination to node, or when node is empty to its status.nominatedNodeName,
  // replacing any earlier one; none for a bound pod or an empty name.
  void Add(const framework::PodInfoPtr& pod, const std::string& node = "");
  // A scheduling attempt's decision (upstream's AddNominatedPod): Override names the node (""
  // clears the nomination), Noop keeps the one the pod's status names.
  void AddNominatedPod(const framework::PodInfoPtr& pod,
                       const framework::NominatingInfo& nominating);
  // An informer update (upstream's UpdateNominatedPod): new_pod's status decides, except that an
  // update carrying no nomination, old or new, keeps one made in memory whose status patch the
  // informer has not seen yet.
  void Update(const api::Pod& old_pod, const framework::PodInfoPtr& new_pod);
  // Forgets the nomination of the pod with uid, if any.
  void Delete(const std::string& uid);

  // node -> the pods nominated to it.
  const NodePods& NominatedPods() const { return pods_; }
  // The pods nominated to node.
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view node) const;
  // The node the pod with uid is nominated to, or nullptr.
  const std::string* NominatedNodeOf(const std::string& uid) const;
  // How many pods are nominated.
  size_t size() const { return node_of_.size(); }

 private:
  NodePods pods_;
  std::unordered_map<std::string, std::string> node_of_;  // uid -> node
};

}  // namespace stowage::queue
