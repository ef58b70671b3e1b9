// The envelope, lists, watch events and Status bodies of the apiserver's protobuf encoding; the
// objects themselves are read by the schema's protobuf engine (protobuf_schema.cc).
#include "pkg/client/protobuf_decode.h"

#include "pkg/api/schema_generated.h"
#include "pkg/client/protobuf_objects.h"

namespace stowage::client {
namespace {

using wire::Field;
using wire::WireReader;

constexpr size_t kMagicSize = 4;

// The raw bytes of the envelope in data, checked to hold kind.
StatusOr<std::string_view> Unwrap(std::string_view data, std::string_view kind, size_t limit) {
  if (data.size() > limit) {
    return ResourceExhaustedError(std::string(kind) + ": message of " +
                                  std::to_string(data.size()) + " bytes exceeds the limit of " +
                                  std::to_string(limit) + " bytes");
  }
  if (!IsProtobufEnvelope(data)) {
    return InvalidArgumentError(std::string(kind) + ": not a protobuf envelope (bad magic)");
  }
  WireReader r;
  std::string got_kind, encoding;
  std::string_view raw;
  r.Each(data.substr(kMagicSize), [&](const Field& f) {
    if (f.number == 1) {
      r.Sub(f, [&](const Field& t) {
        if (t.number == 2) r.Str(t, got_kind);
      });
    }
    if (f.number == 2 && r.ExpectBytes(f)) raw = f.bytes;
    if (f.number == 3) r.Str(f, encoding);
  });
  if (!r.ok()) return InvalidArgumentError(std::string(kind) + " envelope: " + r.error());
  if (got_kind != kind) {
    return InvalidArgumentError(std::string(kind) + ": the envelope holds a \"" + got_kind +
                                "\", not a " + std::string(kind));
  }
  if (!encoding.empty()) {
    return InvalidArgumentError(std::string(kind) + ": unsupported content encoding \"" + encoding +
                                "\"");
  }
  return raw;
}

std::string Describe(std::string_view kind, const api::ObjectMeta& meta) {
  std::string d(kind);
  if (!meta.name.empty()) d += ' ' + api::NamespacedName(meta);
  return d;
}

template <typename T>
StatusOr<std::shared_ptr<const T>> ReadRaw(std::string_view raw) {
  WireReader r;
  auto out = std::make_shared<T>();
  proto::ReadObject(r, raw, *out);
  if (!r.ok()) {
    return InvalidArgumentError(Describe(api::KindName<T>(), out->metadata) + ": " + r.error());
  }
  return std::shared_ptr<const T>(std::move(out));
}

// metav1.Status: message = 3, reason = 4, code = 6.
api::ApiStatus ReadStatus(std::string_view raw, int32_t http_code) {
  api::ApiStatus s;
  s.code = http_code;
  WireReader r;
  r.Each(raw, [&](const Field& f) {
    if (f.number == 3) r.Str(f, s.message);
    if (f.number == 4) r.Str(f, s.reason);
    if (f.number == 6) r.Int32(f, s.code);
  });
  return s;
}

}  // namespace

template <typename T>
StatusOr<T> DecodeProto(std::string_view data) {
  auto raw = Unwrap(data, api::KindName<T>(), api::kMaxObjectBytes);
  if (!raw.ok()) return raw.status();
  auto obj = ReadRaw<T>(*raw);
  if (!obj.ok()) return obj.status();
  return T(**obj);
}

template <typename T>
StatusOr<api::List<T>> DecodeProtoList(std::string_view data) {
  const std::string kind = std::string(api::KindName<T>()) + "List";
  auto raw = Unwrap(data, kind, api::kMaxListBytes);
  if (!raw.ok()) return raw.status();
  api::List<T> list;
  Status item_error;
  WireReader r;
  r.Each(*raw, [&](const Field& f) {
    if (f.number == 1) {
      r.Sub(f, [&](const Field& m) {
        if (m.number == 2) r.Str(m, list.resource_version);
        if (m.number == 3) r.Str(m, list.continue_token);
      });
    }
    if (f.number != 2 || !r.ExpectBytes(f)) return;
    auto item = ReadRaw<T>(f.bytes);
    if (!item.ok()) {
      item_error =
          item.status().WithPrefix(kind + ": items[" + std::to_string(list.items.size()) + "]");
      return r.Fail("item");  // stops the walk; item_error is the message
    }
    list.items.push_back(std::move(*item));
  });
  if (!item_error.ok()) return item_error;
  if (!r.ok()) return InvalidArgumentError(kind + ": " + r.error());
  return list;
}

template <typename T>
StatusOr<api::WatchEvent<T>> DecodeProtoWatchEvent(std::string_view frame) {
  const std::string kind = std::string(api::KindName<T>()) + " watch event";
  if (frame.size() > api::kMaxObjectBytes) {
    return ResourceExhaustedError(kind + ": frame of " + std::to_string(frame.size()) +
                                  " bytes exceeds the limit");
  }
  std::string type;
  std::string_view object;
  bool has_object = false;
  WireReader r;
  r.Each(frame, [&](const Field& f) {
    if (f.number == 1) r.Str(f, type);
    if (f.number != 2) return;
    r.Sub(f, [&](const Field& x) {  // runtime.RawExtension{raw = 1}
      if (x.number == 1 && r.ExpectBytes(x)) object = x.bytes, has_object = true;
    });
  });
  if (!r.ok()) return InvalidArgumentError(kind + ": " + r.error());
  if (!has_object) return InvalidArgumentError(kind + ": missing or malformed object");
  api::WatchEvent<T> ev;
  if (type == "ERROR") {
    auto raw = Unwrap(object, "Status", api::kMaxObjectBytes);
    if (!raw.ok()) return raw.status().WithPrefix(kind);
    ev.type = api::WatchEventType::kError;
    ev.error = ReadStatus(*raw, 500);
    return ev;
  }
  if (type == "ADDED") {
    ev.type = api::WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    ev.type = api::WatchEventType::kModified;
  } else if (type == "DELETED") {
    ev.type = api::WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    ev.type = api::WatchEventType::kBookmark;
  } else {
    return InvalidArgumentError(kind + ": unknown event type \"" + type + "\"");
  }
  auto raw = Unwrap(object, api::KindName<T>(), api::kMaxObjectBytes);
  if (!raw.ok()) return raw.status().WithPrefix(kind);
  auto decoded = ReadRaw<T>(*raw);
  if (!decoded.ok()) return decoded.status().WithPrefix(kind);
  ev.resource_version = (*decoded)->metadata.resource_version;
  // A bookmark carries only a resourceVersion, as with JSON.
  if (ev.type != api::WatchEventType::kBookmark) ev.object = std::move(*decoded);
  return ev;
}

api::ApiStatus DecodeProtoApiStatus(std::string_view body, int32_t http_code) {
  auto raw = Unwrap(body, "Status", api::kMaxObjectBytes);
  if (!raw.ok()) return api::DecodeApiStatus(body, http_code);
  api::ApiStatus s = ReadStatus(*raw, http_code);
  if (s.message.empty() && s.reason.empty()) return api::DecodeApiStatus(body, http_code);
  return s;
}

#define STOWAGE_PROTO_DECODABLE(T)                                                \
  template StatusOr<api::T> DecodeProto<api::T>(std::string_view);                \
  template StatusOr<api::List<api::T>> DecodeProtoList<api::T>(std::string_view); \
  template StatusOr<api::WatchEvent<api::T>> DecodeProtoWatchEvent<api::T>(std::string_view);
STOWAGE_SCHEMA_KINDS(STOWAGE_PROTO_DECODABLE)
#undef STOWAGE_PROTO_DECODABLE

}  // namespace stowage::client
