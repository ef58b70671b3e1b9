// Readers for the kinds the default plugins and leader election read besides Pods and Nodes that
// have no declaration in pkg/api/schema/ yet (decode_schema.cc reads those that have).
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
