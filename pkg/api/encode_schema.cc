// The JSON-out engine of the schema: writes every kind declared in pkg/api/schema/*.txt by
// walking its generated table (schema_generated.h) over a const object, the counterpart of
// decode_schema.cc. Zero values (empty strings, lists and maps, 0, false, unset optionals) are
// left out, so what it writes decodes to the same object and carries no invented defaults.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/api/json_out.h"
#include "pkg/api/schema_generated.h"

namespace stowage::api {
namespace {

using schema::HasTable;
using schema::kIs;
using schema::kMap;
using schema::kOptional;
using schema::kVector;
using schema::Tag;

template <typename S>
requires HasTable<S>
void WriteStruct(std::string& out, const S& s);

// Whether a value is left out: Go's zero value of its type.
template <typename M>
bool IsZero(const M& m) {
  if constexpr (kIs<M, std::string> || kVector<M> || kMap<M> || kIs<M, StringMap> ||
                kIs<M, ResourceList>) {
    return m.empty();
  } else if constexpr (kOptional<M>) {
    return !m.has_value();
  } else if constexpr (kIs<M, bool>) {
    return !m;
  } else if constexpr (kIs<M, int32_t> || kIs<M, int64_t>) {
    return m == 0;
  } else if constexpr (kIs<M, Quantity>) {
    return m == Quantity();
  } else {
    return m == M();
  }
}

// Writes one value, whatever its key.
template <typename M>
void WriteValue(std::string& out, const M& m) {
  if constexpr (kIs<M, std::string>) {
    json_out::AppendString(out, m);
  } else if constexpr (kIs<M, bool>) {
    out += m ? "true" : "false";
  } else if constexpr (kIs<M, int32_t> || kIs<M, int64_t>) {
    json_out::AppendNumber(out, m);
  } else if constexpr (kIs<M, Quantity>) {
    json_out::AppendString(out, m.String());
  } else if constexpr (kIs<M, IntOrString>) {
    if (m.is_string) {
      json_out::AppendString(out, m.str_value);
    } else {
      json_out::AppendNumber(out, m.int_value);
    }
  } else if constexpr (kOptional<M>) {
    WriteValue(out, *m);
  } else if constexpr (kVector<M>) {
    out += '[';
    for (size_t i = 0; i < m.size(); ++i) {
      if (i > 0) out += ',';
      WriteValue(out, m[i]);
    }
    out += ']';
  } else if constexpr (kMap<M> || kIs<M, StringMap> || kIs<M, ResourceList>) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : m.entries()) {
      if (!first) out += ',';
      first = false;
      json_out::AppendString(out, key);
      out += ':';
      WriteValue(out, value);
    }
    out += '}';
  } else {
    WriteStruct(out, m);
  }
}

// The visitor of one JSON object (schema.h describes the contract). Keys go out as fields come;
// a group that turns out empty is taken back, and a one-of's set option with no kept fields of
// its own is written, empty, when the object closes.
class JsonOut {
 public:
  explicit JsonOut(std::string& out) : out_(out) {}

  void Open() { out_ += '{'; }
  void Close() {
    if (!present_.empty()) {
      Key(present_);
      out_ += "{}";
    }
    out_ += '}';
  }

  template <typename M>
  void Field(const Tag& tag, const M& m) {
    if (IsZero(m)) return;
    Key(tag.json);
    WriteValue(out_, m);
  }
  template <typename F>
  void Group(const Tag& tag, F&& f) {
    if (tag.json.empty()) return f(*this);  // an embedded struct: its fields are this object's
    Nested(tag.json, f, /*keep_empty=*/false);
  }
  template <typename C, typename F>
  void Each(const Tag& tag, const C& elements, F&& f) {
    if (elements.empty()) return;
    Key(tag.json);
    out_ += '[';
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out_ += ',';
      JsonOut element(out_);
      element.Open();
      f(element, elements[i]);
      element.Close();
    }
    out_ += ']';
  }
  void Present(std::span<const Tag>, const std::string& name) { present_ = name; }
  template <typename F>
  void Option(const Tag& tag, const std::string& name, F&& f) {
    if (name != tag.json) return;
    present_.clear();
    Nested(tag.json, f, /*keep_empty=*/true);
  }

 private:
  void Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    json_out::AppendString(out_, key);
    out_ += ':';
  }
  template <typename F>
  void Nested(std::string_view key, F&& f, bool keep_empty) {
    const size_t mark = out_.size();
    const bool was_first = first_;
    Key(key);
    const size_t opened = out_.size() + 1;
    JsonOut inner(out_);
    inner.Open();
    f(inner);
    inner.Close();
    if (!keep_empty && out_.size() == opened + 1) {  // "{}": nothing kept is set
      out_.resize(mark);
      first_ = was_first;
    }
  }

  std::string& out_;
  bool first_ = true;
  std::string present_;  // a one-of's set option not yet written
};

template <typename S>
requires HasTable<S>
void WriteStruct(std::string& out, const S& s) {
  JsonOut o(out);
  o.Open();
  schema::VisitFields(o, s);
  o.Close();
}

}  // namespace

template <typename T>
std::string EncodeJson(const T& object) {
  std::string out;
  WriteStruct(out, object);
  return out;
}

template <typename T>
std::string EncodeObject(const T& object) {
  std::string out = "{\"apiVersion\":";
  json_out::AppendString(out, schema::KindTags<T>::kApiVersion);
  out += ",\"kind\":";
  json_out::AppendString(out, KindName<T>());
  const size_t fields = out.size();
  WriteStruct(out, object);
  // The struct's own braces go: its fields, if any, follow kind.
  if (out.size() - fields == 2) {
    out.resize(fields);
  } else {
    out[fields] = ',';
    out.pop_back();
  }
  out += '}';
  return out;
}

#define STOWAGE_SCHEMA_WRITE(T)                 \
  template std::string EncodeJson<T>(const T&); \
  template std::string EncodeObject<T>(const T&);
STOWAGE_SCHEMA_KINDS(STOWAGE_SCHEMA_WRITE)
#undef STOWAGE_SCHEMA_WRITE

}  // namespace stowage::api
