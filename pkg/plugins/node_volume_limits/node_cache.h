// What NodeVolumeLimits' Filter reads of one node, computed once per NodeInfo generation and
// lister versions and kept across scheduling cycles, so that Filter counts without building a
// map per node: the node's CSINode and its limits, the volumes its pods use and the count per
// driver of those plus its VolumeAttachments.
//
// Thread-safe: Filter runs on the worker pool, one node per call; each node's entry has a mutex
// of its own, held while the entry is brought up to date and read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/mutex.h"

namespace stowage::plugins::node_volume_limits {

// The versions of the listers a node's entry is derived from besides the NodeInfo.
struct ListerVersions {
  uint64_t pvs = 0;
  uint64_t claims = 0;
  uint64_t classes = 0;
  uint64_t csi_nodes = 0;
  uint64_t attachments = 0;
  friend bool operator==(const ListerVersions&, const ListerVersions&) = default;
};

// One node's volume facts, as Filter counts them.
struct NodeVolumes {
  std::shared_ptr<const api::CSINode> csi_node;
  // allocatable.count by driver, sorted by driver; empty: the node has no limit.
  std::vector<std::pair<std::string, int64_t>> limits;
  // Computed only when limits is not empty:
  // The unique names ("<driver>/<handle>") of the volumes of the node's pods, sorted.
  std::vector<std::string> pod_volumes;
  // Per driver, sorted: pod_volumes plus the node's VolumeAttachments not among them.
  std::vector<std::pair<std::string, int64_t>> attached;
  // Why a pod's volumes could not be read (upstream then fails the node with an error).
  std::optional<std::string> error;

  // The node's limit for driver, or nullopt.
  std::optional<int64_t> Limit(std::string_view driver) const;
  int64_t Attached(std::string_view driver) const;
  bool UsedByPod(std::string_view unique_name) const;
  // Whether the node's CSINode lists driver.
  bool Lists(std::string_view driver) const;
  void Clear();
};

class NodeVolumesCache {
 public:
  struct Entry {
    Mutex mu;
    int64_t generation GUARDED_BY(mu) = -1;  // of the NodeInfo computed from; -1: never
    ListerVersions versions GUARDED_BY(mu);
    NodeVolumes volumes GUARDED_BY(mu);
  };
  // The entry of node_name, created empty on first use; shared, so Prune never pulls it from under
  // a Filter that holds it.
  std::shared_ptr<Entry> Get(const std::string& node_name);
  // Forgets every entry when there are many more than nodes (removed nodes' entries).
  void Prune(size_t nodes);
  size_t SizeForTest();

 private:
  SharedMutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_ GUARDED_BY(mu_);
};

}  // namespace stowage::plugins::node_volume_limits
