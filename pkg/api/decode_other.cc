// Readers for the kinds the default plugins and leader election read besides Pods and Nodes.
#include "pkg/api/decode_internal.h"

namespace stowage::api::decode_internal {

namespace {
void ReadMetaOf(Reader& r, dom::object o, ObjectMeta& m) {
  r.Obj(o, "metadata", [&](dom::object mo) { ReadMeta(r, mo, m); });
}

void ReadSelector(Reader& r, dom::object o, std::optional<LabelSelector>& out) {
  r.Obj(o, "selector", [&](dom::object s) { ReadLabelSelector(r, s, out.emplace()); });
}
}  // namespace

void Read(Reader& r, dom::object o, PersistentVolume& pv) {
  ReadMetaOf(r, o, pv.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Resources(s, "capacity", pv.capacity);
    r.Strings(s, "accessModes", pv.access_modes);
    r.Str(s, "storageClassName", pv.storage_class_name);
    r.Str(s, "volumeMode", pv.volume_mode);
    r.Obj(s, "claimRef", [&](dom::object c) {
      auto& ref = pv.claim_ref.emplace();
      r.Str(c, "kind", ref.kind);
      r.Str(c, "namespace", ref.namespace_);
      r.Str(c, "name", ref.name);
      r.Str(c, "uid", ref.uid);
    });
    r.Obj(s, "nodeAffinity", [&](dom::object na) {
      r.Obj(na, "required",
            [&](dom::object req) { ReadNodeSelector(r, req, pv.node_affinity.emplace()); });
    });
    r.Obj(s, "csi", [&](dom::object c) {
      r.Str(c, "driver", pv.csi_driver);
      r.Str(c, "volumeHandle", pv.csi_volume_handle);
    });
  });
  r.Obj(o, "status", [&](dom::object s) { r.Str(s, "phase", pv.phase); });
}

void Read(Reader& r, dom::object o, PersistentVolumeClaim& pvc) {
  ReadMetaOf(r, o, pvc.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Strings(s, "accessModes", pvc.access_modes);
    r.OptStr(s, "storageClassName", pvc.storage_class_name);
    r.Str(s, "volumeName", pvc.volume_name);
    r.Str(s, "volumeMode", pvc.volume_mode);
    r.Obj(s, "resources", [&](dom::object res) { r.Resources(res, "requests", pvc.requests); });
    ReadSelector(r, s, pvc.selector);
  });
  r.Obj(o, "status", [&](dom::object s) { r.Str(s, "phase", pvc.phase); });
}

void Read(Reader& r, dom::object o, StorageClass& sc) {
  ReadMetaOf(r, o, sc.metadata);
  r.Str(o, "provisioner", sc.provisioner);
  r.Str(o, "volumeBindingMode", sc.volume_binding_mode);
  r.Str(o, "reclaimPolicy", sc.reclaim_policy);
  r.Arr(o, "allowedTopologies", [&](dom::object term) {
    auto& reqs = sc.allowed_topologies.emplace_back();
    r.Arr(term, "matchLabelExpressions", [&](dom::object e) {
      auto& req = reqs.emplace_back();
      r.Str(e, "key", req.key);
      r.Strings(e, "values", req.values);
    });
  });
}

void Read(Reader& r, dom::object o, CSINode& n) {
  ReadMetaOf(r, o, n.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Arr(s, "drivers", [&](dom::object d) {
      auto& drv = n.drivers.emplace_back();
      r.Str(d, "name", drv.name);
      r.Str(d, "nodeID", drv.node_id);
      r.Strings(d, "topologyKeys", drv.topology_keys);
      r.Obj(d, "allocatable",
            [&](dom::object a) { r.OptInt32(a, "count", drv.allocatable_count); });
    });
  });
}

void Read(Reader& r, dom::object o, CSIDriver& d) {
  ReadMetaOf(r, o, d.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.OptBool(s, "attachRequired", d.attach_required);
    r.OptBool(s, "storageCapacity", d.storage_capacity);
    r.OptBool(s, "requiresRepublish", d.requires_republish);
  });
}

void Read(Reader& r, dom::object o, PodDisruptionBudget& pdb) {
  ReadMetaOf(r, o, pdb.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    ReadSelector(r, s, pdb.selector);
    r.IntOrStr(s, "minAvailable", pdb.min_available);
    r.IntOrStr(s, "maxUnavailable", pdb.max_unavailable);
  });
  r.Obj(o, "status", [&](dom::object s) {
    r.Int32(s, "disruptionsAllowed", pdb.disruptions_allowed);
    r.Int32(s, "currentHealthy", pdb.current_healthy);
    r.Int32(s, "desiredHealthy", pdb.desired_healthy);
    r.Int32(s, "expectedPods", pdb.expected_pods);
    r.Obj(s, "disruptedPods", [&](dom::object dp) {
      for (auto field : dp) pdb.disrupted_pods.emplace_back(field.key);
    });
  });
}

void Read(Reader& r, dom::object o, Namespace& ns) {
  ReadMetaOf(r, o, ns.metadata);
  r.Obj(o, "status", [&](dom::object s) { r.Str(s, "phase", ns.phase); });
}

void Read(Reader& r, dom::object o, Service& svc) {
  ReadMetaOf(r, o, svc.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Map(s, "selector", svc.selector);
    r.Str(s, "type", svc.type);
  });
}

void Read(Reader& r, dom::object o, ReplicaSet& rs) {
  ReadMetaOf(r, o, rs.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    ReadSelector(r, s, rs.selector);
    r.OptInt32(s, "replicas", rs.replicas);
  });
}

void Read(Reader& r, dom::object o, StatefulSet& ss) {
  ReadMetaOf(r, o, ss.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    ReadSelector(r, s, ss.selector);
    r.OptInt32(s, "replicas", ss.replicas);
  });
}

void Read(Reader& r, dom::object o, ReplicationController& rc) {
  ReadMetaOf(r, o, rc.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Map(s, "selector", rc.selector);
    r.OptInt32(s, "replicas", rc.replicas);
  });
}

void Read(Reader& r, dom::object o, Lease& lease) {
  ReadMetaOf(r, o, lease.metadata);
  r.Obj(o, "spec", [&](dom::object s) {
    r.Str(s, "holderIdentity", lease.holder_identity);
    r.OptInt32(s, "leaseDurationSeconds", lease.lease_duration_seconds);
    r.Str(s, "acquireTime", lease.acquire_time);
    r.Str(s, "renewTime", lease.renew_time);
    r.Int32(s, "leaseTransitions", lease.lease_transitions);
  });
}

}  // namespace stowage::api::decode_internal
