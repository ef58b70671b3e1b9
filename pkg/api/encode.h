// Encoding of the request bodies stowage writes: any declared kind through the schema's JSON
// engine (Leases, reviews), and Bindings, Events and pod status patches, plus the RFC 3339
// timestamps they carry (stowage/api/time_format.h). Thread-safe; never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "stowage/api/time_format.h"  // FormatTime and ParseTime, defined in encode.cc
#include "stowage/api/types.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::api {

// The v1 Binding posted to pods/<name>/binding to place pod on node.
std::string EncodeBinding(const ObjectMeta& pod, std::string_view node_name);

// Any kind of pkg/api/schema as API JSON, without kind and apiVersion: every field its compact
// struct keeps, zero values left out, so it decodes to the same object (the schema's JSON-out
// engine, encode_schema.cc).
template <typename T>
std::string EncodeJson(const T& object);

// The same as a request body: apiVersion and kind first, as Go writes them (a Lease to create or
// update, a TokenReview to post).
template <typename T>
std::string EncodeObject(const T& object);

// An events.k8s.io/v1 Event about an object.
// The object an event names: the fields of its v1.ObjectReference that come from the object's
// metadata. Events are kept for 6 minutes for their series, so they hold only these, not the
// whole metadata.
struct EventObject {
  EventObject() = default;
  // Implicit: an event's objects are given as their metadata.
  EventObject(const ObjectMeta& meta)  // NOLINT(google-explicit-constructor)
      : namespace_(meta.namespace_),
        name(meta.name),
        uid(meta.uid),
        resource_version(meta.resource_version) {}
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
};

struct EventRecord {
  std::string name;  // metadata.name, unique per event
  std::string namespace_;
  std::string event_time;  // MicroTime
  std::string reporting_controller;
  std::string reporting_instance;
  std::string action;
  std::string reason;
  std::string note;
  std::string type;  // Normal, Warning
  std::string regarding_kind;
  std::string regarding_api_version;
  EventObject regarding;
  // The secondary object the event names (a preemption's preemptor); none when related_kind is
  // empty. Fields used as for regarding.
  std::string related_kind;
  std::string related_api_version;
  EventObject related;
  // The series, once the event has been seen more than once (series_count >= 2).
  int32_t series_count = 0;
  std::string series_last_observed_time;  // MicroTime
};
std::string EncodeEvent(const EventRecord& event);
// The strategic-merge patch that updates an event's series, as client-go's event broadcaster
// computes it: {"series":{"count":N,"lastObservedTime":"..."}}.
std::string EncodeEventSeriesPatch(int32_t count, std::string_view last_observed_time);

// The strategic-merge patch of pods/status from old_status to new_status, byte for byte as
// client-go's CreateTwoWayMergePatch makes it from the two statuses marshalled by Go (keys
// sorted, <, > and & escaped): conditions merge on their type (a new condition whole, a changed
// one as its changed fields plus its type, then "$setElementOrder/conditions" unless the old
// list was empty), and nominatedNodeName is set or nulled. Only conditions and
// nominatedNodeName are compared (the fields the scheduler writes); "{}" when they are equal.
std::string EncodePodStatusPatch(const PodStatus& old_status, const PodStatus& new_status);

// A JSON string literal for s (quotes and escapes included), for hand-built bodies.
std::string JsonQuote(std::string_view s);

}  // namespace stowage::api
