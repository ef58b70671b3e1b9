// What the scheduler serves on /metrics/resources (upstream pkg/scheduler/metrics/resources):
// kube_pod_resource_request and kube_pod_resource_limit, one series per pod and resource with
// the pod's effective requests and limits as the scheduler and kubelet see them
// (component-helpers' PodRequests/PodLimits: containers, sidecars, init phases, pod-level
// resources, overhead), labelled {namespace, pod, node, scheduler, priority, resource, unit}
// exactly as upstream: unit "cores" for cpu, "bytes" for memory, storage, ephemeral-storage and
// hugepages-*, "integer" for attachable-volumes-*, "" otherwise; priority the decimal
// spec.priority or "" when unset; node "" for pods not yet scheduled; zero values left out.
// Every non-terminal pod of the cluster is reported, whichever scheduler it names, as upstream
// reports every pod of its lister. Rendered at scrape time; upstream answers only on the leader
// (an empty 200 otherwise), which is the caller's business.
//
// Also the glue that feeds the API client's request observer into the rest_client_* metrics,
// which needs both pkg/client and pkg/metrics and so lives with the scheduler.
//
// Thread-safe (reads only).
#pragma once

#include <string>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::scheduler {

class Scheduler;

// The text exposition of kube_pod_resource_{request,limit} for pods (terminal ones skipped).
std::string RenderPodResourceMetrics(const std::vector<api::PodPtr>& pods);
// The same for the scheduler's view of the cluster's pods (its pod informer).
std::string RenderPodResourceMetrics(const Scheduler& scheduler);

// Points every RestClient's request observer at the rest_client_* metrics (client::
// SetRequestObserver). Call once at startup, before the clients are used.
void InstallApiClientMetrics();

}  // namespace stowage::scheduler
