// The Kubernetes objects stowage reads, as compact immutable structs.
//
// Each struct holds only the fields the scheduler and its default plugins read, decoded once
// from JSON (pkg/api/decode.h) and then shared read-only between threads through
// std::shared_ptr<const T>. Field names follow the API's JSON names in snake_case, so
// `spec.schedulerName` is `spec.scheduler_name`. Absent optional fields are std::nullopt or
// empty; maps are sorted flat vectors (StringMap) because they are small and read far more often
// than they are built. Quantities are parsed at decode time. operator== compares every field, so
// the JSON and protobuf decoders can be held to giving equal objects.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/api/quantity.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::api {

namespace map_internal {
// Sorts by key keeping the last of equal keys, as a JSON object decoder would.
template <typename Entry>
std::vector<Entry> SortUnique(std::vector<Entry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.first < b.first; });
  std::vector<Entry> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    if (!out.empty() && out.back().first == e.first) {
      out.back() = std::move(e);
    } else {
      out.push_back(std::move(e));
    }
  }
  return out;
}

// Up to this many entries Find scans instead of bisecting: past it, the scan reads more entries
// than the bisection's few probes. A node's labels (often 10-15) stay under it.
inline constexpr size_t kMaxScanned = 16;

template <typename Entry>
const typename Entry::second_type* Find(const std::vector<Entry>& entries, std::string_view key) {
  // Keys often share long prefixes (topology.kubernetes.io/...), which every comparison of a
  // bisection reads; a scan rejects a key of another length without reading its bytes.
  if (entries.size() <= kMaxScanned) {
    for (const Entry& e : entries) {
      if (e.first == key) return &e.second;  // lengths first, then bytes
    }
    return nullptr;
  }
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const Entry& e, std::string_view k) { return e.first < k; });
  return (it != entries.end() && it->first == key) ? &it->second : nullptr;
}
}  // namespace map_internal

// A small string-to-string map (labels, annotations, nodeSelector), sorted by key.
class StringMap {
 public:
  using Entry = std::pair<std::string, std::string>;
  StringMap() = default;
  // Takes entries in any order; later duplicates of a key win, as in a JSON object.
  explicit StringMap(std::vector<Entry> entries);

  // The value of key, or nullptr.
  const std::string* Get(std::string_view key) const;
  bool Has(std::string_view key) const { return Get(key) != nullptr; }
  // Removes key, if present.
  void Erase(std::string_view key);
  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  friend bool operator==(const StringMap&, const StringMap&) = default;

 private:
  std::vector<Entry> entries_;
};

// A resource name to quantity map (requests, limits, capacity, allocatable), sorted by name.
class ResourceList {
 public:
  using Entry = std::pair<std::string, Quantity>;
  ResourceList() = default;
  explicit ResourceList(std::vector<Entry> entries);

  const Quantity* Get(std::string_view name) const;
  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  friend bool operator==(const ResourceList&, const ResourceList&) = default;

 private:
  std::vector<Entry> entries_;
};

// A small map from names to values of V (device attributes and capacities, the times of a PDB's
// disrupted pods), sorted by name: the general form of StringMap and ResourceList, for the maps
// the schema declares with values of their own.
template <typename V>
class Map {
 public:
  using Entry = std::pair<std::string, V>;
  using mapped_type = V;
  Map() = default;
  // Takes entries in any order; later duplicates of a key win, as in a JSON object.
  explicit Map(std::vector<Entry> entries)
      : entries_(map_internal::SortUnique(std::move(entries))) {}

  // The value of key, or nullptr.
  const V* Get(std::string_view key) const { return map_internal::Find(entries_, key); }
  bool Has(std::string_view key) const { return Get(key) != nullptr; }
  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  friend bool operator==(const Map&, const Map&) = default;

