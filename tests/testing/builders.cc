#include "tests/testing/builders.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace stowage::testing {
namespace {

api::StringMap With(const api::StringMap& m, std::string key, std::string value) {
  std::vector<api::StringMap::Entry> entries = m.entries();
  entries.emplace_back(std::move(key), std::move(value));
  return api::StringMap(std::move(entries));  // a later duplicate key wins
}

api::ResourceList Merge(const api::ResourceList& base, const ResourceMap& extra) {
  std::vector<api::ResourceList::Entry> entries = base.entries();
  for (const auto& [name, q] : extra) entries.emplace_back(name, MustParseQuantity(q));
  return api::ResourceList(std::move(entries));
}

api::NodeSelector OneRequirement(std::string key, std::string op, std::vector<std::string> values,
                                 NodeSelectorType type) {
  api::NodeSelectorTerm term;
  api::NodeSelectorRequirement req{std::move(key), std::move(op), std::move(values)};
  if (type == NodeSelectorType::kField) {
    term.match_fields.push_back(std::move(req));
  } else {
    term.match_expressions.push_back(std::move(req));
  }
  return api::NodeSelector{{std::move(term)}};
}

api::Affinity& AffinityOf(api::Pod& pod) {
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  return *pod.spec.affinity;
}

api::NodeAffinity& NodeAffinityOf(api::Pod& pod) {
  auto& a = AffinityOf(pod);
  if (!a.node_affinity) a.node_affinity.emplace();
  return *a.node_affinity;
}

}  // namespace

api::Quantity MustParseQuantity(std::string_view s) {
  auto q = api::Quantity::Parse(s);
  if (!q.ok()) {
    std::fprintf(stderr, "builders: bad quantity \"%.*s\": %s\n", static_cast<int>(s.size()),
                 s.data(), std::string(q.status().message()).c_str());
    std::abort();
  }
  return *q;
}

api::ResourceList MakeResourceList(const ResourceMap& resources) {
  return Merge(api::ResourceList(), resources);
}

api::StringMap MakeStringMap(const KeyValues& entries) {
  return api::StringMap(std::vector<api::StringMap::Entry>(entries.begin(), entries.end()));
}

// --- LabelSelectorWrapper -----------------------------------------------------------------

LabelSelectorWrapper& LabelSelectorWrapper::Label(std::string key, std::string value) {
  labels_.emplace_back(std::move(key), std::move(value));
  return *this;
}
LabelSelectorWrapper& LabelSelectorWrapper::In(std::string key, std::vector<std::string> values) {
  expressions_.push_back({std::move(key), "In", std::move(values)});
  return *this;
}
LabelSelectorWrapper& LabelSelectorWrapper::NotIn(std::string key,
                                                  std::vector<std::string> values) {
  expressions_.push_back({std::move(key), "NotIn", std::move(values)});
  return *this;
}
LabelSelectorWrapper& LabelSelectorWrapper::Exists(std::string key) {
  expressions_.push_back({std::move(key), "Exists", {}});
  return *this;
}
LabelSelectorWrapper& LabelSelectorWrapper::NotExist(std::string key) {
  expressions_.push_back({std::move(key), "DoesNotExist", {}});
  return *this;
}
api::LabelSelector LabelSelectorWrapper::Obj() const {
  return api::LabelSelector{MakeStringMap(labels_), expressions_};
}

// --- PodWrapper ---------------------------------------------------------------------------

PodWrapper::PodWrapper() = default;

PodWrapper& PodWrapper::Name(std::string name) {
  pod_.metadata.name = std::move(name);
  return *this;
}
PodWrapper& PodWrapper::Namespace(std::string ns) {
  pod_.metadata.namespace_ = std::move(ns);
  return *this;
}
PodWrapper& PodWrapper::UID(std::string uid) {
  pod_.metadata.uid = std::move(uid);
  return *this;
}
PodWrapper& PodWrapper::Label(std::string key, std::string value) {
  pod_.metadata.labels = With(pod_.metadata.labels, std::move(key), std::move(value));
  return *this;
}
PodWrapper& PodWrapper::Labels(const KeyValues& labels) {
  for (const auto& [k, v] : labels) Label(k, v);
  return *this;
}
PodWrapper& PodWrapper::Annotation(std::string key, std::string value) {
  pod_.metadata.annotations = With(pod_.metadata.annotations, std::move(key), std::move(value));
  return *this;
}
PodWrapper& PodWrapper::CreationTimestamp(std::string rfc3339) {
  pod_.metadata.creation_timestamp = std::move(rfc3339);
  return *this;
}
PodWrapper& PodWrapper::Terminating() {
  pod_.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  return *this;
}
PodWrapper& PodWrapper::OwnerReference(std::string name, std::string kind,
                                       std::string api_version) {
  pod_.metadata.owner_references = {
      api::OwnerReference{std::move(api_version), std::move(kind), std::move(name), "", true}};
  return *this;
}
PodWrapper& PodWrapper::ResourceVersion(std::string rv) {
  pod_.metadata.resource_version = std::move(rv);
  return *this;
}

