// Decoding of API objects, lists, watch events and API error bodies from JSON.
//
// Decoding is the first hot path of a scheduler (every list page and every watch event passes
// through it), so it uses simdjson's DOM parser, which is an order of magnitude faster than a
// general-purpose JSON library, and copies straight into the compact structs of types.h,
// skipping everything the scheduler does not read (managedFields among it).
//
// Untrusted input is bounded: a document larger than its limit, or nested deeper than
// kMaxNestingDepth, is rejected with an error before or while parsing; nothing here throws or
// aborts on bad input. Errors name the object and the field path, e.g.
// `Pod default/web-0: spec.containers[0].resources.requests.cpu: quantity "1x": unknown suffix`.
// All functions are thread-safe (each thread uses its own parser).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::api {

// Limits on untrusted input. etcd caps an object at ~1.5 MiB, so a single object or watch event
// above kMaxObjectBytes is malformed; list pages are bounded by the client's page size.
inline constexpr size_t kMaxObjectBytes = 8u << 20;
inline constexpr size_t kMaxListBytes = 512u << 20;
inline constexpr size_t kMaxNestingDepth = 100;

template <typename T>
struct List {
  std::vector<std::shared_ptr<const T>> items;
  std::string resource_version;  // metadata.resourceVersion of the list
  std::string continue_token;    // metadata.continue; empty on the last page
};

enum class WatchEventType : uint8_t { kAdded, kModified, kDeleted, kBookmark, kError };

// An API error body (kind: Status), as sent with non-2xx responses and in watch ERROR events.
struct ApiStatus {
  int32_t code = 0;    // HTTP status code, e.g. 410
  std::string reason;  // e.g. "Expired", "Conflict", "AlreadyExists"
  std::string message;
};

template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  std::shared_ptr<const T> object;  // set for ADDED, MODIFIED, DELETED
  std::string resource_version;     // the object's, or the bookmark's
  ApiStatus error;                  // set for ERROR
};

// What a decode keeps of a Pod or a Node besides its compact struct: kWhole also keeps the whole
// object (Pod::whole, Node::whole) for the extenders that are sent it. Other kinds ignore it.
enum class Keep : uint8_t { kCompact, kWhole };

// The kinds that can be decoded. T is one of the object structs of types.h.
template <typename T>
StatusOr<T> Decode(std::string_view json, Keep keep = Keep::kCompact);
template <typename T>
StatusOr<List<T>> DecodeList(std::string_view json, Keep keep = Keep::kCompact);
// One line of a watch stream (one JSON object; surrounding whitespace is ignored).
template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(std::string_view json, Keep keep = Keep::kCompact);

// Decodes an error body. Bodies that are not a Status (a proxy's HTML page, say) give an
// ApiStatus whose message is the start of the body.
ApiStatus DecodeApiStatus(std::string_view body, int32_t http_code);

// A JSON array of strings (the requestheader-* values of the authentication ConfigMap).
StatusOr<std::vector<std::string>> DecodeStrings(std::string_view json);

// The JSON object base with each top-level member of overlay in place of base's (or added after
// them), every other member of base kept: how an update writes back an object stowage does not
// model whole (a new spec into the Lease last read), losing none of its fields.
StatusOr<std::string> OverlayObject(std::string_view base, std::string_view overlay);

// The kind's name, as the API spells it ("Pod"), for error messages and logs.
template <typename T>
std::string_view KindName();

}  // namespace stowage::api