 private:
  std::vector<Entry> entries_;
};

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ObjectMeta {
  std::string name;
  // Asks the apiserver to make a unique name from this prefix (objects the scheduler creates).
  std::string generate_name;
  std::string namespace_;  // "namespace" is a C++ keyword
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::string creation_timestamp;                 // RFC 3339, as sent
  std::optional<std::string> deletion_timestamp;  // set once deletion has started
  StringMap labels;
  // All annotations except kubectl's last-applied-configuration, which can be large and
  // which nothing in a scheduler reads.
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  // Read so that a ResourceClaim's finalizer is added only when it is missing, as upstream.
  std::vector<std::string> finalizers;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

// --- label and node selectors -----------------------------------------------------------

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only metadata.name is supported
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;  // ORed
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&, const PreferredSchedulingTerm&) = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;
  friend bool operator==(const NodeAffinity&, const NodeAffinity&) = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
  friend bool operator==(const PodAffinityTerm&, const PodAffinityTerm&) = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
  friend bool operator==(const WeightedPodAffinityTerm&, const WeightedPodAffinityTerm&) = default;
};

struct PodAffinity {  // also used for pod anti-affinity, which has the same shape
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
  friend bool operator==(const PodAffinity&, const PodAffinity&) = default;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
  friend bool operator==(const Affinity&, const Affinity&) = default;
};

// --- taints and tolerations ---------------------------------------------------------------

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct Toleration {
  std::string key;
  std::string op;  // Equal (default when empty), Exists; 1.35+ also Gt, Lt
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule, ScheduleAnyway
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;  // Honor, Ignore
  std::optional<std::string> node_taints_policy;    // Honor, Ignore
  std::vector<std::string> match_label_keys;
  friend bool operator==(const TopologySpreadConstraint&,
                         const TopologySpreadConstraint&) = default;
};

// --- pods ---------------------------------------------------------------------------------

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
  friend bool operator==(const ResourceRequirements&, const ResourceRequirements&) = default;
};

struct ContainerPort {
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0: not exposed on the host
  std::string protocol;   // TCP (default), UDP, SCTP
  std::string host_ip;
  friend bool operator==(const ContainerPort&, const ContainerPort&) = default;
};

// One of a container's restartPolicyRules; only the action is kept (NodeDeclaredFeatures infers
// RestartAllContainersOnContainerExits from it).
struct ContainerRestartRule {
  std::string action;  // Restart, RestartAllContainers, ...
  friend bool operator==(const ContainerRestartRule&, const ContainerRestartRule&) = default;
};

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  // "Always" on an init container makes it a sidecar (restartable init container).
  std::optional<std::string> restart_policy;
  std::vector<ContainerRestartRule> restart_policy_rules;
  friend bool operator==(const Container&, const Container&) = default;
};

// The volume sources the default plugins distinguish; others keep only their kind.
struct Volume {
  std::string name;
  std::string source;      // the JSON key of the source: persistentVolumeClaim, ephemeral, csi, ...
  std::string claim_name;  // persistentVolumeClaim.claimName
  bool claim_read_only = false;
  std::string csi_driver;   // csi.driver
  std::string gce_pd_name;  // gcePersistentDisk.pdName
  bool gce_read_only = false;
  std::string aws_volume_id;  // awsElasticBlockStore.volumeID
  // The in-tree sources NodeVolumeLimits counts through their CSI migration.
  std::string cinder_volume_id;                // cinder.volumeID
  std::string azure_disk_uri;                  // azureDisk.diskURI
  std::optional<std::string> azure_disk_kind;  // azureDisk.kind (Shared, Dedicated, Managed)
  std::string portworx_volume_id;              // portworxVolume.volumeID
  std::string image_reference;  // image.reference (ImageVolume), counted by ImageLocality
  std::string iscsi_iqn;        // iscsi.iqn
  std::string iscsi_target_portal;
  int32_t iscsi_lun = 0;
  bool iscsi_read_only = false;
  std::string rbd_pool;
  std::string rbd_image;
  std::vector<std::string> rbd_monitors;
  bool rbd_read_only = false;
  friend bool operator==(const Volume&, const Volume&) = default;
};

struct PodResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
  friend bool operator==(const PodResourceClaim&, const PodResourceClaim&) = default;
};

// Which ResourceClaim the resourceclaim controller created for a pod's claim from a template.
struct PodResourceClaimStatus {
  std::string name;                                // the pod's spec.resourceClaims[].name
  std::optional<std::string> resource_claim_name;  // unset: no claim is needed
  friend bool operator==(const PodResourceClaimStatus&, const PodResourceClaimStatus&) = default;
};

