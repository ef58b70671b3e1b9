// The Pod reader: spec (containers, affinity, tolerations, spread, volumes, claims, gates) and
// the status fields the scheduler reads. Field numbers are those of k8s.io/api core/v1
// generated.proto at the pinned release; each case mirrors a line of pkg/api/decode_core.cc.
#include "pkg/client/protobuf_objects.h"

namespace stowage::client::proto {
namespace {

// Collects a map<string, Quantity> field's entries; the list is set only when one was seen, as
// JSON omits an empty map.
struct Resources {
  std::vector<api::ResourceList::Entry> entries;
  bool seen = false;
  void Read(WireReader& r, const Field& f) {
    seen = true;
    ReadResourceEntry(r, f, entries);
  }
  void Into(api::ResourceList& out) {
    if (seen) out = api::ResourceList(std::move(entries));
  }
  void Into(std::optional<api::ResourceList>& out) {
    if (seen) out = api::ResourceList(std::move(entries));
  }
};

// core/v1 ResourceRequirements: limits = 1, requests = 2.
template <typename Out>
void ReadRequirements(WireReader& r, const Field& field, Out& requests, Out& limits) {
  Resources req, lim;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) lim.Read(r, f);
    if (f.number == 2) req.Read(r, f);
  });
  req.Into(requests);
  lim.Into(limits);
}

void ReadPodAffinityTerm(WireReader& r, const Field& field, api::PodAffinityTerm& t) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return ReadLabelSelector(r, f, t.label_selector.emplace());
      case 2: return r.Str(f, t.namespaces.emplace_back());
      case 3: return r.Str(f, t.topology_key);
      case 4: return ReadLabelSelector(r, f, t.namespace_selector.emplace());
      case 5: return r.Str(f, t.match_label_keys.emplace_back());
      case 6: return r.Str(f, t.mismatch_label_keys.emplace_back());
    }
  });
}

void ReadPodAffinity(WireReader& r, const Field& field, api::PodAffinity& a) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) return ReadPodAffinityTerm(r, f, a.required.emplace_back());
    if (f.number != 2) return;
    auto& w = a.preferred.emplace_back();
    r.Sub(f, [&](const Field& t) {
      if (t.number == 1) r.Int32(t, w.weight);
      if (t.number == 2) ReadPodAffinityTerm(r, t, w.term);
    });
  });
}

void ReadAffinity(WireReader& r, const Field& field, api::Affinity& a) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 2) return ReadPodAffinity(r, f, a.pod_affinity.emplace());
    if (f.number == 3) return ReadPodAffinity(r, f, a.pod_anti_affinity.emplace());
    if (f.number != 1) return;
    auto& n = a.node_affinity.emplace();
    r.Sub(f, [&](const Field& na) {
      if (na.number == 1) return ReadNodeSelector(r, na, n.required.emplace());
      if (na.number != 2) return;
      auto& p = n.preferred.emplace_back();
      r.Sub(na, [&](const Field& t) {
        if (t.number == 1) r.Int32(t, p.weight);
        if (t.number == 2) ReadNodeSelectorTerm(r, t, p.preference);
      });
    });
  });
}

void ReadContainer(WireReader& r, const Field& field, api::Container& c) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, c.name);
      case 2: return r.Str(f, c.image);
      case 6: {
        auto& port = c.ports.emplace_back();
        r.Sub(f, [&](const Field& p) {
          if (p.number == 2) r.Int32(p, port.host_port);
          if (p.number == 3) r.Int32(p, port.container_port);
          if (p.number == 4) r.Str(p, port.protocol);
          if (p.number == 5) r.Str(p, port.host_ip);
        });
        if (port.protocol.empty()) port.protocol = "TCP";  // the API default, as the JSON reader
        return;
      }
      case 8: return ReadRequirements(r, f, c.resources.requests, c.resources.limits);
      case 24: return r.Str(f, c.restart_policy.emplace());
      case 25: {
        auto& rule = c.restart_policy_rules.emplace_back();
        return r.Sub(f, [&](const Field& x) {
          if (x.number == 1) r.Str(x, rule.action);
        });
      }
    }
  });
}

