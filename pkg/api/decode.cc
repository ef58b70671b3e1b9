// The decode entry points and the field reader. Kind-specific readers live in decode_core.cc
// (metadata, pods, nodes, selectors) and decode_schema.cc (every kind declared in
// pkg/api/schema/).
#include "pkg/api/decode.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "pkg/api/decode_internal.h"
#include "pkg/api/json_out.h"
#include "pkg/api/schema_generated.h"

namespace stowage::api {

// Kind names are specialised before any template below uses them.
#define STOWAGE_KIND_NAME(T)       \
  template <>                      \
  std::string_view KindName<T>() { \
    return #T;                     \
  }
STOWAGE_SCHEMA_KINDS(STOWAGE_KIND_NAME)
#undef STOWAGE_KIND_NAME

namespace dom = simdjson::dom;
using decode_internal::Reader;

namespace decode_internal {

void Reader::Fail(std::string_view what) {
  if (!error_.empty()) return;
  error_ = Path();
  if (!error_.empty()) error_ += ": ";
  error_ += what;
}

std::string Reader::Path() const {
  std::string p;
  for (size_t i = 0; i < std::min(depth_, kMaxPath); ++i) {
    const PathElem& e = path_[i];
    if (e.index >= 0) {
      p += '[';
      p += std::to_string(e.index);
      p += ']';
    } else {
      if (!p.empty()) p += '.';
      p += e.key;
    }
  }
  return p;
}

bool Reader::Get(dom::object o, std::string_view key, dom::element& out) {
  if (o.at_key(key).get(out) != simdjson::SUCCESS) return false;
  return !out.is_null();
}

bool Reader::GetObject(dom::object o, std::string_view key, dom::object& out) {
  dom::element e;
  if (!Get(o, key, e)) return false;
  if (e.get_object().get(out) != simdjson::SUCCESS) {
    Scope s(*this, key);
    Fail("expected an object");
    return false;
  }
  return true;
}

void Reader::ReadString(dom::element e, std::string& out) {
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return Fail("expected a string");
  out.assign(v);
}

void Reader::Str(dom::object o, std::string_view key, std::string& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  ReadString(e, out);
}

void Reader::OptStr(dom::object o, std::string_view key, std::optional<std::string>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  ReadString(e, out.emplace());
}

void Reader::Int64(dom::object o, std::string_view key, int64_t& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  if (e.get_int64().get(out) != simdjson::SUCCESS) Fail("expected a 64-bit integer");
}

void Reader::OptInt64(dom::object o, std::string_view key, std::optional<int64_t>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Int64(o, key, out.emplace());
}

void Reader::Int32(dom::object o, std::string_view key, int32_t& out) {
  int64_t v = out;
  Int64(o, key, v);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    Scope s(*this, key);
    return Fail("integer out of 32-bit range");
  }
  out = static_cast<int32_t>(v);
}

void Reader::OptInt32(dom::object o, std::string_view key, std::optional<int32_t>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Int32(o, key, out.emplace());
}

void Reader::Bool(dom::object o, std::string_view key, bool& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  if (e.get_bool().get(out) != simdjson::SUCCESS) Fail("expected a boolean");
}

void Reader::OptBool(dom::object o, std::string_view key, std::optional<bool>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Bool(o, key, out.emplace());
}

void Reader::Strings(dom::object o, std::string_view key, std::vector<std::string>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  dom::array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return Fail("expected an array of strings");
  out.reserve(a.size());
  int64_t i = 0;
  for (dom::element item : a) {
    Scope si(*this, i++);
    ReadString(item, out.emplace_back());
  }
}

void Reader::Map(dom::object o, std::string_view key, StringMap& out) {
  dom::object m;
  if (!GetObject(o, key, m)) return;
  Scope s(*this, key);
  std::vector<StringMap::Entry> entries;
  entries.reserve(m.size());
  for (auto field : m) {
    if (field.value.is_null()) continue;
    std::string_view v;
    if (field.value.get_string().get(v) != simdjson::SUCCESS) {
      Scope sk(*this, field.key);
      return Fail("expected a string");
    }
    entries.emplace_back(std::string(field.key), std::string(v));
  }
  out = StringMap(std::move(entries));
}

void Reader::OptResources(dom::object o, std::string_view key, std::optional<ResourceList>& out) {
  dom::object m;
  if (!GetObject(o, key, m)) return;
  Resources(o, key, out.emplace());
}

void Reader::Resources(dom::object o, std::string_view key, ResourceList& out) {
  dom::object m;
  if (!GetObject(o, key, m)) return;
  Scope s(*this, key);
  std::vector<ResourceList::Entry> entries;
  entries.reserve(m.size());
  for (auto field : m) {
    Scope sk(*this, field.key);
    Quantity q;
    ReadQuantity(field.value, q);
    if (!ok()) return;
    entries.emplace_back(std::string(field.key), q);
  }
  out = ResourceList(std::move(entries));
}

void Reader::ReadQuantity(dom::element e, Quantity& out) {
  // Quantities are strings on the wire; upstream also accepts bare integers.
  std::string_view text;
  std::string number;
  int64_t i = 0;
  if (e.get_string().get(text) == simdjson::SUCCESS) {
  } else if (e.get_int64().get(i) == simdjson::SUCCESS) {
    number = std::to_string(i);
    text = number;
  } else {
    return Fail("expected a quantity string");
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) return Fail(q.status().message());
  out = *q;
}

void Reader::Quant(dom::object o, std::string_view key, Quantity& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  ReadQuantity(e, out);
}

void Reader::IntOrStr(dom::object o, std::string_view key, std::optional<IntOrString>& out) {
  dom::element e;
  if (!Get(o, key, e)) return;
  Scope s(*this, key);
  IntOrString v;
  std::string_view str;
  int64_t i = 0;
  if (e.get_string().get(str) == simdjson::SUCCESS) {
    v.is_string = true;
    v.str_value.assign(str);
  } else if (e.get_int64().get(i) == simdjson::SUCCESS && i >= INT32_MIN && i <= INT32_MAX) {
    v.int_value = static_cast<int32_t>(i);
  } else {
    return Fail("expected an integer or a string");
  }
  out = std::move(v);
}

}  // namespace decode_internal