// Which request of the scheduler's claim for extended resources serves a container's resource.
struct ContainerExtendedResourceRequest {
  std::string container_name;
  std::string resource_name;
  std::string request_name;
  friend bool operator==(const ContainerExtendedResourceRequest&,
                         const ContainerExtendedResourceRequest&) = default;
};

// The claim DynamicResources created for a pod's extended resources that DeviceClasses provide.
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  std::string resource_claim_name;
  friend bool operator==(const PodExtendedResourceClaimStatus&,
                         const PodExtendedResourceClaimStatus&) = default;
};

struct PodSpec {
  std::string scheduler_name;  // defaulted to "default-scheduler" by the API server
  std::string node_name;
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority, Never
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  ResourceList overhead;
  std::optional<ResourceRequirements> resources;  // pod-level resources
  StringMap node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<Volume> volumes;
  std::vector<std::string> scheduling_gates;
  std::vector<PodResourceClaim> resource_claims;
  bool host_network = false;
  std::optional<bool> host_users;  // false: user namespaces (NodeDeclaredFeatures)
  std::string restart_policy;
  std::string os_name;  // spec.os.name
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

struct Condition {  // a pod's condition
  std::string type;
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
  std::string last_transition_time;
  std::string last_probe_time;
  int64_t observed_generation = 0;  // the metadata.generation it reflects
  friend bool operator==(const Condition&, const Condition&) = default;
};

// status.resources of a pod or a container: what the runtime actually applied. A list the kubelet
// did not report stays nullopt (nil upstream), which the resize accounting tells from empty.
struct AppliedResources {
  std::optional<ResourceList> requests;
  std::optional<ResourceList> limits;
  friend bool operator==(const AppliedResources&, const AppliedResources&) = default;
};

// The part of a container's status the scheduler reads: the resources of an in-place resize.
struct ContainerStatus {
  std::string name;
  std::optional<ResourceList> allocated_resources;  // what the kubelet admitted
  std::optional<AppliedResources> resources;
  friend bool operator==(const ContainerStatus&, const ContainerStatus&) = default;
};

// The whole object as the API served it, as JSON without kind, apiVersion and managedFields,
// for the extenders that are sent whole objects, as upstream sends them (pkg/extender). Kept only
// while an extender is configured (informer::Filter::whole_objects), so clusters without one pay
// a null pointer per object; shared, so copies of the compact object do not copy it.
struct WholeJson {
  std::shared_ptr<const std::string> json;
  explicit operator bool() const { return json != nullptr; }
  friend bool operator==(const WholeJson& a, const WholeJson& b) {
    return a.json == b.json || (a.json != nullptr && b.json != nullptr && *a.json == *b.json);
  }
};

struct PodStatus {
  std::string phase;
  std::vector<Condition> conditions;
  std::string nominated_node_name;
  std::string qos_class;
  std::string start_time;  // RFC 3339; preemption prefers victims that started later
  std::vector<ContainerStatus> container_statuses;
  std::vector<ContainerStatus> init_container_statuses;
  // Pod-level aggregates of the above (InPlacePodLevelResourcesVerticalScaling).
  std::optional<ResourceList> allocated_resources;
  std::optional<AppliedResources> resources;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  std::optional<PodExtendedResourceClaimStatus> extended_resource_claim_status;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  WholeJson whole;
  friend bool operator==(const Pod&, const Pod&) = default;
};

// --- nodes --------------------------------------------------------------------------------

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
  friend bool operator==(const ContainerImage&, const ContainerImage&) = default;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

// A node's condition: its type and status, all a scheduler reads of it (a change of either is
// the UpdateNodeCondition event, as upstream compares them); the times, reason and message,
// which change with node status updates and cost every node five strings, are not kept.
struct NodeCondition {
  std::string type;
  std::string status;  // True, False, Unknown
  friend bool operator==(const NodeCondition&, const NodeCondition&) = default;
};

// capacity is not decoded: the scheduler reads allocatable.
struct NodeStatus {
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<ContainerImage> images;
  std::vector<std::string> declared_features;  // status.declaredFeatures (NodeDeclaredFeatures)
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  WholeJson whole;
  friend bool operator==(const Node&, const Node&) = default;
};

// --- storage ------------------------------------------------------------------------------

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  friend bool operator==(const ObjectReference&, const ObjectReference&) = default;
};

