// Pods and nodes back to the API's JSON for extenders that want them whole. stowage keeps only
// the fields a scheduler reads (pkg/api/types.h), so this is the object as stowage holds it:
// metadata, the scheduling part of the spec and the status it reads, under the API's names.
#include "object_json.h"

namespace stowage::extender {
namespace {

using json = nlohmann::json;

void PutIfSet(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

json Map(const api::StringMap& m) {
  json j = json::object();
  for (const auto& [k, v] : m.entries()) j[k] = v;
  return j;
}

json Resources(const api::ResourceList& r) {
  json j = json::object();
  for (const auto& [name, q] : r.entries()) j[name] = q.String();
  return j;
}

json Meta(const api::ObjectMeta& m) {
  json j = json::object();
  PutIfSet(j, "name", m.name);
  PutIfSet(j, "namespace", m.namespace_);
  PutIfSet(j, "uid", m.uid);
  PutIfSet(j, "resourceVersion", m.resource_version);
  if (m.generation != 0) j["generation"] = m.generation;
  PutIfSet(j, "creationTimestamp", m.creation_timestamp);
  if (m.deletion_timestamp) j["deletionTimestamp"] = *m.deletion_timestamp;
  if (!m.labels.empty()) j["labels"] = Map(m.labels);
  if (!m.annotations.empty()) j["annotations"] = Map(m.annotations);
  for (const auto& o : m.owner_references) {
    j["ownerReferences"].push_back({{"apiVersion", o.api_version},
                                    {"kind", o.kind},
                                    {"name", o.name},
                                    {"uid", o.uid},
                                    {"controller", o.controller}});
  }
  return j;
}

json Requirements(const std::vector<api::NodeSelectorRequirement>& reqs) {
  json j = json::array();
  for (const auto& r : reqs)
    j.push_back({{"key", r.key}, {"operator", r.op}, {"values", r.values}});
  return j;
}

json Term(const api::NodeSelectorTerm& t) {
  json j = json::object();
  if (!t.match_expressions.empty()) j["matchExpressions"] = Requirements(t.match_expressions);
  if (!t.match_fields.empty()) j["matchFields"] = Requirements(t.match_fields);
  return j;
}

json Selector(const api::LabelSelector& s) {
  json j = json::object();
  if (!s.match_labels.empty()) j["matchLabels"] = Map(s.match_labels);
  for (const auto& r : s.match_expressions) {
    j["matchExpressions"].push_back({{"key", r.key}, {"operator", r.op}, {"values", r.values}});
  }
  return j;
}

json AffinityTerm(const api::PodAffinityTerm& t) {
  json j = {{"topologyKey", t.topology_key}};
  if (t.label_selector) j["labelSelector"] = Selector(*t.label_selector);
  if (t.namespace_selector) j["namespaceSelector"] = Selector(*t.namespace_selector);
  if (!t.namespaces.empty()) j["namespaces"] = t.namespaces;
  if (!t.match_label_keys.empty()) j["matchLabelKeys"] = t.match_label_keys;
  if (!t.mismatch_label_keys.empty()) j["mismatchLabelKeys"] = t.mismatch_label_keys;
  return j;
}

json PodAffinity(const api::PodAffinity& a) {
  json j = json::object();
  for (const auto& t : a.required) {
    j["requiredDuringSchedulingIgnoredDuringExecution"].push_back(AffinityTerm(t));
  }
  for (const auto& w : a.preferred) {
    j["preferredDuringSchedulingIgnoredDuringExecution"].push_back(
        {{"weight", w.weight}, {"podAffinityTerm", AffinityTerm(w.term)}});
  }
  return j;
}

json Affinity(const api::Affinity& a) {
  json j = json::object();
  if (a.node_affinity) {
    json& na = j["nodeAffinity"] = json::object();
    if (a.node_affinity->required) {
      json terms = json::array();
      for (const auto& t : a.node_affinity->required->terms) terms.push_back(Term(t));
      na["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
    }
    for (const auto& p : a.node_affinity->preferred) {
      na["preferredDuringSchedulingIgnoredDuringExecution"].push_back(
          {{"weight", p.weight}, {"preference", Term(p.preference)}});
    }
  }
  if (a.pod_affinity) j["podAffinity"] = PodAffinity(*a.pod_affinity);
  if (a.pod_anti_affinity) j["podAntiAffinity"] = PodAffinity(*a.pod_anti_affinity);
  return j;
}

json Containers(const std::vector<api::Container>& cs) {
  json out = json::array();
  for (const auto& c : cs) {
    json j = {{"name", c.name}};
    PutIfSet(j, "image", c.image);
    json res = json::object();
    if (!c.resources.requests.empty()) res["requests"] = Resources(c.resources.requests);
    if (!c.resources.limits.empty()) res["limits"] = Resources(c.resources.limits);
    j["resources"] = res;
    for (const auto& p : c.ports) {
      json pj = {{"containerPort", p.container_port}};
      if (p.host_port != 0) pj["hostPort"] = p.host_port;
      PutIfSet(pj, "protocol", p.protocol);
      PutIfSet(pj, "hostIP", p.host_ip);
      j["ports"].push_back(pj);
    }
    if (c.restart_policy) j["restartPolicy"] = *c.restart_policy;
    out.push_back(std::move(j));
  }
  return out;
}

template <typename C>
json Conditions(const std::vector<C>& cs) {
  json out = json::array();
  for (const auto& c : cs) {
    json j = {{"type", c.type}, {"status", c.status}};
    PutIfSet(j, "reason", c.reason);
    PutIfSet(j, "message", c.message);
    PutIfSet(j, "lastTransitionTime", c.last_transition_time);
    if constexpr (std::is_same_v<C, api::Condition>)
      PutIfSet(j, "lastProbeTime", c.last_probe_time);
    out.push_back(std::move(j));
  }
  return out;
}

json Spec(const api::PodSpec& s) {
  json j = {{"containers", Containers(s.containers)}};
  PutIfSet(j, "schedulerName", s.scheduler_name);
  PutIfSet(j, "nodeName", s.node_name);
  if (s.priority) j["priority"] = *s.priority;
  PutIfSet(j, "priorityClassName", s.priority_class_name);
  if (s.preemption_policy) j["preemptionPolicy"] = *s.preemption_policy;
  if (!s.init_containers.empty()) j["initContainers"] = Containers(s.init_containers);
  if (!s.overhead.empty()) j["overhead"] = Resources(s.overhead);
  if (s.resources) {
    j["resources"] = {{"requests", Resources(s.resources->requests)},
                      {"limits", Resources(s.resources->limits)}};
  }
  if (!s.node_selector.empty()) j["nodeSelector"] = Map(s.node_selector);
  if (s.affinity) j["affinity"] = Affinity(*s.affinity);
  for (const auto& t : s.tolerations) {
    json tj = json::object();
    PutIfSet(tj, "key", t.key);
    PutIfSet(tj, "operator", t.op);
    PutIfSet(tj, "value", t.value);
    PutIfSet(tj, "effect", t.effect);
    if (t.toleration_seconds) tj["tolerationSeconds"] = *t.toleration_seconds;
    j["tolerations"].push_back(std::move(tj));
  }
  for (const auto& c : s.topology_spread_constraints) {
    json cj = {{"maxSkew", c.max_skew},
               {"topologyKey", c.topology_key},
               {"whenUnsatisfiable", c.when_unsatisfiable}};
    if (c.label_selector) cj["labelSelector"] = Selector(*c.label_selector);
    if (c.min_domains) cj["minDomains"] = *c.min_domains;
    j["topologySpreadConstraints"].push_back(std::move(cj));
  }
  for (const auto& v : s.volumes) {
    json src = json::object();
    if (!v.claim_name.empty()) src["claimName"] = v.claim_name;
    j["volumes"].push_back({{"name", v.name}, {v.source.empty() ? "emptyDir" : v.source, src}});
  }
  for (const auto& g : s.scheduling_gates) j["schedulingGates"].push_back({{"name", g}});
  if (s.host_network) j["hostNetwork"] = true;
  PutIfSet(j, "restartPolicy", s.restart_policy);
  if (!s.os_name.empty()) j["os"] = {{"name", s.os_name}};
  return j;
}

}  // namespace

json PodToJson(const api::Pod& pod) {
  json status = json::object();
  PutIfSet(status, "phase", pod.status.phase);
  if (!pod.status.conditions.empty()) status["conditions"] = Conditions(pod.status.conditions);
  PutIfSet(status, "nominatedNodeName", pod.status.nominated_node_name);
  PutIfSet(status, "qosClass", pod.status.qos_class);
  PutIfSet(status, "startTime", pod.status.start_time);
  return {{"metadata", Meta(pod.metadata)}, {"spec", Spec(pod.spec)}, {"status", status}};
}

json NodeToJson(const api::Node& node) {
  json spec = json::object();
  if (node.spec.unschedulable) spec["unschedulable"] = true;
  PutIfSet(spec, "providerID", node.spec.provider_id);
  for (const auto& t : node.spec.taints) {
    json tj = {{"key", t.key}, {"effect", t.effect}};
    PutIfSet(tj, "value", t.value);
    spec["taints"].push_back(std::move(tj));
  }
  json status = {{"capacity", Resources(node.status.capacity)},
                 {"allocatable", Resources(node.status.allocatable)}};
  if (!node.status.conditions.empty()) status["conditions"] = Conditions(node.status.conditions);
  for (const auto& i : node.status.images) {
    status["images"].push_back({{"names", i.names}, {"sizeBytes", i.size_bytes}});
  }
  return {{"metadata", Meta(node.metadata)}, {"spec", spec}, {"status", status}};
}

}  // namespace stowage::extender
