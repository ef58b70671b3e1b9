// The API JSON of the builders' objects, for tests that create them in the real test cluster.
// Only the fields the builders set are written; the API server defaults the rest.
#include <nlohmann/json.hpp>

#include "tests/testing/builders.h"

namespace stowage::testing {

namespace {

using json = nlohmann::json;

json Map(const api::StringMap& m) {
  json out = json::object();
  for (const auto& [k, v] : m.entries()) out[k] = v;
  return out;
}

json Resources(const api::ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list.entries()) out[name] = q.String();
  return out;
}

json Requirements(const std::vector<api::NodeSelectorRequirement>& reqs) {
  json out = json::array();
  for (const auto& r : reqs) {
    json e = {{"key", r.key}, {"operator", r.op}};
    if (!r.values.empty()) e["values"] = r.values;
    out.push_back(e);
  }
  return out;
}

json ContainerJson(const api::Container& c) {
  json out = {{"name", c.name}, {"image", c.image}};
  json res = json::object();
  if (!c.resources.requests.empty()) res["requests"] = Resources(c.resources.requests);
  if (!c.resources.limits.empty()) res["limits"] = Resources(c.resources.limits);
  if (!res.empty()) out["resources"] = res;
  for (const auto& p : c.ports) {
    // The API requires a container port; a builder port exposed only on the host uses its
    // host port for both.
    json port = {{"containerPort", p.container_port ? p.container_port : p.host_port}};
    if (p.host_port) port["hostPort"] = p.host_port;
    if (!p.protocol.empty()) port["protocol"] = p.protocol;
    if (!p.host_ip.empty()) port["hostIP"] = p.host_ip;
    out["ports"].push_back(port);
  }
  if (c.restart_policy) out["restartPolicy"] = *c.restart_policy;
  return out;
}

json Meta(const api::ObjectMeta& m) {
  json out = {{"name", m.name}};
  if (!m.namespace_.empty()) out["namespace"] = m.namespace_;
  // Set only by tests that serve the object from a fake API server: the real one assigns them.
  if (!m.uid.empty()) out["uid"] = m.uid;
  if (!m.resource_version.empty()) out["resourceVersion"] = m.resource_version;
  if (m.generation) out["generation"] = m.generation;
  if (m.deletion_timestamp) out["deletionTimestamp"] = *m.deletion_timestamp;
  if (!m.labels.empty()) out["labels"] = Map(m.labels);
  if (!m.annotations.empty()) out["annotations"] = Map(m.annotations);
  for (const auto& r : m.owner_references) {
    out["ownerReferences"].push_back({{"apiVersion", r.api_version},
                                      {"kind", r.kind},
                                      {"name", r.name},
                                      {"uid", r.uid},
                                      {"controller", r.controller}});
  }
  return out;
}

json LabelSelectorJson(const api::LabelSelector& s) {
  json out = json::object();
  if (!s.match_labels.empty()) out["matchLabels"] = Map(s.match_labels);
  for (const auto& r : s.match_expressions) {
    json e = {{"key", r.key}, {"operator", r.op}};
    if (!r.values.empty()) e["values"] = r.values;
    out["matchExpressions"].push_back(e);
  }
  return out;
}

json PodAffinityTermJson(const api::PodAffinityTerm& t) {
  json out = {{"topologyKey", t.topology_key}};
  if (t.label_selector) out["labelSelector"] = LabelSelectorJson(*t.label_selector);
  if (!t.namespaces.empty()) out["namespaces"] = t.namespaces;
  if (t.namespace_selector) out["namespaceSelector"] = LabelSelectorJson(*t.namespace_selector);
  if (!t.match_label_keys.empty()) out["matchLabelKeys"] = t.match_label_keys;
  if (!t.mismatch_label_keys.empty()) out["mismatchLabelKeys"] = t.mismatch_label_keys;
  return out;
}

// podAffinity / podAntiAffinity: required and preferred terms.
json PodAffinityJson(const api::PodAffinity& a) {
  json out = json::object();
  for (const auto& t : a.required) {
    out["requiredDuringSchedulingIgnoredDuringExecution"].push_back(PodAffinityTermJson(t));
  }
  for (const auto& w : a.preferred) {
    out["preferredDuringSchedulingIgnoredDuringExecution"].push_back(
        {{"weight", w.weight}, {"podAffinityTerm", PodAffinityTermJson(w.term)}});
  }
  return out;
}

json SpreadConstraintJson(const api::TopologySpreadConstraint& c) {
  json out = {{"maxSkew", c.max_skew},
              {"topologyKey", c.topology_key},
              {"whenUnsatisfiable", c.when_unsatisfiable}};
  if (c.label_selector) out["labelSelector"] = LabelSelectorJson(*c.label_selector);
  if (c.min_domains) out["minDomains"] = *c.min_domains;
  if (c.node_affinity_policy) out["nodeAffinityPolicy"] = *c.node_affinity_policy;
  if (c.node_taints_policy) out["nodeTaintsPolicy"] = *c.node_taints_policy;
  if (!c.match_label_keys.empty()) out["matchLabelKeys"] = c.match_label_keys;
  return out;
}

}  // namespace

