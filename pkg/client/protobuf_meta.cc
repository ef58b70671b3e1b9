// Readers of the metadata, maps, times, selectors and conditions shared by Pods and Nodes, and the
// Node reader. Field numbers are those of k8s.io/api core/v1 and apimachinery meta/v1
// generated.proto at the pinned release.
#include <cstdio>
#include <ctime>

#include "pkg/client/protobuf_objects.h"

namespace stowage::client::proto {
namespace {
constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

void ReadOwnerReference(WireReader& r, const Field& field, api::OwnerReference& out) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, out.kind);
      case 3: return r.Str(f, out.name);
      case 4: return r.Str(f, out.uid);
      case 5: return r.Str(f, out.api_version);
      case 6: return r.Bool(f, out.controller);
    }
  });
}

void ReadNodeSelectorRequirement(WireReader& r, const Field& field,
                                 api::NodeSelectorRequirement& out) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, out.key);
      case 2: return r.Str(f, out.op);
      case 3: return r.Str(f, out.values.emplace_back());
    }
  });
}
}  // namespace

void ReadTime(WireReader& r, const Field& field, std::string& out) {
  if (!r.ExpectBytes(field)) return;
  // As metav1.Time's unmarshaller: no bytes is the zero time, which JSON writes as null.
  if (field.bytes.empty()) return;
  int64_t seconds = 0;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Int64(f, seconds);  // nanoseconds are dropped, as JSON drops them
  });
  // RFC 3339 has four-digit years, so Go cannot write a time outside them as JSON either.
  constexpr int64_t kYear1 = -62135596800, kAfterYear9999 = 253402300800;
  if (seconds < kYear1 || seconds >= kAfterYear9999) return r.Fail("time out of range");
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const int n = std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                              tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  out.assign(buf, n);
}

void ReadMapEntry(WireReader& r, const Field& field, std::vector<api::StringMap::Entry>& entries) {
  auto& e = entries.emplace_back();
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Str(f, e.first);
    if (f.number == 2) r.Str(f, e.second);
  });
}

void ReadResourceEntry(WireReader& r, const Field& field,
                       std::vector<api::ResourceList::Entry>& entries) {
  std::string name, text;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Str(f, name);
    if (f.number == 2) {
      r.Sub(f, [&](const Field& q) {
        if (q.number == 1) r.Str(q, text);  // resource.Quantity{string}
      });
    }
  });
  if (!r.ok()) return;
  auto q = api::Quantity::Parse(text);
  if (!q.ok()) return r.Fail(name + ": " + std::string(q.status().message()));
  entries.emplace_back(std::move(name), *q);
}

void ReadMeta(WireReader& r, std::string_view bytes, api::ObjectMeta& m) {
  std::vector<api::StringMap::Entry> labels, annotations;
  r.Each(bytes, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, m.name);
      case 3: return r.Str(f, m.namespace_);
      case 5: return r.Str(f, m.uid);
      case 6: return r.Str(f, m.resource_version);
      case 7: return r.Int64(f, m.generation);
      case 8: return ReadTime(r, f, m.creation_timestamp);
      case 9: {
        std::string t;
        ReadTime(r, f, t);
        if (!t.empty()) m.deletion_timestamp = std::move(t);
        return;
      }
      case 11: return ReadMapEntry(r, f, labels);
      case 12: {
        ReadMapEntry(r, f, annotations);
        if (annotations.back().first == kLastApplied) annotations.pop_back();
        return;
      }
      case 13: return ReadOwnerReference(r, f, m.owner_references.emplace_back());
    }
  });
  if (!labels.empty()) m.labels = api::StringMap(std::move(labels));
  if (!annotations.empty()) m.annotations = api::StringMap(std::move(annotations));
}

void ReadLabelSelector(WireReader& r, const Field& field, api::LabelSelector& out) {
  std::vector<api::StringMap::Entry> labels;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) return ReadMapEntry(r, f, labels);
    if (f.number != 2) return;
    auto& req = out.match_expressions.emplace_back();
    r.Sub(f, [&](const Field& e) {
      switch (e.number) {
        case 1: return r.Str(e, req.key);
        case 2: return r.Str(e, req.op);
        case 3: return r.Str(e, req.values.emplace_back());
      }
    });
  });
  if (!labels.empty()) out.match_labels = api::StringMap(std::move(labels));
}

void ReadNodeSelectorTerm(WireReader& r, const Field& field, api::NodeSelectorTerm& out) {
  r.Sub(field, [&](const Field& t) {
    if (t.number == 1) ReadNodeSelectorRequirement(r, t, out.match_expressions.emplace_back());
    if (t.number == 2) ReadNodeSelectorRequirement(r, t, out.match_fields.emplace_back());
  });
}

void ReadNodeSelector(WireReader& r, const Field& field, api::NodeSelector& out) {
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) ReadNodeSelectorTerm(r, f, out.terms.emplace_back());
  });
}

void ReadCondition(WireReader& r, const Field& field, bool node, api::Condition& c) {
  r.Sub(field, [&](const Field& f) {
    switch (f.number) {
      case 1: return r.Str(f, c.type);
      case 2: return r.Str(f, c.status);
      case 3: return node ? void() : ReadTime(r, f, c.last_probe_time);  // node: lastHeartbeatTime
      case 4: return ReadTime(r, f, c.last_transition_time);
      case 5: return r.Str(f, c.reason);
      case 6: return r.Str(f, c.message);
      case 7: return node ? void() : r.Int64(f, c.observed_generation);
    }
  });
}

void ReadNode(WireReader& r, std::string_view bytes, api::Node& node) {
  std::vector<api::ResourceList::Entry> capacity, allocatable;
  r.Each(bytes, [&](const Field& f) {
    if (f.number == 1 && r.ExpectBytes(f)) return ReadMeta(r, f.bytes, node.metadata);
    if (f.number == 2) {
      return r.Sub(f, [&](const Field& s) {
        switch (s.number) {
          case 3: return r.Str(s, node.spec.provider_id);
          case 4: return r.Bool(s, node.spec.unschedulable);
          case 5: {
            auto& taint = node.spec.taints.emplace_back();
            return r.Sub(s, [&](const Field& t) {
              if (t.number == 1) r.Str(t, taint.key);
              if (t.number == 2) r.Str(t, taint.value);
              if (t.number == 3) r.Str(t, taint.effect);
            });
          }
        }
      });
    }
    if (f.number != 3) return;
    r.Sub(f, [&](const Field& s) {
      switch (s.number) {
        case 1: return ReadResourceEntry(r, s, capacity);
        case 2: return ReadResourceEntry(r, s, allocatable);
        case 4: return ReadCondition(r, s, true, node.status.conditions.emplace_back());
        case 8: {
          auto& image = node.status.images.emplace_back();
          return r.Sub(s, [&](const Field& i) {
            if (i.number == 1) r.Str(i, image.names.emplace_back());
            if (i.number == 2) r.Int64(i, image.size_bytes);
          });
        }
        case 14: return r.Str(s, node.status.declared_features.emplace_back());
      }
    });
  });
  if (!capacity.empty()) node.status.capacity = api::ResourceList(std::move(capacity));
  if (!allocatable.empty()) node.status.allocatable = api::ResourceList(std::move(allocatable));
}

}  // namespace stowage::client::proto
