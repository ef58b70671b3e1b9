// Fluent builders of api structs for unit tests, in the style of upstream's
// pkg/scheduler/testing/wrappers.go:
//
//   api::PodPtr pod = BuildPod().Name("p").Namespace("ns").UID("u").Priority(5)
//                         .Req({{"cpu", "500m"}, {"memory", "1Gi"}}).HostPort(80).Obj();
//   api::NodePtr node = BuildNode().Name("n1").Label("zone", "a").Capacity({{"cpu", "4"}})
//                           .Taint("k", "v", "NoSchedule").Obj();
//
// They build the structs directly; Json() writes the API object for tests against the real test
// cluster (tests/testing/objects.h creates them there). Quantities are parsed with
// api::Quantity::Parse, and a malformed one aborts the test binary with a message: builder
// input is test code, never user input. Each call returns the wrapper, so chains may be kept in
// a variable and extended; Obj() returns an immutable copy each time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stowage/api/quantity.h"
#include "stowage/api/types.h"

namespace stowage::testing {

// Resource name to quantity string, e.g. {{"cpu", "500m"}, {"memory", "1Gi"}}.
using ResourceMap = std::vector<std::pair<std::string, std::string>>;
// Label-style key/value pairs, in any order.
using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Parses s or aborts naming it.
api::Quantity MustParseQuantity(std::string_view s);
api::ResourceList MakeResourceList(const ResourceMap& resources);
api::StringMap MakeStringMap(const KeyValues& entries);

// Builds a LabelSelector: BuildLabelSelector().Label("app", "web").Exists("tier").Obj().
class LabelSelectorWrapper {
 public:
  LabelSelectorWrapper& Label(std::string key, std::string value);
  LabelSelectorWrapper& In(std::string key, std::vector<std::string> values);
  LabelSelectorWrapper& NotIn(std::string key, std::vector<std::string> values);
  LabelSelectorWrapper& Exists(std::string key);
  LabelSelectorWrapper& NotExist(std::string key);
  api::LabelSelector Obj() const;

 private:
  KeyValues labels_;
  std::vector<api::LabelSelectorRequirement> expressions_;
};
inline LabelSelectorWrapper BuildLabelSelector() { return {}; }

// Whether a node selector requirement reads labels (matchExpressions) or fields (matchFields).
enum class NodeSelectorType : uint8_t { kLabel, kField };

// How PodAffinity/PodAntiAffinity add a term (upstream PodAffinityKind).
enum class PodAffinityKind : uint8_t { kNone, kRequired, kPreferred, kRequiredAndPreferred };

class PodWrapper {
 public:
  PodWrapper();

  // --- metadata
  PodWrapper& Name(std::string name);
  PodWrapper& Namespace(std::string ns);
  PodWrapper& UID(std::string uid);
  PodWrapper& Label(std::string key, std::string value);
  PodWrapper& Labels(const KeyValues& labels);
  PodWrapper& Annotation(std::string key, std::string value);
  PodWrapper& CreationTimestamp(std::string rfc3339);
  PodWrapper& Terminating();  // sets a deletionTimestamp
  // A controller owner reference.
  PodWrapper& OwnerReference(std::string name, std::string kind, std::string api_version = "v1");
  PodWrapper& ResourceVersion(std::string rv);

  // --- spec: scheduling
  PodWrapper& SchedulerName(std::string name);
  PodWrapper& Node(std::string node_name);  // spec.nodeName
  PodWrapper& Priority(int32_t priority);
  PodWrapper& PriorityClassName(std::string name);
  PodWrapper& PreemptionPolicy(std::string policy);
  PodWrapper& SchedulingGates(std::vector<std::string> gates);
  PodWrapper& NodeSelector(const KeyValues& selector);
  // Replaces the required node affinity with one term holding one In (or NotIn) requirement.
  PodWrapper& NodeAffinityIn(std::string key, std::vector<std::string> values,
                             NodeSelectorType type = NodeSelectorType::kLabel);
  PodWrapper& NodeAffinityNotIn(std::string key, std::vector<std::string> values);
  PodWrapper& NodeAffinity(api::NodeAffinity affinity);
  // A toleration with operator Exists for key (any value, any effect), as upstream.
  PodWrapper& Toleration(std::string key);
  PodWrapper& Toleration(std::string key, std::string op, std::string value, std::string effect);
  PodWrapper& Tolerations(std::vector<api::Toleration> tolerations);
  PodWrapper& PodAffinity(std::string topology_key, std::optional<api::LabelSelector> selector,
                          PodAffinityKind kind);
  PodWrapper& PodAntiAffinity(std::string topology_key, std::optional<api::LabelSelector> selector,
                              PodAffinityKind kind);
  PodWrapper& PodAffinityExists(std::string label_key, std::string topology_key,
                                PodAffinityKind kind);
  PodWrapper& PodAntiAffinityExists(std::string label_key, std::string topology_key,
                                    PodAffinityKind kind);
  PodWrapper& PodAffinityIn(std::string label_key, std::string topology_key,
                            std::vector<std::string> values, PodAffinityKind kind);
  PodWrapper& PodAntiAffinityIn(std::string label_key, std::string topology_key,
                                std::vector<std::string> values, PodAffinityKind kind);
  PodWrapper& SpreadConstraint(int32_t max_skew, std::string topology_key,
                               std::string when_unsatisfiable,
                               std::optional<api::LabelSelector> selector,
                               std::optional<int32_t> min_domains = std::nullopt,
                               std::optional<std::string> node_affinity_policy = std::nullopt,
                               std::optional<std::string> node_taints_policy = std::nullopt,
                               std::vector<std::string> match_label_keys = {});

