// Snapshot: the cluster a what-if run starts from, read from files of API objects (a `List` as
// `kubectl get -o yaml` or `stowage snapshot` writes it, multi-document YAML, or JSON), with the
// changes `stowage simulate` is asked for (--add, --remove, --cordon, --drain) applied. Objects
// of a kind the scheduler does not read are counted and left out. Pods given with --add (or in
// the snapshot without them) get what the API server's admission would give them: a namespace,
// a UID, a creation time, the default scheduler name, the priority of their PriorityClass, and
// requests taken from limits. Not thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::simulate {

// The largest file read (a 5000-node cluster with its pods is some 100 MB of YAML).
inline constexpr size_t kDefaultMaxSnapshotBytes = size_t{512} << 20;

class Snapshot {
 public:
  Snapshot();
  ~Snapshot();
  Snapshot(Snapshot&&) noexcept;
  Snapshot& operator=(Snapshot&&) noexcept;

  // Reads the objects of path. Errors name the file and the document or item at fault.
  Status Read(const std::string& path, size_t max_bytes = kDefaultMaxSnapshotBytes);
  // The same from text (path names it in errors).
  Status Parse(std::string_view text, const std::string& path);
  // --add: more objects; an object that is already there (kind, namespace, name) is an error.
  Status Add(const std::string& path, size_t max_bytes = kDefaultMaxSnapshotBytes);
  // --remove node/NAME: the node goes, and its pods as the node lifecycle controller and their
  // controllers would have it: a pod a controller owns (not a DaemonSet) comes back pending, any
  // other pod is gone. --remove pod/NAMESPACE/NAME: the pod goes.
  Status Remove(std::string_view ref);
  // --cordon NAME: spec.unschedulable and the node.kubernetes.io/unschedulable taint, as
  // `kubectl cordon` and the node controller leave a node.
  Status Cordon(std::string_view node);
  // --drain NAME: cordoned, and its pods evicted as `kubectl drain --ignore-daemonsets` would:
  // DaemonSet and mirror pods stay; a controller's pod comes back pending; any other pod is gone.
  Status Drain(std::string_view node);

  // The objects, as JSON texts with apiVersion and kind, in the order read.
  std::vector<std::string> Objects() const;
  // "namespace/name" of each pod without a node (the pending pods), in the order read.
  std::vector<std::string> PendingPods() const;
  // Pods that --remove or --drain took off a node: "namespace/name" and whether they came back
  // pending.
  struct Displaced {
    std::string pod;
    std::string node;
    bool recreated = false;
  };
  const std::vector<Displaced>& displaced() const;
  size_t nodes() const;
  // Objects of kinds the scheduler does not read (left out), by kind.
  const std::vector<std::pair<std::string, size_t>>& skipped() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stowage::simulate