// VolumeSource's fields by number: the JSON key the JSON reader records as the source, and the
// number of the source's readOnly field (0: it has none).
struct VolumeKind {
  std::string_view key;
  uint32_t read_only;
};
constexpr VolumeKind kVolumeKinds[] = {
    {},
    {"hostPath", 0},
    {"emptyDir", 0},
    {"gcePersistentDisk", 4},
    {"awsElasticBlockStore", 4},
    {"gitRepo", 0},
    {"secret", 0},
    {"nfs", 3},
    {"iscsi", 6},
    {"glusterfs", 3},
    {"persistentVolumeClaim", 2},
    {"rbd", 8},
    {"flexVolume", 4},
    {"cinder", 3},
    {"cephfs", 6},
    {"flocker", 0},
    {"downwardAPI", 0},
    {"fc", 4},
    {"azureFile", 3},
    {"configMap", 0},
    {"vsphereVolume", 0},
    {"quobyte", 3},
    {"azureDisk", 5},
    {"photonPersistentDisk", 0},
    {"portworxVolume", 3},
    {"scaleIO", 10},
    {"projected", 0},
    {"storageos", 4},
    {"csi", 2},
    {"ephemeral", 0},
    {"image", 0},
};
constexpr uint32_t kVolumeKindCount = sizeof(kVolumeKinds) / sizeof(kVolumeKinds[0]);

void ReadVolume(WireReader& r, const Field& field, api::Volume& v) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) return r.Str(f, v.name);
    if (f.number != 2) return;
    r.Sub(f, [&](const Field& src) {
      // One source is set; a second (which validation refuses) is ignored as the JSON reader
      // ignores all but the first key.
      if (!v.source.empty() || src.number >= kVolumeKindCount) return;
      const VolumeKind& kind = kVolumeKinds[src.number];
      v.source.assign(kind.key);
      r.Sub(src, [&](const Field& x) {
        if (kind.read_only != 0 && x.number == kind.read_only) return r.Bool(x, v.read_only);
        switch (src.number) {
          case 3:  // gcePersistentDisk.pdName
          case 4:  // awsElasticBlockStore.volumeID
            if (x.number == 1) r.Str(x, v.disk_id);
            return;
          case 8:  // iscsi
            if (x.number == 1) r.Str(x, v.iscsi_target_portal);
            if (x.number == 2) r.Str(x, v.iscsi_iqn);
            if (x.number == 3) r.Int32(x, v.iscsi_lun);
            return;
          case 10:  // persistentVolumeClaim.claimName
            if (x.number == 1) r.Str(x, v.claim_name);
            return;
          case 11:  // rbd
            if (x.number == 1) r.Str(x, v.rbd_monitors.emplace_back());
            if (x.number == 2) r.Str(x, v.rbd_image);
            if (x.number == 4) r.Str(x, v.rbd_pool);
            return;
          case 28:  // csi.driver
            if (x.number == 1) r.Str(x, v.driver);
            return;
          case 30:  // image.reference
            if (x.number == 1) r.Str(x, v.image_reference);
            return;
        }
      });
    });
  });
}

void ReadToleration(WireReader& r, const Field& field, api::Toleration& t) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, t.key);
      case 2: return r.Str(f, t.op);
      case 3: return r.Str(f, t.value);
      case 4: return r.Str(f, t.effect);
      case 5: return r.Int64(f, t.toleration_seconds.emplace());
    }
  });
}

void ReadSpreadConstraint(WireReader& r, const Field& field, api::TopologySpreadConstraint& c) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Int32(f, c.max_skew);
      case 2: return r.Str(f, c.topology_key);
      case 3: return r.Str(f, c.when_unsatisfiable);
      case 4: return ReadLabelSelector(r, f, c.label_selector.emplace());
      case 5: return r.Int32(f, c.min_domains.emplace());
      case 6: return r.Str(f, c.node_affinity_policy.emplace());
      case 7: return r.Str(f, c.node_taints_policy.emplace());
      case 8: return r.Str(f, c.match_label_keys.emplace_back());
    }
  });
}