struct PersistentVolume {
  ObjectMeta metadata;
  ResourceList capacity;
  std::vector<std::string> access_modes;
  std::string storage_class_name;
  std::optional<ObjectReference> claim_ref;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  std::string volume_mode;
  std::string volume_attributes_class_name;
  std::string csi_driver;
  std::string csi_volume_handle;
  std::string phase;
  // The JSON key of the volume's source (csi, gcePersistentDisk, hostPath, ...), and the fields
  // of the in-tree sources NodeVolumeLimits counts through their CSI migration.
  std::string source;
  std::string gce_pd_name;                     // gcePersistentDisk.pdName
  std::string aws_volume_id;                   // awsElasticBlockStore.volumeID
  std::string cinder_volume_id;                // cinder.volumeID
  std::string azure_disk_uri;                  // azureDisk.diskURI
  std::optional<std::string> azure_disk_kind;  // azureDisk.kind
  std::string portworx_volume_id;              // portworxVolume.volumeID
  friend bool operator==(const PersistentVolume&, const PersistentVolume&) = default;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  std::vector<std::string> access_modes;
  std::optional<std::string> storage_class_name;
  std::string volume_name;
  ResourceList requests;
  std::string volume_mode;
  std::string volume_attributes_class_name;
  std::optional<LabelSelector> selector;
  std::string phase;
  friend bool operator==(const PersistentVolumeClaim&, const PersistentVolumeClaim&) = default;
};

struct TopologySelectorRequirement {
  std::string key;
  std::vector<std::string> values;
  friend bool operator==(const TopologySelectorRequirement&,
                         const TopologySelectorRequirement&) = default;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::string volume_binding_mode;  // Immediate, WaitForFirstConsumer
  std::string reclaim_policy;
  // allowedTopologies: ORed terms of ANDed requirements.
  std::vector<std::vector<TopologySelectorRequirement>> allowed_topologies;
  friend bool operator==(const StorageClass&, const StorageClass&) = default;
};

struct CSINodeDriver {
  std::string name;
  std::string node_id;
  std::vector<std::string> topology_keys;
  std::optional<int32_t> allocatable_count;
  friend bool operator==(const CSINodeDriver&, const CSINodeDriver&) = default;
};

struct CSINode {
  ObjectMeta metadata;
  std::vector<CSINodeDriver> drivers;
  friend bool operator==(const CSINode&, const CSINode&) = default;
};

struct CSIDriver {
  ObjectMeta metadata;
  std::optional<bool> attach_required;
  std::optional<bool> storage_capacity;
  std::optional<bool> requires_republish;
  // True: a node whose CSINode does not list the driver cannot run its pods (VolumeLimitScaling).
  std::optional<bool> prevent_pod_scheduling_if_missing;
  friend bool operator==(const CSIDriver&, const CSIDriver&) = default;
};

// storage.k8s.io/v1 VolumeAttachment: a CSI driver's attachment of a volume to a node, which
// NodeVolumeLimits counts against the node's limit for the driver.
struct VolumeAttachment {
  ObjectMeta metadata;
  std::string attacher;                               // the CSI driver's name
  std::optional<std::string> persistent_volume_name;  // spec.source.persistentVolumeName
  std::string node_name;
  friend bool operator==(const VolumeAttachment&, const VolumeAttachment&) = default;
};

// storage.k8s.io/v1 CSIStorageCapacity: the space a CSI driver has for a class in one topology
// segment, which VolumeBinding checks before it provisions a volume there.
struct CSIStorageCapacity {
  ObjectMeta metadata;
  std::optional<LabelSelector> node_topology;  // unset: no node has access
  std::string storage_class_name;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximum_volume_size;  // the largest volume, when below capacity
  friend bool operator==(const CSIStorageCapacity&, const CSIStorageCapacity&) = default;
};

// --- policy, core and apps kinds ----------------------------------------------------------