PodWrapper& PodWrapper::SchedulerName(std::string name) {
  pod_.spec.scheduler_name = std::move(name);
  return *this;
}
PodWrapper& PodWrapper::Node(std::string node_name) {
  pod_.spec.node_name = std::move(node_name);
  return *this;
}
PodWrapper& PodWrapper::Priority(int32_t priority) {
  pod_.spec.priority = priority;
  return *this;
}
PodWrapper& PodWrapper::PriorityClassName(std::string name) {
  pod_.spec.priority_class_name = std::move(name);
  return *this;
}
PodWrapper& PodWrapper::PreemptionPolicy(std::string policy) {
  pod_.spec.preemption_policy = std::move(policy);
  return *this;
}
PodWrapper& PodWrapper::SchedulingGates(std::vector<std::string> gates) {
  pod_.spec.scheduling_gates = std::move(gates);
  return *this;
}
PodWrapper& PodWrapper::NodeSelector(const KeyValues& selector) {
  pod_.spec.node_selector = MakeStringMap(selector);
  return *this;
}
PodWrapper& PodWrapper::NodeAffinityIn(std::string key, std::vector<std::string> values,
                                       NodeSelectorType type) {
  NodeAffinityOf(pod_).required = OneRequirement(std::move(key), "In", std::move(values), type);
  return *this;
}
PodWrapper& PodWrapper::NodeAffinityNotIn(std::string key, std::vector<std::string> values) {
  NodeAffinityOf(pod_).required =
      OneRequirement(std::move(key), "NotIn", std::move(values), NodeSelectorType::kLabel);
  return *this;
}
PodWrapper& PodWrapper::NodeAffinity(api::NodeAffinity affinity) {
  AffinityOf(pod_).node_affinity = std::move(affinity);
  return *this;
}
PodWrapper& PodWrapper::Toleration(std::string key) {
  pod_.spec.tolerations.push_back({std::move(key), "Exists", "", "", std::nullopt});
  return *this;
}
PodWrapper& PodWrapper::Toleration(std::string key, std::string op, std::string value,
                                   std::string effect) {
  pod_.spec.tolerations.push_back(
      {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt});
  return *this;
}
PodWrapper& PodWrapper::Tolerations(std::vector<api::Toleration> tolerations) {
  pod_.spec.tolerations = std::move(tolerations);
  return *this;
}

api::PodAffinity& PodWrapper::AffinityTerms(bool anti) {
  auto& a = AffinityOf(pod_);
  auto& terms = anti ? a.pod_anti_affinity : a.pod_affinity;
  if (!terms) terms.emplace();
  return *terms;
}

PodWrapper& PodWrapper::AddAffinity(bool anti, std::string topology_key,
                                    std::optional<api::LabelSelector> selector,
                                    PodAffinityKind kind) {
  if (kind == PodAffinityKind::kNone) return *this;
  api::PodAffinityTerm term;
  term.label_selector = std::move(selector);
  term.topology_key = std::move(topology_key);
  auto& terms = AffinityTerms(anti);
  if (kind == PodAffinityKind::kRequired || kind == PodAffinityKind::kRequiredAndPreferred) {
    terms.required.push_back(term);
  }
  if (kind == PodAffinityKind::kPreferred || kind == PodAffinityKind::kRequiredAndPreferred) {
    terms.preferred.push_back({1, term});
  }
  return *this;
}

PodWrapper& PodWrapper::PodAffinity(std::string topology_key,
                                    std::optional<api::LabelSelector> selector,
                                    PodAffinityKind kind) {
  return AddAffinity(false, std::move(topology_key), std::move(selector), kind);
}
PodWrapper& PodWrapper::PodAntiAffinity(std::string topology_key,
                                        std::optional<api::LabelSelector> selector,
                                        PodAffinityKind kind) {
  return AddAffinity(true, std::move(topology_key), std::move(selector), kind);
}
PodWrapper& PodWrapper::PodAffinityExists(std::string label_key, std::string topology_key,
                                          PodAffinityKind kind) {
  return PodAffinity(std::move(topology_key),
                     BuildLabelSelector().Exists(std::move(label_key)).Obj(), kind);
}
PodWrapper& PodWrapper::PodAntiAffinityExists(std::string label_key, std::string topology_key,
                                              PodAffinityKind kind) {
  return PodAntiAffinity(std::move(topology_key),
                         BuildLabelSelector().Exists(std::move(label_key)).Obj(), kind);
}
PodWrapper& PodWrapper::PodAffinityIn(std::string label_key, std::string topology_key,
                                      std::vector<std::string> values, PodAffinityKind kind) {
  return PodAffinity(std::move(topology_key),
                     BuildLabelSelector().In(std::move(label_key), std::move(values)).Obj(), kind);
}
PodWrapper& PodWrapper::PodAntiAffinityIn(std::string label_key, std::string topology_key,
                                          std::vector<std::string> values, PodAffinityKind kind) {
  return PodAntiAffinity(std::move(topology_key),
                         BuildLabelSelector().In(std::move(label_key), std::move(values)).Obj(),
                         kind);
}

