// The scheduler's view of pods and nodes: Resource (requests in comparable units), PodInfo (a pod
// with what plugins need precomputed once), NodeInfo (a node with the aggregates of the pods on
// it) and QueuedPodInfo (a pod waiting in the scheduling queue).
//
// PodInfo is immutable once built and shared between the queue, the cache and snapshots.
// NodeInfo is owned by the cache and copied into snapshots; a snapshot's NodeInfos are read-only
// during a scheduling cycle and may be read from many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/common/clock.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// Requests of a container without a CPU or memory request count as these when spreading load
// (upstream schedutil.DefaultMilliCPURequest / DefaultMemoryRequest).
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

// Resources in the units the scheduler compares: CPU in millicores, everything else in whole
// units (bytes for memory and storage). Scalar resources (extended resources, hugepages,
// attachable volumes) are kept sorted by name.
struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  std::vector<std::pair<std::string, int64_t>> scalar;

  // Builds from a ResourceList (cpu, memory, ephemeral-storage, pods, scalar resources).
  static Resource FromList(const api::ResourceList& list);

  int64_t Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t value);
  void Add(const Resource& other);
  void Sub(const Resource& other);
  // Each field becomes the larger of this and other's.
  void SetMax(const Resource& other);
  bool IsZero() const;
  friend bool operator==(const Resource&, const Resource&) = default;
};

// True for resources accounted as scalars: extended (domain-prefixed) resources, hugepages-*,
// attachable-volumes-*, and kubernetes.io/-prefixed native resources other than the core ones.
bool IsScalarResourceName(std::string_view name);
// v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io that is not a
// quota "requests." name (API validation guarantees the rest of the qualified-name shape).
bool IsExtendedResourceName(std::string_view name);
// An extended resource, or the name a DeviceClass provides implicitly
// (deviceclass.resource.kubernetes.io/<class>): what a DeviceClass may serve through DRA.
bool IsDRAExtendedResourceName(std::string_view name);

// The pod's effective request (resourcehelper.PodRequests): the sum of its containers plus
// sidecars, or the largest init-container phase if that is larger, plus overhead; pod-level
// resources replace the container sums for the resources they set. With non_zero, CPU and memory
// requests missing from a container count as the defaults above.
Resource ComputePodRequests(const api::Pod& pod, bool non_zero = false);

// True for the resources pod-level requests may set: cpu, memory and hugepages-*.
bool IsPodLevelResource(std::string_view name);

// The kubelet's verdict on a pending in-place resize, from the pod's PodResizePending condition
// (component-helpers resource.IsPodResizeDeferred / IsPodResizeInfeasible).
bool IsPodResizeDeferred(const api::Pod& pod);
bool IsPodResizeInfeasible(const api::Pod& pod);

// A host port a pod asks for: protocol, IP (0.0.0.0 for all) and port.
struct HostPort {
  std::string ip;
  std::string protocol;
  int32_t port = 0;
  friend bool operator==(const HostPort&, const HostPort&) = default;
};
// Host ports of the regular containers and sidecars (ordinary init containers have exited).
std::vector<HostPort> PodHostPorts(const api::Pod& pod);

// The host ports used on a node; 0.0.0.0 conflicts with every IP of the same protocol/port.
class HostPortInfo {
 public:
  void Add(const HostPort& p);
  void Remove(const HostPort& p);
  bool CheckConflict(const HostPort& p) const;
  size_t size() const { return ports_.size(); }

 private:
  std::vector<HostPort> ports_;  // few per node: a vector beats a map
};

// A pod (anti-)affinity term compiled once (upstream fwk.AffinityTerm). namespaces lists the
// namespaces the term names, or the pod's own when it names neither namespaces nor a
// namespaceSelector; namespace_selector is Nothing when absent and Everything when empty.
// matchLabelKeys/mismatchLabelKeys are not read: the 1.37 apiserver merges them into the label
// selector when the pod is created, and the 1.37 scheduler reads only the selector.
struct AffinityTerm {
  api::Selector selector = api::Selector::Nothing();
  std::vector<std::string> namespaces;  // sorted, unique
  api::Selector namespace_selector = api::Selector::Nothing();
  std::string topology_key;

