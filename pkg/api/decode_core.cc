// Readers for metadata, selectors, affinity, Pods and Nodes: the objects every scheduling cycle
// touches. Field names are the API's JSON names.
#include "pkg/api/decode_internal.h"

namespace stowage::api::decode_internal {

namespace {
constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
}

void ReadMeta(Reader& r, dom::object o, ObjectMeta& m) {
  r.Str(o, "name", m.name);
  r.Str(o, "namespace", m.namespace_);
  r.Str(o, "uid", m.uid);
  r.Str(o, "resourceVersion", m.resource_version);
  r.Int64(o, "generation", m.generation);
  r.Str(o, "creationTimestamp", m.creation_timestamp);
  r.OptStr(o, "deletionTimestamp", m.deletion_timestamp);
  r.Map(o, "labels", m.labels);
  r.Map(o, "annotations", m.annotations);
  if (m.annotations.Has(kLastApplied)) {
    std::vector<StringMap::Entry> kept;
    for (const auto& e : m.annotations.entries()) {
      if (e.first != kLastApplied) kept.push_back(e);
    }
    m.annotations = StringMap(std::move(kept));
  }
  r.Arr(o, "ownerReferences", [&](dom::object ref) {
    auto& out = m.owner_references.emplace_back();
    r.Str(ref, "apiVersion", out.api_version);
    r.Str(ref, "kind", out.kind);
    r.Str(ref, "name", out.name);
    r.Str(ref, "uid", out.uid);
    r.Bool(ref, "controller", out.controller);
  });
  // managedFields is deliberately skipped: it is the bulk of most objects and unused here.
}

void ReadLabelSelector(Reader& r, dom::object o, LabelSelector& out) {
  r.Map(o, "matchLabels", out.match_labels);
  r.Arr(o, "matchExpressions", [&](dom::object e) {
    auto& req = out.match_expressions.emplace_back();
    r.Str(e, "key", req.key);
    r.Str(e, "operator", req.op);
    r.Strings(e, "values", req.values);
  });
}

namespace {

void ReadOptLabelSelector(Reader& r, dom::object o, std::string_view key,
                          std::optional<LabelSelector>& out) {
  r.Obj(o, key, [&](dom::object s) { ReadLabelSelector(r, s, out.emplace()); });
}

void ReadNodeSelectorRequirements(Reader& r, dom::object o, std::string_view key,
                                  std::vector<NodeSelectorRequirement>& out) {
  r.Arr(o, key, [&](dom::object e) {
    auto& req = out.emplace_back();
    r.Str(e, "key", req.key);
    r.Str(e, "operator", req.op);
    r.Strings(e, "values", req.values);
  });
}

void ReadNodeSelectorTerm(Reader& r, dom::object o, NodeSelectorTerm& out) {
  ReadNodeSelectorRequirements(r, o, "matchExpressions", out.match_expressions);
  ReadNodeSelectorRequirements(r, o, "matchFields", out.match_fields);
}

void ReadPodAffinityTerm(Reader& r, dom::object o, PodAffinityTerm& out) {
  ReadOptLabelSelector(r, o, "labelSelector", out.label_selector);
  r.Strings(o, "namespaces", out.namespaces);
  r.Str(o, "topologyKey", out.topology_key);
  ReadOptLabelSelector(r, o, "namespaceSelector", out.namespace_selector);
  r.Strings(o, "matchLabelKeys", out.match_label_keys);
  r.Strings(o, "mismatchLabelKeys", out.mismatch_label_keys);
}

void ReadPodAffinity(Reader& r, dom::object o, PodAffinity& out) {
  r.Arr(o, "requiredDuringSchedulingIgnoredDuringExecution",
        [&](dom::object t) { ReadPodAffinityTerm(r, t, out.required.emplace_back()); });
  r.Arr(o, "preferredDuringSchedulingIgnoredDuringExecution", [&](dom::object t) {
    auto& w = out.preferred.emplace_back();
    r.Int32(t, "weight", w.weight);
    r.Obj(t, "podAffinityTerm", [&](dom::object pt) { ReadPodAffinityTerm(r, pt, w.term); });
  });
}

void ReadAffinity(Reader& r, dom::object o, Affinity& out) {
  r.Obj(o, "nodeAffinity", [&](dom::object na) {
    auto& n = out.node_affinity.emplace();
    r.Obj(na, "requiredDuringSchedulingIgnoredDuringExecution",
          [&](dom::object s) { ReadNodeSelector(r, s, n.required.emplace()); });
    r.Arr(na, "preferredDuringSchedulingIgnoredDuringExecution", [&](dom::object t) {
      auto& p = n.preferred.emplace_back();
      r.Int32(t, "weight", p.weight);
      r.Obj(t, "preference", [&](dom::object pt) { ReadNodeSelectorTerm(r, pt, p.preference); });
    });
  });
  r.Obj(o, "podAffinity",
        [&](dom::object pa) { ReadPodAffinity(r, pa, out.pod_affinity.emplace()); });
  r.Obj(o, "podAntiAffinity",
        [&](dom::object pa) { ReadPodAffinity(r, pa, out.pod_anti_affinity.emplace()); });
}

void ReadResourceRequirements(Reader& r, dom::object o, ResourceRequirements& out) {
  r.Resources(o, "requests", out.requests);
  r.Resources(o, "limits", out.limits);
}

void ReadContainer(Reader& r, dom::object o, Container& c) {
  r.Str(o, "name", c.name);
  r.Str(o, "image", c.image);
  r.Obj(o, "resources", [&](dom::object res) { ReadResourceRequirements(r, res, c.resources); });
  r.Arr(o, "ports", [&](dom::object p) {
    auto& port = c.ports.emplace_back();
    r.Int32(p, "containerPort", port.container_port);
    r.Int32(p, "hostPort", port.host_port);
    r.Str(p, "protocol", port.protocol);
    r.Str(p, "hostIP", port.host_ip);
    if (port.protocol.empty()) port.protocol = "TCP";  // the API default
  });
  r.OptStr(o, "restartPolicy", c.restart_policy);
  r.Arr(o, "restartPolicyRules", [&](dom::object rule) {
    r.Str(rule, "action", c.restart_policy_rules.emplace_back().action);
  });
}

// The volume sources are mutually exclusive keys of the volume object; the first one found
// that is not "name" is the source.
void ReadVolume(Reader& r, dom::object o, Volume& v) {
  r.Str(o, "name", v.name);
  for (auto field : o) {
    if (field.key == "name") continue;
    v.source.assign(field.key);
    break;
  }
  dom::object src;
  if (v.source.empty() || !r.GetObject(o, v.source, src)) return;
  Reader::Scope s(r, v.source);
  r.Bool(src, "readOnly", v.read_only);
  if (v.source == "persistentVolumeClaim") {
    r.Str(src, "claimName", v.claim_name);
  } else if (v.source == "csi") {
    r.Str(src, "driver", v.driver);
  } else if (v.source == "gcePersistentDisk") {
    r.Str(src, "pdName", v.disk_id);
  } else if (v.source == "awsElasticBlockStore") {
    r.Str(src, "volumeID", v.disk_id);
  } else if (v.source == "iscsi") {
    r.Str(src, "iqn", v.iscsi_iqn);
    r.Str(src, "targetPortal", v.iscsi_target_portal);
    r.Int32(src, "lun", v.iscsi_lun);
  } else if (v.source == "image") {
    r.Str(src, "reference", v.image_reference);
  } else if (v.source == "rbd") {
    r.Str(src, "pool", v.rbd_pool);
    r.Str(src, "image", v.rbd_image);
    r.Strings(src, "monitors", v.rbd_monitors);
  }
}

void ReadToleration(Reader& r, dom::object o, Toleration& t) {
  r.Str(o, "key", t.key);
  r.Str(o, "operator", t.op);
  r.Str(o, "value", t.value);
  r.Str(o, "effect", t.effect);
  r.OptInt64(o, "tolerationSeconds", t.toleration_seconds);
}

void ReadSpreadConstraint(Reader& r, dom::object o, TopologySpreadConstraint& c) {
  r.Int32(o, "maxSkew", c.max_skew);
  r.Str(o, "topologyKey", c.topology_key);
  r.Str(o, "whenUnsatisfiable", c.when_unsatisfiable);
  ReadOptLabelSelector(r, o, "labelSelector", c.label_selector);
  r.OptInt32(o, "minDomains", c.min_domains);
  r.OptStr(o, "nodeAffinityPolicy", c.node_affinity_policy);
  r.OptStr(o, "nodeTaintsPolicy", c.node_taints_policy);
  r.Strings(o, "matchLabelKeys", c.match_label_keys);
}

void ReadPodSpec(Reader& r, dom::object o, PodSpec& s) {
  r.Str(o, "schedulerName", s.scheduler_name);
  r.Str(o, "nodeName", s.node_name);
  r.OptInt32(o, "priority", s.priority);
  r.Str(o, "priorityClassName", s.priority_class_name);
  r.OptStr(o, "preemptionPolicy", s.preemption_policy);
  r.Arr(o, "containers", [&](dom::object c) { ReadContainer(r, c, s.containers.emplace_back()); });
  r.Arr(o, "initContainers",
        [&](dom::object c) { ReadContainer(r, c, s.init_containers.emplace_back()); });
  r.Resources(o, "overhead", s.overhead);
  r.Obj(o, "resources",
        [&](dom::object res) { ReadResourceRequirements(r, res, s.resources.emplace()); });
  r.Map(o, "nodeSelector", s.node_selector);
  r.Obj(o, "affinity", [&](dom::object a) { ReadAffinity(r, a, s.affinity.emplace()); });
  r.Arr(o, "tolerations",
        [&](dom::object t) { ReadToleration(r, t, s.tolerations.emplace_back()); });
  r.Arr(o, "topologySpreadConstraints", [&](dom::object c) {
    ReadSpreadConstraint(r, c, s.topology_spread_constraints.emplace_back());
  });
  r.Arr(o, "volumes", [&](dom::object v) { ReadVolume(r, v, s.volumes.emplace_back()); });
  r.Arr(o, "schedulingGates",
        [&](dom::object g) { r.Str(g, "name", s.scheduling_gates.emplace_back()); });
  r.Arr(o, "resourceClaims", [&](dom::object c) {
    auto& claim = s.resource_claims.emplace_back();
    r.Str(c, "name", claim.name);
    r.OptStr(c, "resourceClaimName", claim.resource_claim_name);
    r.OptStr(c, "resourceClaimTemplateName", claim.resource_claim_template_name);
  });
  r.Bool(o, "hostNetwork", s.host_network);
  r.OptBool(o, "hostUsers", s.host_users);
  r.Str(o, "restartPolicy", s.restart_policy);
  r.Obj(o, "os", [&](dom::object os) { r.Str(os, "name", s.os_name); });
}

void ReadAppliedResources(Reader& r, dom::object o, std::string_view key,
                          std::optional<AppliedResources>& out) {
  r.Obj(o, key, [&](dom::object res) {
    auto& applied = out.emplace();
    r.OptResources(res, "requests", applied.requests);
    r.OptResources(res, "limits", applied.limits);
  });
}

void ReadContainerStatuses(Reader& r, dom::object o, std::string_view key,
                           std::vector<ContainerStatus>& out) {
  r.Arr(o, key, [&](dom::object c) {
    auto& cs = out.emplace_back();
    r.Str(c, "name", cs.name);
    r.OptResources(c, "allocatedResources", cs.allocated_resources);
    ReadAppliedResources(r, c, "resources", cs.resources);
  });
}

void ReadConditions(Reader& r, dom::object o, std::vector<Condition>& out) {
  r.Arr(o, "conditions", [&](dom::object c) {
    auto& cond = out.emplace_back();
    r.Str(c, "type", cond.type);
    r.Str(c, "status", cond.status);
    r.Str(c, "reason", cond.reason);
    r.Str(c, "message", cond.message);
    r.Str(c, "lastTransitionTime", cond.last_transition_time);
    r.Str(c, "lastProbeTime", cond.last_probe_time);
    r.Int64(c, "observedGeneration", cond.observed_generation);
  });
}

}  // namespace

void ReadNodeSelector(Reader& r, dom::object o, NodeSelector& out) {
  r.Arr(o, "nodeSelectorTerms",
        [&](dom::object t) { ReadNodeSelectorTerm(r, t, out.terms.emplace_back()); });
}

void Read(Reader& r, dom::object o, Pod& pod) {
  r.Obj(o, "metadata", [&](dom::object m) { ReadMeta(r, m, pod.metadata); });
  r.Obj(o, "spec", [&](dom::object s) { ReadPodSpec(r, s, pod.spec); });
  r.Obj(o, "status", [&](dom::object s) {
    r.Str(s, "phase", pod.status.phase);
    ReadConditions(r, s, pod.status.conditions);
    r.Str(s, "nominatedNodeName", pod.status.nominated_node_name);
    r.Str(s, "qosClass", pod.status.qos_class);
    r.Str(s, "startTime", pod.status.start_time);
    ReadContainerStatuses(r, s, "containerStatuses", pod.status.container_statuses);
    ReadContainerStatuses(r, s, "initContainerStatuses", pod.status.init_container_statuses);
    r.OptResources(s, "allocatedResources", pod.status.allocated_resources);
    ReadAppliedResources(r, s, "resources", pod.status.resources);
  });
}

void Read(Reader& r, dom::object o, Node& node) {
  r.Obj(o, "metadata", [&](dom::object m) { ReadMeta(r, m, node.metadata); });
  r.Obj(o, "spec", [&](dom::object s) {
    r.Bool(s, "unschedulable", node.spec.unschedulable);
    r.Str(s, "providerID", node.spec.provider_id);
    r.Arr(s, "taints", [&](dom::object t) {
      auto& taint = node.spec.taints.emplace_back();
      r.Str(t, "key", taint.key);
      r.Str(t, "value", taint.value);
      r.Str(t, "effect", taint.effect);
    });
  });
  r.Obj(o, "status", [&](dom::object s) {
    r.Resources(s, "capacity", node.status.capacity);
    r.Resources(s, "allocatable", node.status.allocatable);
    ReadConditions(r, s, node.status.conditions);
    r.Arr(s, "images", [&](dom::object img) {
      auto& image = node.status.images.emplace_back();
      r.Strings(img, "names", image.names);
      r.Int64(img, "sizeBytes", image.size_bytes);
    });
    r.Strings(s, "declaredFeatures", node.status.declared_features);
  });
}

}  // namespace stowage::api::decode_internal