PodWrapper& PodWrapper::SpreadConstraint(int32_t max_skew, std::string topology_key,
                                         std::string when_unsatisfiable,
                                         std::optional<api::LabelSelector> selector,
                                         std::optional<int32_t> min_domains,
                                         std::optional<std::string> node_affinity_policy,
                                         std::optional<std::string> node_taints_policy,
                                         std::vector<std::string> match_label_keys) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(topology_key);
  c.when_unsatisfiable = std::move(when_unsatisfiable);
  c.label_selector = std::move(selector);
  c.min_domains = min_domains;
  c.node_affinity_policy = std::move(node_affinity_policy);
  c.node_taints_policy = std::move(node_taints_policy);
  c.match_label_keys = std::move(match_label_keys);
  pod_.spec.topology_spread_constraints.push_back(std::move(c));
  return *this;
}

api::Container& PodWrapper::AddContainer(bool init, std::string_view prefix) {
  auto& list = init ? pod_.spec.init_containers : pod_.spec.containers;
  api::Container& c = list.emplace_back();
  c.name = std::string(prefix) + std::to_string(list.size() - 1);
  c.image = "pause";
  return c;
}

PodWrapper& PodWrapper::Container(std::string image) {
  AddContainer(false, "con").image = std::move(image);
  return *this;
}
PodWrapper& PodWrapper::InitContainer(std::string image) {
  AddContainer(true, "init-con").image = std::move(image);
  return *this;
}
PodWrapper& PodWrapper::Containers(std::vector<api::Container> containers) {
  pod_.spec.containers = std::move(containers);
  return *this;
}
PodWrapper& PodWrapper::Req(const ResourceMap& requests) {
  if (!requests.empty()) AddContainer(false, "con").resources.requests = MakeResourceList(requests);
  return *this;
}
PodWrapper& PodWrapper::Lim(const ResourceMap& limits) {
  if (!limits.empty()) AddContainer(false, "con").resources.limits = MakeResourceList(limits);
  return *this;
}
PodWrapper& PodWrapper::Res(const ResourceMap& resources) {
  if (resources.empty()) return *this;
  auto& c = AddContainer(false, "con");
  c.resources.requests = c.resources.limits = MakeResourceList(resources);
  return *this;
}
PodWrapper& PodWrapper::InitReq(const ResourceMap& resources) {
  if (resources.empty()) return *this;
  auto& c = AddContainer(true, "init-con");
  c.resources.requests = c.resources.limits = MakeResourceList(resources);
  return *this;
}
PodWrapper& PodWrapper::SidecarReq(const ResourceMap& resources) {
  if (resources.empty()) return *this;
  auto& c = AddContainer(true, "sidecar-con");
  c.restart_policy = "Always";
  c.resources.requests = c.resources.limits = MakeResourceList(resources);
  return *this;
}
PodWrapper& PodWrapper::PodLevelResourceRequests(const ResourceMap& requests) {
  if (!requests.empty()) {
    pod_.spec.resources = api::ResourceRequirements{MakeResourceList(requests), {}};
  }
  return *this;
}
PodWrapper& PodWrapper::Overhead(const ResourceMap& overhead) {
  pod_.spec.overhead = MakeResourceList(overhead);
  return *this;
}
PodWrapper& PodWrapper::HostPort(int32_t port, std::string protocol, std::string host_ip) {
  auto& c = AddContainer(false, "con");
  c.ports.push_back({0, port, std::move(protocol), std::move(host_ip)});
  return *this;
}
PodWrapper& PodWrapper::ContainerPort(std::vector<api::ContainerPort> ports) {
  AddContainer(false, "con").ports = std::move(ports);
  return *this;
}
PodWrapper& PodWrapper::InitContainerPort(bool sidecar, std::vector<api::ContainerPort> ports) {
  auto& c = AddContainer(true, "init-con");
  if (sidecar) c.restart_policy = "Always";
  c.ports = std::move(ports);
  return *this;
}
PodWrapper& PodWrapper::ContainerRestartRule(std::string action) {
  auto& c = AddContainer(false, "con");
  c.restart_policy = "Never";
  c.restart_policy_rules.push_back({std::move(action)});
  return *this;
}