// An intstr.IntOrString ("50%" or 3).
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string str_value;
  friend bool operator==(const IntOrString&, const IntOrString&) = default;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  int32_t disruptions_allowed = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
  int32_t expected_pods = 0;
  Map<std::string> disrupted_pods;  // status.disruptedPods: pod name -> RFC 3339 time
  friend bool operator==(const PodDisruptionBudget&, const PodDisruptionBudget&) = default;
};

struct Namespace {
  ObjectMeta metadata;
  std::string phase;
  friend bool operator==(const Namespace&, const Namespace&) = default;
};

struct Service {
  ObjectMeta metadata;
  StringMap selector;
  std::string type;
  friend bool operator==(const Service&, const Service&) = default;
};

struct ReplicaSet {  // also ReplicationController (whose selector is a plain map)
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  std::optional<int32_t> replicas;
  friend bool operator==(const ReplicaSet&, const ReplicaSet&) = default;
};

struct StatefulSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  std::optional<int32_t> replicas;
  friend bool operator==(const StatefulSet&, const StatefulSet&) = default;
};

struct ReplicationController {
  ObjectMeta metadata;
  StringMap selector;
  std::optional<int32_t> replicas;
  friend bool operator==(const ReplicationController&, const ReplicationController&) = default;
};

// coordination.k8s.io/v1 Lease, for leader election.
struct Lease {
  ObjectMeta metadata;
  // Pointers upstream, which leader election always sets: "" and 0 are written, not left out.
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::string acquire_time;  // RFC 3339 with microseconds, as the API writes MicroTime
  std::string renew_time;
  std::optional<int32_t> lease_transitions;
  std::string strategy;  // coordinated leader election only
  std::string preferred_holder;
  friend bool operator==(const Lease&, const Lease&) = default;
};

// --- dynamic resource allocation (resource.k8s.io/v1) ----------------------------------------

// A device attribute: exactly one of the values is set.
struct DeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;  // a semantic version
  friend bool operator==(const DeviceAttribute&, const DeviceAttribute&) = default;
};

// requestPolicy.validRange of a consumable capacity.
struct CapacityRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  friend bool operator==(const CapacityRange&, const CapacityRange&) = default;
};

// A device's capacity and, when it is consumable, what one allocation may take of it.
struct DeviceCapacity {
  Quantity value;
  std::optional<Quantity> request_default;           // requestPolicy.default
  std::vector<Quantity> request_valid_values;        // requestPolicy.validValues
  std::optional<CapacityRange> request_valid_range;  // requestPolicy.validRange
  friend bool operator==(const DeviceCapacity&, const DeviceCapacity&) = default;
};

struct Counter {
  Quantity value;
  friend bool operator==(const Counter&, const Counter&) = default;
};

// Counters that partitionable devices of a slice draw from.
struct CounterSet {
  std::string name;
  Map<Counter> counters;
  friend bool operator==(const CounterSet&, const CounterSet&) = default;
};

struct DeviceCounterConsumption {
  std::string counter_set;
  Map<Counter> counters;
  friend bool operator==(const DeviceCounterConsumption&,
                         const DeviceCounterConsumption&) = default;
};

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, NoExecute, None
  friend bool operator==(const DeviceTaint&, const DeviceTaint&) = default;
};

struct Device {
  std::string name;
  Map<DeviceAttribute> attributes;  // by qualified name: "model" or "gpu.example.com/model"
  Map<DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;  // partitionable devices
  // Where the device is available, when its slice sets per_device_node_selection: one of these.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;  // PreBind waits for these device conditions
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> allow_multiple_allocations;  // consumable capacity: shared by claims
  friend bool operator==(const Device&, const Device&) = default;
};

// ResourceSlice: devices of one pool of a DRA driver, on one node, a node selection or all nodes.
struct ResourceSlice {
  ObjectMeta metadata;
  std::string driver;
  std::string pool_name;
  int64_t pool_generation = 0;  // slices of an older generation are ignored
  int64_t pool_resource_slice_count = 0;
  // Where the devices are available: exactly one of these is set.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::optional<bool> per_device_node_selection;
  std::vector<Device> devices;
  std::vector<CounterSet> shared_counters;
  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};

struct DeviceToleration {
  std::string key;
  std::string op;  // Equal (default when empty), Exists
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const DeviceToleration&, const DeviceToleration&) = default;
};