  // --- spec: containers (each call appends one container named con<i> / init-con<i>)
  PodWrapper& Container(std::string image);
  PodWrapper& InitContainer(std::string image);
  PodWrapper& Containers(std::vector<api::Container> containers);
  PodWrapper& Req(const ResourceMap& requests);          // requests only
  PodWrapper& Lim(const ResourceMap& limits);            // limits only
  PodWrapper& Res(const ResourceMap& resources);         // requests = limits
  PodWrapper& InitReq(const ResourceMap& resources);     // init container, requests = limits
  PodWrapper& SidecarReq(const ResourceMap& resources);  // restartPolicy Always init container
  PodWrapper& PodLevelResourceRequests(const ResourceMap& requests);
  PodWrapper& Overhead(const ResourceMap& overhead);
  // A container exposing one host port.
  PodWrapper& HostPort(int32_t port, std::string protocol = "TCP", std::string host_ip = "");
  PodWrapper& ContainerPort(std::vector<api::ContainerPort> ports);
  PodWrapper& InitContainerPort(bool sidecar, std::vector<api::ContainerPort> ports);
  // A container with one restartPolicyRules entry of the given action.
  PodWrapper& ContainerRestartRule(std::string action);

  // --- spec: volumes and misc
  PodWrapper& PVC(std::string claim_name);
  PodWrapper& ImageVolume(std::string name, std::string reference);
  PodWrapper& Volume(api::Volume volume);
  PodWrapper& ResourceClaims(std::vector<api::PodResourceClaim> claims);
  PodWrapper& HostNetwork(bool host_network = true);
  PodWrapper& HostUsers(bool host_users);

  // --- status
  PodWrapper& NominatedNodeName(std::string node_name);
  PodWrapper& Phase(std::string phase);
  PodWrapper& Condition(std::string type, std::string status, std::string reason = "");
  PodWrapper& StartTime(std::string rfc3339);

  api::Pod& pod() { return pod_; }
  api::PodPtr Obj() const;
  // The pod as API JSON (builders_json.cc); a pod without containers gets one pause container.
  std::string Json() const;

 private:
  api::Container& AddContainer(bool init, std::string_view prefix);
  api::PodAffinity& AffinityTerms(bool anti);
  PodWrapper& AddAffinity(bool anti, std::string topology_key,
                          std::optional<api::LabelSelector> selector, PodAffinityKind kind);

  api::Pod pod_;
};
inline PodWrapper BuildPod() { return PodWrapper(); }

class NodeWrapper {
 public:
  // Capacity starts as {pods: 32}, as upstream's MakeNode.
  NodeWrapper();

  NodeWrapper& Name(std::string name);
  NodeWrapper& UID(std::string uid);
  NodeWrapper& Label(std::string key, std::string value);
  NodeWrapper& Annotation(std::string key, std::string value);
  // Sets capacity and allocatable to {pods: 32} plus resources.
  NodeWrapper& Capacity(const ResourceMap& resources);
  // Sets one resource in capacity and allocatable, keeping the others.
  NodeWrapper& Capacity(std::string resource, std::string quantity);
  // Sets allocatable only (after Capacity, for nodes whose allocatable differs).
  NodeWrapper& Allocatable(const ResourceMap& resources);
  // One image per entry, each with a single name, as upstream's Images(map).
  NodeWrapper& Images(const std::vector<std::pair<std::string, int64_t>>& images);
  // One image with several names (tags, digests).
  NodeWrapper& Image(std::vector<std::string> names, int64_t size_bytes);
  NodeWrapper& Taint(std::string key, std::string value, std::string effect);
  NodeWrapper& Taints(std::vector<api::Taint> taints);
  NodeWrapper& Unschedulable(bool unschedulable = true);
  NodeWrapper& DeclaredFeatures(std::vector<std::string> features);
  NodeWrapper& Condition(std::string type, std::string status, std::string message = "",
                         std::string reason = "");

  api::Node& node() { return node_; }
  api::NodePtr Obj() const;
  // The node as API JSON (builders_json.cc).
  std::string Json() const;

 private:
  api::Node node_;
  // Written to the JSON only: stowage does not decode them.
  api::ResourceList capacity_;
  std::string condition_reason_;
  std::string condition_message_;
};
inline NodeWrapper BuildNode() { return NodeWrapper(); }

}  // namespace stowage::testing