void ReadPodResourceClaim(WireReader& r, const Field& field, api::PodResourceClaim& c) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Str(f, c.name);
    if (f.number == 3) r.Str(f, c.resource_claim_name.emplace());
    if (f.number == 4) r.Str(f, c.resource_claim_template_name.emplace());
  });
}

// The one string field of PodOS and PodSchedulingGate: name = 1.
void ReadName(WireReader& r, const Field& field, std::string& out) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Str(f, out);
  });
}

void ReadPodSpec(WireReader& r, const Field& field, api::PodSpec& s) {
  std::vector<api::StringMap::Entry> node_selector;
  Resources overhead;
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return ReadVolume(r, f, s.volumes.emplace_back());
      case 2: return ReadContainer(r, f, s.containers.emplace_back());
      case 3: return r.Str(f, s.restart_policy);
      case 7: return ReadMapEntry(r, f, node_selector);
      case 10: return r.Str(f, s.node_name);
      case 11: return r.Bool(f, s.host_network);
      case 18: return ReadAffinity(r, f, s.affinity.emplace());
      case 19: return r.Str(f, s.scheduler_name);
      case 20: return ReadContainer(r, f, s.init_containers.emplace_back());
      case 22: return ReadToleration(r, f, s.tolerations.emplace_back());
      case 24: return r.Str(f, s.priority_class_name);
      case 25: return r.Int32(f, s.priority.emplace());
      case 31: return r.Str(f, s.preemption_policy.emplace());
      case 32: return overhead.Read(r, f);
      case 33: return ReadSpreadConstraint(r, f, s.topology_spread_constraints.emplace_back());
      case 36: return ReadName(r, f, s.os_name);
      case 37: return r.Bool(f, s.host_users.emplace());
      case 38: return ReadName(r, f, s.scheduling_gates.emplace_back());
      case 39: return ReadPodResourceClaim(r, f, s.resource_claims.emplace_back());
      case 40: {
        auto& res = s.resources.emplace();
        return ReadRequirements(r, f, res.requests, res.limits);
      }
    }
  });
  if (!node_selector.empty()) s.node_selector = api::StringMap(std::move(node_selector));
  overhead.Into(s.overhead);
}

void ReadApplied(WireReader& r, const Field& field, std::optional<api::AppliedResources>& out) {
  auto& applied = out.emplace();
  ReadRequirements(r, field, applied.requests, applied.limits);
}

void ReadContainerStatus(WireReader& r, const Field& field, api::ContainerStatus& cs) {
  Resources allocated;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Str(f, cs.name);
    if (f.number == 10) allocated.Read(r, f);
    if (f.number == 11) ReadApplied(r, f, cs.resources);
  });
  allocated.Into(cs.allocated_resources);
}

void ReadPodStatus(WireReader& r, const Field& field, api::PodStatus& s) {
  Resources allocated;
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, s.phase);
      case 2: return ReadCondition(r, f, false, s.conditions.emplace_back());
      case 7: return ReadTime(r, f, s.start_time);
      case 8: return ReadContainerStatus(r, f, s.container_statuses.emplace_back());
      case 9: return r.Str(f, s.qos_class);
      case 10: return ReadContainerStatus(r, f, s.init_container_statuses.emplace_back());
      case 11: return r.Str(f, s.nominated_node_name);
      case 19: return allocated.Read(r, f);
      case 20: return ReadApplied(r, f, s.resources);
    }
  });
  allocated.Into(s.allocated_resources);
}

}  // namespace

void ReadPod(WireReader& r, std::string_view bytes, api::Pod& pod) {
  r.Each(bytes, [&](const Field& f) {
    if (f.number == 1 && r.ExpectBytes(f)) return ReadMeta(r, f.bytes, pod.metadata);
    if (f.number == 2) return ReadPodSpec(r, f, pod.spec);
    if (f.number == 3) return ReadPodStatus(r, f, pod.status);
  });
}

}  // namespace stowage::client::proto
