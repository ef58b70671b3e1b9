// The selector of the system default spreading constraints (upstream plugins/helper/spread.go
// DefaultSelector): the pods a pod is spread against are those matched by every Service
// selecting it and by the ReplicationController, ReplicaSet or StatefulSet that controls it.
// Reads the listers only; thread-safe as they are.
#pragma once

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/framework/handle.h"

namespace stowage::plugins::pod_topology_spread {

// The listers DefaultSelector reads, held by reference (they live as long as the handle).
struct WorkloadListers {
  const framework::Lister<api::Service>& services;
  const framework::Lister<api::ReplicationController>& replication_controllers;
  const framework::Lister<api::ReplicaSet>& replica_sets;
  const framework::Lister<api::StatefulSet>& stateful_sets;
};

// The union of the selectors of the Services in the pod's namespace whose (non-empty) selector
// matches the pod, ANDed with the selector of the pod's controller when it is a v1
// ReplicationController or an apps/v1 ReplicaSet or StatefulSet found in the listers. Empty
// (matching everything) when nothing selects or controls the pod.
api::Selector DefaultSelector(const api::Pod& pod, const WorkloadListers& listers);

}  // namespace stowage::plugins::pod_topology_spread
