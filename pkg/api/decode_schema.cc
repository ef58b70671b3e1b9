// The JSON engine of the schema: reads every kind declared in pkg/api/schema/*.txt by walking
// its generated table (schema_generated.h) with the field reader of decode_internal.h. Maps with
// values of their own (Map<V>) and lists of quantities are read here from the elements' values.
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "pkg/api/decode_internal.h"
#include "pkg/api/schema_generated.h"

namespace stowage::api::decode_internal {
namespace {

using schema::HasTable;
using schema::kIs;
using schema::kMap;
using schema::kOptional;
using schema::kVector;
using schema::Tag;

template <typename S>
requires HasTable<S>
void ReadStruct(Reader& r, dom::object o, S& out);

template <typename S>
concept Object = requires(Reader& r, dom::object o, S& s) {
  ReadStruct(r, o, s);
};

// Reads a value that has no key of its own (a list element, a map value) into out, inside the
// caller's path scope: a string (or a time), a quantity, an object with a reader, or a list of
// them.
template <typename M>
void ReadElement(Reader& r, dom::element e, M& out) {
  if constexpr (kIs<M, std::string>) {
    r.ReadString(e, out);
  } else if constexpr (kIs<M, Quantity>) {
    r.ReadQuantity(e, out);
  } else if constexpr (kVector<M>) {  // a list of such values (of quantities; a map's values)
    dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS) return r.Fail("expected an array");
    out.reserve(a.size());
    int64_t i = 0;
    for (dom::element item : a) {
      Reader::Scope si(r, i++);
      ReadElement(r, item, out.emplace_back());
      if (!r.ok()) return;
    }
  } else {
    static_assert(Object<M>, "the schema engine reads no list elements or map values of this type");
    dom::object o;
    if (e.get_object().get(o) != simdjson::SUCCESS) return r.Fail("expected an object");
    ReadStruct(r, o, out);
  }
}

// Reads the map at key: one entry per non-null member of the JSON object.
template <typename V>
void ReadMap(Reader& r, dom::object o, std::string_view key, Map<V>& out) {
  r.Obj(o, key, [&](dom::object m) {
    std::vector<typename Map<V>::Entry> entries;
    entries.reserve(m.size());
    for (auto field : m) {
      if (field.value.is_null()) continue;
      Reader::Scope s(r, field.key);
      ReadElement(r, field.value, entries.emplace_back(std::string(field.key), V{}).second);
      if (!r.ok()) return;
    }
    out = Map<V>(std::move(entries));
  });
}

// Reads the list of scalars at key (lists of strings have a reader of their own).
template <typename E>
void ReadScalars(Reader& r, dom::object o, std::string_view key, std::vector<E>& out) {
  dom::element e;
  if (!r.Get(o, key, e)) return;
  Reader::Scope s(r, key);
  ReadElement(r, e, out);
}

// Reads the kept value at key into out, by the C++ type of its member; any other type fails
// to compile.
template <typename M>
void ReadField(Reader& r, dom::object o, std::string_view key, M& out) {
  if constexpr (kIs<M, std::string>) {
    r.Str(o, key, out);
  } else if constexpr (kIs<M, std::optional<std::string>>) {
    r.OptStr(o, key, out);
  } else if constexpr (kIs<M, int32_t>) {
    r.Int32(o, key, out);
  } else if constexpr (kIs<M, std::optional<int32_t>>) {
    r.OptInt32(o, key, out);
  } else if constexpr (kIs<M, int64_t>) {
    r.Int64(o, key, out);
  } else if constexpr (kIs<M, std::optional<int64_t>>) {
    r.OptInt64(o, key, out);
  } else if constexpr (kIs<M, bool>) {
    r.Bool(o, key, out);
  } else if constexpr (kIs<M, std::optional<bool>>) {
    r.OptBool(o, key, out);
  } else if constexpr (kIs<M, std::vector<std::string>>) {
    r.Strings(o, key, out);
  } else if constexpr (kIs<M, StringMap>) {
    r.Map(o, key, out);
  } else if constexpr (kIs<M, ResourceList>) {
    r.Resources(o, key, out);
  } else if constexpr (kIs<M, std::optional<ResourceList>>) {
    r.OptResources(o, key, out);
  } else if constexpr (kIs<M, std::optional<IntOrString>>) {
    r.IntOrStr(o, key, out);
  } else if constexpr (kIs<M, Quantity>) {
    r.Quant(o, key, out);
  } else if constexpr (kIs<M, std::optional<Quantity>>) {
    dom::element e;
    if (r.Get(o, key, e)) r.Quant(o, key, out.emplace());
  } else if constexpr (kIs<M, std::vector<Quantity>>) {
    ReadScalars(r, o, key, out);
  } else if constexpr (kMap<M>) {
    ReadMap(r, o, key, out);
  } else if constexpr (Object<M>) {
    r.Obj(o, key, [&](dom::object c) { ReadStruct(r, c, out); });
  } else if constexpr (kOptional<M>) {
    r.Obj(o, key, [&](dom::object c) { ReadStruct(r, c, out.emplace()); });
  } else {
    r.Arr(o, key, [&](dom::object e) { ReadStruct(r, e, out.emplace_back()); });
  }
}

// The visitor of one JSON object (schema.h describes the contract).
class JsonIn {
 public:
  JsonIn(Reader& r, dom::object o) : r_(r), o_(o) {}

  template <typename M>
  void Field(const Tag& tag, M& out) {
    ReadField(r_, o_, tag.json, out);
  }
  template <typename F>
  void Group(const Tag& tag, F&& f) {
    if (tag.json.empty()) return f(*this);  // an embedded struct: its fields are this object's
    r_.Obj(o_, tag.json, [&](dom::object c) {
      JsonIn in(r_, c);
      f(in);
    });
  }
  template <typename C, typename F>
  void Each(const Tag& tag, C& out, F&& f) {
    r_.Arr(o_, tag.json, [&](dom::object e) {
      JsonIn in(r_, e);
      f(in, out.emplace_back());
    });
  }
  // One pass over the object's keys, not a lookup per option: a volume has some thirty.
  void Present(std::span<const Tag> options, std::string& name) {
    for (auto field : o_) {
      if (field.value.is_null()) continue;
      for (const Tag& t : options) {
        if (t.json == field.key) {
          name = t.json;
          return;
        }
      }
    }
  }
  template <typename F>
  void Option(const Tag& tag, const std::string& name, F&& f) {
    if (name == tag.json) Group(tag, f);
  }

 private:
  Reader& r_;
  dom::object o_;
};

template <typename S>
requires HasTable<S>
void ReadStruct(Reader& r, dom::object o, S& out) {
  JsonIn in(r, o);
  schema::VisitFields(in, out);
  schema::Finish(out);
}

}  // namespace

template <typename T>
void Read(Reader& r, dom::object o, T& out) {
  ReadStruct(r, o, out);
}

#define STOWAGE_SCHEMA_READ(T) template void Read(Reader&, dom::object, T&);
STOWAGE_SCHEMA_KINDS(STOWAGE_SCHEMA_READ)
#undef STOWAGE_SCHEMA_READ

}  // namespace stowage::api::decode_internal
