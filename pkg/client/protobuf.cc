#include "pkg/client/protobuf.h"

#include <chrono>
#include <cstdint>

namespace stowage::client {
namespace {

// Wire types of the protobuf encoding.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kBytes = 2;

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutTag(std::string& out, uint32_t field, uint32_t wire_type) {
  PutVarint(out, (field << 3) | wire_type);
}

// A length-delimited field: a string, or a message encoded into bytes.
void PutBytes(std::string& out, uint32_t field, std::string_view bytes) {
  PutTag(out, field, kBytes);
  PutVarint(out, bytes.size());
  out.append(bytes);
}

void PutInt(std::string& out, uint32_t field, int64_t v) {
  PutTag(out, field, kVarint);
  PutVarint(out, static_cast<uint64_t>(v));  // int64/int32: negative numbers take ten bytes
}

// metav1.ObjectMeta with what stowage sets; generateName, selfLink, resourceVersion, generation
// and creationTimestamp are written empty, as Go writes its non-pointer fields.
std::string ObjectMeta(std::string_view name, std::string_view ns, std::string_view uid) {
  std::string m;
  PutBytes(m, 1, name);
  PutBytes(m, 2, "");
  PutBytes(m, 3, ns);
  PutBytes(m, 4, "");
  PutBytes(m, 5, uid);
  PutBytes(m, 6, "");
  PutInt(m, 7, 0);
  PutBytes(m, 8, "");  // a zero metav1.Time marshals to no bytes
  return m;
}

struct Reference {
  std::string_view kind, ns, name, uid, api_version, resource_version;
};
std::string ObjectReference(const Reference& r) {
  std::string m;
  PutBytes(m, 1, r.kind);
  PutBytes(m, 2, r.ns);
  PutBytes(m, 3, r.name);
  PutBytes(m, 4, r.uid);
  PutBytes(m, 5, r.api_version);
  PutBytes(m, 6, r.resource_version);
  PutBytes(m, 7, "");  // fieldPath
  return m;
}

// metav1.MicroTime as its protobuf Timestamp: seconds and nanoseconds since the epoch.
StatusOr<std::string> MicroTime(std::string_view rfc3339) {
  StatusOr<WallTime> t = api::ParseTime(rfc3339);
  if (!t.ok()) return t.status();
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t->time_since_epoch()).count();
  int64_t seconds = ns / 1'000'000'000;
  int64_t nanos = ns % 1'000'000'000;
  if (nanos < 0) nanos += 1'000'000'000, --seconds;
  std::string m;
  PutInt(m, 1, seconds);
  PutInt(m, 2, nanos);
  return m;
}

// The apiserver's protobuf envelope: a magic prefix, then runtime.Unknown holding the TypeMeta
// and the object's bytes.
std::string Envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string type_meta;
  PutBytes(type_meta, 1, api_version);
  PutBytes(type_meta, 2, kind);
  std::string out("k8s\0", 4);
  PutBytes(out, 1, type_meta);
  PutBytes(out, 2, raw);
  PutBytes(out, 3, "");  // contentEncoding
  PutBytes(out, 4, "");  // contentType
  return out;
}

}  // namespace

std::string EncodeBindingProto(const api::ObjectMeta& pod, std::string_view node_name) {
  std::string b;
  PutBytes(b, 1, ObjectMeta(pod.name, pod.namespace_, pod.uid));
  PutBytes(b, 2, ObjectReference({.kind = "Node", .name = node_name, .api_version = "v1"}));
  return Envelope("v1", "Binding", b);
}

StatusOr<std::string> EncodeEventProto(const api::EventRecord& e) {
  StatusOr<std::string> event_time = MicroTime(e.event_time);
  if (!event_time.ok()) return event_time.status();
  std::string m;
  PutBytes(m, 1, ObjectMeta(e.name, e.namespace_, ""));
  PutBytes(m, 2, *event_time);
  if (e.series_count > 0) {
    StatusOr<std::string> last = MicroTime(e.series_last_observed_time);
    if (!last.ok()) return last.status();
    std::string series;
    PutInt(series, 1, e.series_count);
    PutBytes(series, 2, *last);
    PutBytes(m, 3, series);
  }
  PutBytes(m, 4, e.reporting_controller);
  PutBytes(m, 5, e.reporting_instance);
  PutBytes(m, 6, e.action);
  PutBytes(m, 7, e.reason);
  PutBytes(m, 8,
           ObjectReference({.kind = e.regarding_kind,
                            .ns = e.regarding.namespace_,
                            .name = e.regarding.name,
                            .uid = e.regarding.uid,
                            .api_version = e.regarding_api_version,
                            .resource_version = e.regarding.resource_version}));
  PutBytes(m, 10, e.note);
  PutBytes(m, 11, e.type);
  std::string source;  // deprecatedSource: component and host, empty
  PutBytes(source, 1, "");
  PutBytes(source, 2, "");
  PutBytes(m, 12, source);
  PutBytes(m, 13, "");  // deprecatedFirstTimestamp, zero
  PutBytes(m, 14, "");  // deprecatedLastTimestamp, zero
  PutInt(m, 15, 0);     // deprecatedCount
  return Envelope("events.k8s.io/v1", "Event", m);
}

}  // namespace stowage::client