PodWrapper& PodWrapper::PVC(std::string claim_name) {
  api::Volume v;
  v.name = claim_name;
  v.source = "persistentVolumeClaim";
  v.claim_name = std::move(claim_name);
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}
PodWrapper& PodWrapper::ImageVolume(std::string name, std::string reference) {
  api::Volume v;
  v.name = std::move(name);
  v.source = "image";
  v.image_reference = std::move(reference);
  pod_.spec.volumes.push_back(std::move(v));
  return *this;
}
PodWrapper& PodWrapper::Volume(api::Volume volume) {
  pod_.spec.volumes.push_back(std::move(volume));
  return *this;
}
PodWrapper& PodWrapper::ResourceClaims(std::vector<api::PodResourceClaim> claims) {
  pod_.spec.resource_claims = std::move(claims);
  return *this;
}
PodWrapper& PodWrapper::HostNetwork(bool host_network) {
  pod_.spec.host_network = host_network;
  return *this;
}
PodWrapper& PodWrapper::HostUsers(bool host_users) {
  pod_.spec.host_users = host_users;
  return *this;
}

PodWrapper& PodWrapper::NominatedNodeName(std::string node_name) {
  pod_.status.nominated_node_name = std::move(node_name);
  return *this;
}
PodWrapper& PodWrapper::Phase(std::string phase) {
  pod_.status.phase = std::move(phase);
  return *this;
}
PodWrapper& PodWrapper::Condition(std::string type, std::string status, std::string reason) {
  pod_.status.conditions.push_back({std::move(type), std::move(status), std::move(reason), "", ""});
  return *this;
}
PodWrapper& PodWrapper::StartTime(std::string rfc3339) {
  pod_.status.start_time = std::move(rfc3339);
  return *this;
}

api::PodPtr PodWrapper::Obj() const { return std::make_shared<const api::Pod>(pod_); }

// --- NodeWrapper --------------------------------------------------------------------------

NodeWrapper::NodeWrapper() { Capacity({}); }

NodeWrapper& NodeWrapper::Name(std::string name) {
  node_.metadata.name = std::move(name);
  return *this;
}
NodeWrapper& NodeWrapper::UID(std::string uid) {
  node_.metadata.uid = std::move(uid);
  return *this;
}
NodeWrapper& NodeWrapper::Label(std::string key, std::string value) {
  node_.metadata.labels = With(node_.metadata.labels, std::move(key), std::move(value));
  return *this;
}
NodeWrapper& NodeWrapper::Annotation(std::string key, std::string value) {
  node_.metadata.annotations = With(node_.metadata.annotations, std::move(key), std::move(value));
  return *this;
}
NodeWrapper& NodeWrapper::Capacity(const ResourceMap& resources) {
  api::ResourceList res = Merge(MakeResourceList({{"pods", "32"}}), resources);
  capacity_ = res;
  node_.status.allocatable = std::move(res);
  return *this;
}
NodeWrapper& NodeWrapper::Capacity(std::string resource, std::string quantity) {
  ResourceMap one = {{std::move(resource), std::move(quantity)}};
  capacity_ = Merge(capacity_, one);
  node_.status.allocatable = Merge(node_.status.allocatable, one);
  return *this;
}
NodeWrapper& NodeWrapper::Allocatable(const ResourceMap& resources) {
  node_.status.allocatable = MakeResourceList(resources);
  return *this;
}
NodeWrapper& NodeWrapper::Images(const std::vector<std::pair<std::string, int64_t>>& images) {
  node_.status.images.clear();
  for (const auto& [name, size] : images) node_.status.images.push_back({{name}, size});
  return *this;
}
NodeWrapper& NodeWrapper::Image(std::vector<std::string> names, int64_t size_bytes) {
  node_.status.images.push_back({std::move(names), size_bytes});
  return *this;
}
NodeWrapper& NodeWrapper::Taint(std::string key, std::string value, std::string effect) {
  node_.spec.taints.push_back({std::move(key), std::move(value), std::move(effect)});
  return *this;
}
NodeWrapper& NodeWrapper::Taints(std::vector<api::Taint> taints) {
  node_.spec.taints = std::move(taints);
  return *this;
}
NodeWrapper& NodeWrapper::Unschedulable(bool unschedulable) {
  node_.spec.unschedulable = unschedulable;
  return *this;
}
NodeWrapper& NodeWrapper::DeclaredFeatures(std::vector<std::string> features) {
  node_.status.declared_features = std::move(features);
  return *this;
}
NodeWrapper& NodeWrapper::Condition(std::string type, std::string status, std::string message,
                                    std::string reason) {
  node_.status.conditions = {{std::move(type), std::move(status)}};
  condition_reason_ = std::move(reason);
  condition_message_ = std::move(message);
  return *this;
}

api::NodePtr NodeWrapper::Obj() const { return std::make_shared<const api::Node>(node_); }

}  // namespace stowage::testing