namespace {

// One parser per thread: its buffers are reused across documents, so steady-state decoding
// allocates only the output structs.
dom::parser& ThreadParser() {
  thread_local dom::parser parser = [] {
    dom::parser p(kMaxListBytes);
    // A failed pre-allocation is retried by parse(), which reports the error.
    [[maybe_unused]] auto ec = p.allocate(1 << 16, kMaxNestingDepth);
    return p;
  }();
  return parser;
}

Status ParseError(std::string_view kind, simdjson::error_code ec, size_t size) {
  if (ec == simdjson::DEPTH_ERROR) {
    return InvalidArgumentError(std::string(kind) + ": JSON nested deeper than " +
                                std::to_string(kMaxNestingDepth) + " levels");
  }
  if (ec == simdjson::CAPACITY) {
    return ResourceExhaustedError(std::string(kind) + ": document of " + std::to_string(size) +
                                  " bytes is too large");
  }
  return InvalidArgumentError(std::string(kind) +
                              ": malformed JSON: " + simdjson::error_message(ec));
}

StatusOr<dom::element> Parse(std::string_view kind, std::string_view json, size_t limit) {
  if (json.size() > limit) {
    return ResourceExhaustedError(std::string(kind) + ": document of " +
                                  std::to_string(json.size()) + " bytes exceeds the limit of " +
                                  std::to_string(limit) + " bytes");
  }
  dom::element root;
  auto ec = ThreadParser().parse(json.data(), json.size(), true).get(root);
  if (ec != simdjson::SUCCESS) return ParseError(kind, ec, json.size());
  return root;
}

// "Pod default/web-0" or "Pod" when the name is not known, for error messages.
std::string Describe(std::string_view kind, const ObjectMeta& meta) {
  std::string d(kind);
  if (!meta.name.empty()) {
    d += ' ';
    d += NamespacedName(meta);
  }
  return d;
}

template <typename T>
StatusOr<std::shared_ptr<const T>> ReadObject(dom::object o, Keep keep) {
  Reader r;
  auto out = std::make_shared<T>();
  decode_internal::Read(r, o, *out);
  if (!r.ok()) {
    return InvalidArgumentError(Describe(KindName<T>(), out->metadata) + ": " + r.error());
  }
  if constexpr (std::is_same_v<T, Pod> || std::is_same_v<T, Node>) {
    if (keep == Keep::kWhole) {
      out->whole.json = std::make_shared<const std::string>(decode_internal::WholeObject(o));
    }
  }
  return std::shared_ptr<const T>(std::move(out));
}

template <typename T>
StatusOr<std::shared_ptr<const T>> ReadObject(dom::element e, Keep keep) {
  dom::object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(KindName<T>()) + ": expected a JSON object");
  }
  return ReadObject<T>(o, keep);
}

}  // namespace