// A request for devices of one class; DeviceSubRequest is one alternative of a firstAvailable list.
struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<std::string> selectors;  // CEL expressions (selectors[].cel.expression), ANDed
  std::string allocation_mode;         // ExactCount (default) or All
  int64_t count = 0;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  ResourceList capacity_requests;  // capacity.requests, of consumable capacity
  friend bool operator==(const ExactDeviceRequest&, const ExactDeviceRequest&) = default;
};

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<std::string> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  ResourceList capacity_requests;
  friend bool operator==(const DeviceSubRequest&, const DeviceSubRequest&) = default;
};

struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;      // set unless first_available is
  std::vector<DeviceSubRequest> first_available;  // the first that can be satisfied is used
  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};

struct DeviceConstraint {
  std::vector<std::string> requests;  // empty: all of the claim's requests
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;
  friend bool operator==(const DeviceConstraint&, const DeviceConstraint&) = default;
};

// The spec.devices of a claim and of a claim template.
struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  friend bool operator==(const DeviceClaim&, const DeviceClaim&) = default;
};

struct DeviceRequestAllocationResult {
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<std::string> share_id;
  ResourceList consumed_capacity;
  friend bool operator==(const DeviceRequestAllocationResult&,
                         const DeviceRequestAllocationResult&) = default;
};

struct AllocationResult {
  std::vector<DeviceRequestAllocationResult> results;  // devices.results
  std::optional<NodeSelector> node_selector;           // the nodes the devices are usable on
  std::optional<std::string> allocation_timestamp;     // RFC 3339
  friend bool operator==(const AllocationResult&, const AllocationResult&) = default;
};

// Who a claim is reserved for: a pod (resource "pods") or its pod group.
struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;
  std::string name;
  std::string uid;
  friend bool operator==(const ResourceClaimConsumerReference&,
                         const ResourceClaimConsumerReference&) = default;
};

// A metav1.Condition, as drivers report them on allocated devices.
struct StatusCondition {
  std::string type;
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
  friend bool operator==(const StatusCondition&, const StatusCondition&) = default;
};

struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<StatusCondition> conditions;  // binding conditions PreBind waits for
  friend bool operator==(const AllocatedDeviceStatus&, const AllocatedDeviceStatus&) = default;
};

// ResourceClaim: a request for devices, and the allocation and reservations in its status.
struct ResourceClaim {
  ObjectMeta metadata;
  DeviceClaim devices;  // spec.devices
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> device_status;  // status.devices
  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};

// ResourceClaimTemplate: what the resourceclaim controller creates a pod's claim from.
struct ResourceClaimTemplate {
  ObjectMeta metadata;
  ObjectMeta claim_metadata;  // spec.metadata: labels and annotations for the claim
  DeviceClaim devices;        // spec.spec.devices
  friend bool operator==(const ResourceClaimTemplate&, const ResourceClaimTemplate&) = default;
};

// DeviceClass: selectors and an extended resource name shared by every request of the class.
// The prefix of the extended resource name every DeviceClass provides implicitly
// (deviceclass.resource.kubernetes.io/<class name>).
inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

struct DeviceClass {
  ObjectMeta metadata;
  std::vector<std::string> selectors;  // CEL expressions (spec.selectors[].cel.expression)
  std::optional<std::string> extended_resource_name;
  friend bool operator==(const DeviceClass&, const DeviceClass&) = default;
};

// DeviceTaintRule: a taint on the devices its selector matches (unset parts match all).
struct DeviceTaintRule {
  ObjectMeta metadata;
  std::optional<std::string> driver;  // spec.deviceSelector.driver
  std::optional<std::string> pool;
  std::optional<std::string> device;
  DeviceTaint taint;
  friend bool operator==(const DeviceTaintRule&, const DeviceTaintRule&) = default;
};

using PodPtr = std::shared_ptr<const Pod>;
using NodePtr = std::shared_ptr<const Node>;

// "namespace/name", or "name" for cluster-scoped objects: the key informers store objects under.
std::string NamespacedName(const ObjectMeta& meta);

}  // namespace stowage::api

#pragma GCC visibility pop