  // Whether pod is in one of the namespaces, or its namespace (labelled ns_labels) matches the
  // namespace selector, and its labels match the selector.
  bool Matches(const api::Pod& pod, const api::StringMap& ns_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// A pod's pod-affinity and pod-anti-affinity terms, compiled. A kind with a selector that does
// not compile is left empty and parse_error says why, as upstream's NewPodInfo.
struct PodAffinityTerms {
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  std::vector<WeightedAffinityTerm> preferred_affinity;
  std::vector<WeightedAffinityTerm> preferred_anti_affinity;
  std::string parse_error;
};
PodAffinityTerms CompileAffinityTerms(const api::Pod& pod);

// A pod plus what the scheduler computes from it once.
struct PodInfo {
  api::PodPtr pod;
  Resource requests;     // ComputePodRequests(pod)
  int64_t non0_cpu = 0;  // ComputePodRequests(pod, true).milli_cpu
  int64_t non0_mem = 0;
  std::vector<HostPort> host_ports;
  bool has_affinity = false;  // pod affinity or anti-affinity terms
  bool has_required_anti_affinity = false;
  // Compiled once so no cycle parses the selectors of existing pods; null without has_affinity.
  std::shared_ptr<const PodAffinityTerms> affinity_terms;
  // "namespace/claim" of each persistentVolumeClaim volume (upstream's PodPVCKeys), which the
  // node counts for VolumeRestrictions.
  std::vector<std::string> pvc_keys;

  // The compiled terms; empty ones for a pod without pod (anti-)affinity.
  const PodAffinityTerms& affinity() const;
  const api::Pod& operator*() const { return *pod; }
  const api::Pod* operator->() const { return pod.get(); }
};
using PodInfoPtr = std::shared_ptr<const PodInfo>;
PodInfoPtr NewPodInfo(api::PodPtr pod);

struct ImageStateSummary {
  int64_t size = 0;
  int num_nodes = 0;
};

// Global counter of NodeInfo changes: a snapshot copies a node only if its generation is newer.
int64_t NextGeneration();

class NodeInfo {
 public:
  NodeInfo() = default;
  NodeInfo(const NodeInfo& other);
  NodeInfo& operator=(const NodeInfo& other);
  NodeInfo(NodeInfo&&) noexcept = default;
  NodeInfo& operator=(NodeInfo&&) noexcept = default;

  const api::Node* node() const { return node_.get(); }
  const api::NodePtr& node_ptr() const { return node_; }
  // Inline: Filter and Score ask for it once per node and plugin.
  const std::string& name() const { return node_ ? node_->metadata.name : EmptyName(); }
  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& pods_with_affinity() const { return rare().pods_with_affinity; }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return rare().pods_with_required_anti_affinity;
  }
  const HostPortInfo& used_ports() const { return rare().used_ports; }
  const Resource& requested() const { return requested_; }
  const Resource& non_zero_requested() const { return non_zero_requested_; }
  const Resource& allocatable() const { return allocatable_; }
  // Images on this node, with how many nodes of the cluster hold each (set by the cache).
  const std::unordered_map<std::string, ImageStateSummary>& image_states() const {
    return rare().image_states;
  }
  int64_t generation() const { return generation_; }
  // Where this object sits in the List() of the snapshot that owns it, or -1. A memo indexed by
  // list position reads it instead of hashing the address, and confirms it (list[p] == this):
  // a copy starts at -1 and an assignment keeps the target's, as the position belongs to the
  // object's place in a snapshot, not to the node, but a moved object carries it.
  int32_t list_position() const { return list_position_; }
  // Set by the snapshot as it builds its list.
  void set_list_position(int32_t position) { list_position_ = position; }
  // How many of its pods use each claim, by "namespace/claim" (upstream's PVCRefCounts).
  const std::unordered_map<std::string, int>& pvc_ref_counts() const {
    return rare().pvc_ref_counts;
  }

  void SetNode(api::NodePtr node);
  void RemoveNode();
  void AddPodInfo(PodInfoPtr pod);
  // Removes the pod with pod's UID (or namespace/name when no UID); false if absent.
  bool RemovePod(const api::Pod& pod);
  void SetImageStates(std::unordered_map<std::string, ImageStateSummary> states);

 private:
  // What most nodes have none of, held apart: the cache and every snapshot keep a NodeInfo per
  // node, and without these a node costs 176 bytes less in each.
  struct Rare {
    std::vector<PodInfoPtr> pods_with_affinity;
    std::vector<PodInfoPtr> pods_with_required_anti_affinity;
    HostPortInfo used_ports;
    std::unordered_map<std::string, ImageStateSummary> image_states;
    std::unordered_map<std::string, int> pvc_ref_counts;
    bool empty() const;
  };
  static const Rare& NoRare();
  static const std::string& EmptyName();  // the name of a NodeInfo without its Node
  const Rare& rare() const { return rare_ ? *rare_ : NoRare(); }
  Rare& mutable_rare();
  // Frees rare_ once nothing is left in it.
  void DropEmptyRare();
  void Account(const PodInfo& p, int sign);

  api::NodePtr node_;
  std::vector<PodInfoPtr> pods_;
  Resource requested_;
  Resource non_zero_requested_;
  Resource allocatable_;
  std::unique_ptr<Rare> rare_;
  int64_t generation_ = 0;
  int32_t list_position_ = -1;
};

// A pod in the scheduling queue, with its attempt history.
struct QueuedPodInfo {
  PodInfoPtr pod_info;
  MonoTime timestamp{};                  // when it was last added to the queue
  MonoTime initial_attempt_timestamp{};  // first time it was popped (for SLI metrics)
  // When the leftover flush last moved it out of unschedulable; its 5 minutes restart from here
  // (reset by the next failed attempt), so a pod that goes back there (gated) is not flushed
  // again on every pass.
  MonoTime flush_timestamp{};
  bool attempted = false;
  int attempts = 0;
  int unschedulable_count = 0;
  int consecutive_errors_count = 0;
  std::set<std::string> unschedulable_plugins;  // plugins that rejected it last time
  std::set<std::string> pending_plugins;
  std::string gating_plugin;  // the PreEnqueue plugin holding it back, if any

  const api::Pod& pod() const { return *pod_info->pod; }
};

}  // namespace stowage::framework

#pragma GCC visibility pop