template <typename T>
StatusOr<T> Decode(std::string_view json, Keep keep) {
  auto root = Parse(KindName<T>(), json, kMaxObjectBytes);
  if (!root.ok()) return root.status();
  auto obj = ReadObject<T>(*root, keep);
  if (!obj.ok()) return obj.status();
  return T(**obj);
}

template <typename T>
StatusOr<List<T>> DecodeList(std::string_view json, Keep keep) {
  std::string kind = std::string(KindName<T>()) + "List";
  auto root = Parse(kind, json, kMaxListBytes);
  if (!root.ok()) return root.status();
  dom::object o;
  if (root->get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError(kind + ": expected a JSON object");
  }
  List<T> list;
  Reader r;
  r.Obj(o, "metadata", [&](dom::object m) {
    r.Str(m, "resourceVersion", list.resource_version);
    r.Str(m, "continue", list.continue_token);
  });
  dom::element items;
  if (r.Get(o, "items", items)) {
    dom::array a;
    if (items.get_array().get(a) != simdjson::SUCCESS) {
      return InvalidArgumentError(kind + ": items: expected an array");
    }
    list.items.reserve(a.size());
    size_t i = 0;
    for (dom::element item : a) {
      auto obj = ReadObject<T>(item, keep);
      if (!obj.ok()) return obj.status().WithPrefix(kind + ": items[" + std::to_string(i) + "]");
      list.items.push_back(std::move(*obj));
      ++i;
    }
  }
  if (!r.ok()) return InvalidArgumentError(kind + ": " + r.error());
  return list;
}

namespace {
ApiStatus ReadApiStatus(dom::object o, int32_t http_code) {
  ApiStatus s;
  s.code = http_code;
  Reader r;
  r.Int32(o, "code", s.code);
  r.Str(o, "reason", s.reason);
  r.Str(o, "message", s.message);
  return s;
}
}  // namespace

template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(std::string_view json, Keep keep) {
  std::string kind = std::string(KindName<T>()) + " watch event";
  auto root = Parse(kind, json, kMaxObjectBytes);
  if (!root.ok()) return root.status();
  dom::object o;
  if (root->get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError(kind + ": expected a JSON object");
  }
  Reader r;
  std::string type;
  r.Str(o, "type", type);
  dom::object obj;
  if (!r.ok() || !r.GetObject(o, "object", obj)) {
    return InvalidArgumentError(kind + ": missing or malformed object");
  }
  WatchEvent<T> ev;
  if (type == "ADDED") {
    ev.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    ev.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    ev.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    ev.type = WatchEventType::kBookmark;
    r.Obj(obj, "metadata",
          [&](dom::object m) { r.Str(m, "resourceVersion", ev.resource_version); });
    if (!r.ok()) return InvalidArgumentError(kind + ": " + r.error());
    return ev;
  } else if (type == "ERROR") {
    ev.type = WatchEventType::kError;
    ev.error = ReadApiStatus(obj, 500);
    return ev;
  } else {
    return InvalidArgumentError(kind + ": unknown event type \"" + type + "\"");
  }
  auto decoded = ReadObject<T>(obj, keep);
  if (!decoded.ok()) return decoded.status().WithPrefix(kind);
  ev.resource_version = (*decoded)->metadata.resource_version;
  ev.object = std::move(*decoded);
  return ev;
}