std::string PodWrapper::Json() const {
  const api::PodSpec& s = pod_.spec;
  json spec = json::object();
  for (const auto& c : s.containers) spec["containers"].push_back(ContainerJson(c));
  for (const auto& c : s.init_containers) spec["initContainers"].push_back(ContainerJson(c));
  if (s.containers.empty()) {
    spec["containers"] = json::array({{{"name", "con0"}, {"image", "registry.k8s.io/pause:3.10"}}});
  }
  if (!s.scheduler_name.empty()) spec["schedulerName"] = s.scheduler_name;
  if (!s.node_name.empty()) spec["nodeName"] = s.node_name;
  if (s.priority) spec["priority"] = *s.priority;
  if (!s.priority_class_name.empty()) spec["priorityClassName"] = s.priority_class_name;
  if (!s.node_selector.empty()) spec["nodeSelector"] = Map(s.node_selector);
  if (s.affinity && s.affinity->node_affinity && s.affinity->node_affinity->required) {
    json terms = json::array();
    for (const auto& t : s.affinity->node_affinity->required->terms) {
      json term = json::object();
      if (!t.match_expressions.empty())
        term["matchExpressions"] = Requirements(t.match_expressions);
      if (!t.match_fields.empty()) term["matchFields"] = Requirements(t.match_fields);
      terms.push_back(term);
    }
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {"nodeSelectorTerms", terms}};
  }
  if (s.affinity && s.affinity->pod_affinity) {
    spec["affinity"]["podAffinity"] = PodAffinityJson(*s.affinity->pod_affinity);
  }
  if (s.affinity && s.affinity->pod_anti_affinity) {
    spec["affinity"]["podAntiAffinity"] = PodAffinityJson(*s.affinity->pod_anti_affinity);
  }
  for (const auto& t : s.tolerations) {
    json tol = json::object();
    if (!t.key.empty()) tol["key"] = t.key;
    if (!t.op.empty()) tol["operator"] = t.op;
    if (!t.value.empty()) tol["value"] = t.value;
    if (!t.effect.empty()) tol["effect"] = t.effect;
    if (t.toleration_seconds) tol["tolerationSeconds"] = *t.toleration_seconds;
    spec["tolerations"].push_back(tol);
  }
  for (const auto& c : s.topology_spread_constraints) {
    spec["topologySpreadConstraints"].push_back(SpreadConstraintJson(c));
  }
  for (const auto& g : s.scheduling_gates) spec["schedulingGates"].push_back({{"name", g}});
  for (const auto& v : s.volumes) {
    json vol = {{"name", v.name}};
    if (v.source == "persistentVolumeClaim") {
      vol["persistentVolumeClaim"] = {{"claimName", v.claim_name}};
    } else if (v.source == "ephemeral") {
      // A one-gigabyte claim of the default class, as the smallest valid template.
      vol["ephemeral"]["volumeClaimTemplate"]["spec"] = {
          {"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
    } else if (v.source == "image") {
      vol["image"] = {{"reference", v.image_reference}};
    } else {
      vol["emptyDir"] = json::object();
    }
    spec["volumes"].push_back(vol);
  }
  for (const auto& c : s.resource_claims) {
    json claim = {{"name", c.name}};
    if (c.resource_claim_name) claim["resourceClaimName"] = *c.resource_claim_name;
    if (c.resource_claim_template_name) {
      claim["resourceClaimTemplateName"] = *c.resource_claim_template_name;
    }
    spec["resourceClaims"].push_back(claim);
  }
  if (s.host_network) spec["hostNetwork"] = true;
  return json{
      {"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", Meta(pod_.metadata)}, {"spec", spec}}
      .dump();
}

std::string NodeWrapper::Json() const {
  json spec = json::object();
  for (const auto& t : node_.spec.taints) {
    json taint = {{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) taint["value"] = t.value;
    spec["taints"].push_back(taint);
  }
  if (node_.spec.unschedulable) spec["unschedulable"] = true;
  json status = {{"capacity", Resources(capacity_)},
                 {"allocatable", Resources(node_.status.allocatable)}};
  for (const auto& c : node_.status.conditions) {
    json cond = {{"type", c.type}, {"status", c.status}};
    if (!condition_reason_.empty()) cond["reason"] = condition_reason_;
    if (!condition_message_.empty()) cond["message"] = condition_message_;
    status["conditions"].push_back(cond);
  }
  return json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", Meta(node_.metadata)},
              {"spec", spec},
              {"status", status}}
      .dump();
}

}  // namespace stowage::testing