ApiStatus DecodeApiStatus(std::string_view body, int32_t http_code) {
  auto root = Parse("Status", body, kMaxObjectBytes);
  dom::object o;
  if (root.ok() && root->get_object().get(o) == simdjson::SUCCESS) {
    ApiStatus s = ReadApiStatus(o, http_code);
    if (!s.message.empty() || !s.reason.empty()) return s;
  }
  ApiStatus s;
  s.code = http_code;
  // Not a Status: keep a bounded, printable prefix of whatever the server sent.
  for (char c : body.substr(0, 200)) s.message += (c >= 0x20 && c < 0x7f) ? c : ' ';
  return s;
}

StatusOr<std::vector<std::string>> DecodeStrings(std::string_view json) {
  auto root = Parse("string list", json, kMaxObjectBytes);
  if (!root.ok()) return root.status();
  dom::array a;
  if (root->get_array().get(a) != simdjson::SUCCESS) {
    return InvalidArgumentError("string list: expected an array of strings");
  }
  Reader r;
  std::vector<std::string> out;
  out.reserve(a.size());
  int64_t i = 0;
  for (dom::element item : a) {
    Reader::Scope s(r, i++);
    r.ReadString(item, out.emplace_back());
    if (!r.ok()) return InvalidArgumentError("string list: " + r.error());
  }
  return out;
}

StatusOr<std::string> OverlayObject(std::string_view base, std::string_view overlay) {
  // One parser holds one document: overlay's members are written out before base is parsed.
  auto top = Parse("overlay", overlay, kMaxObjectBytes);
  if (!top.ok()) return top.status();
  dom::object o;
  if (top->get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError("overlay: expected a JSON object");
  }
  std::vector<std::pair<std::string, std::string>> members;
  for (auto field : o) {
    std::string value;
    decode_internal::AppendJson(value, field.value);
    members.emplace_back(std::string(field.key), std::move(value));
  }
  auto root = Parse("object", base, kMaxObjectBytes);
  if (!root.ok()) return root.status();
  if (root->get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError("object: expected a JSON object");
  }
  std::vector<bool> written(members.size(), false);
  std::string out = "{";
  auto append = [&](std::string_view key, auto&& write_value) {
    if (out.size() > 1) out += ',';
    json_out::AppendString(out, key);
    out += ':';
    write_value();
  };
  for (auto field : o) {
    size_t m = 0;
    while (m < members.size() && members[m].first != field.key) ++m;
    if (m < members.size()) {
      append(field.key, [&] { out += members[m].second; });
      written[m] = true;
    } else {
      append(field.key, [&] { decode_internal::AppendJson(out, field.value); });
    }
  }
  for (size_t m = 0; m < members.size(); ++m) {
    if (!written[m]) append(members[m].first, [&] { out += members[m].second; });
  }
  out += '}';
  return out;
}

#define STOWAGE_DECODABLE(T)                                        \
  template StatusOr<T> Decode<T>(std::string_view, Keep);           \
  template StatusOr<List<T>> DecodeList<T>(std::string_view, Keep); \
  template StatusOr<WatchEvent<T>> DecodeWatchEvent<T>(std::string_view, Keep);
STOWAGE_SCHEMA_KINDS(STOWAGE_DECODABLE)
#undef STOWAGE_DECODABLE

}  // namespace stowage::api
