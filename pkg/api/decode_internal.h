// Private to pkg/api: the field reader shared by the decode_*.cc files.
//
// Reader walks a simdjson DOM and copies fields into the structs of types.h. A missing key and a
// JSON null both mean "absent" (the API omits empty fields). A value of the wrong type records an
// error naming the field path and the problem; decoding then carries on cheaply and the caller
// reports the first error. The path is a stack of string views into literals and JSON keys, so
// tracking it costs no allocation unless an error is built.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/decode.h"
#include "stowage/api/types.h"

namespace stowage::api::decode_internal {

namespace dom = simdjson::dom;

class Reader {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Records "<path>: <what>" unless an earlier error was recorded.
  void Fail(std::string_view what);

  // Pushes a path element for the lifetime of the scope.
  class Scope {
   public:
    Scope(Reader& r, std::string_view key) : r_(r) { r_.Push({key, -1}); }
    Scope(Reader& r, int64_t index) : r_(r) { r_.Push({{}, index}); }
    ~Scope() { --r_.depth_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Reader& r_;
  };

  // The value at key, if present and not null.
  bool Get(dom::object o, std::string_view key, dom::element& out);
  // The object at key, if present; a non-object records an error.
  bool GetObject(dom::object o, std::string_view key, dom::object& out);

  void Str(dom::object o, std::string_view key, std::string& out);
  void OptStr(dom::object o, std::string_view key, std::optional<std::string>& out);
  void Int32(dom::object o, std::string_view key, int32_t& out);
  void OptInt32(dom::object o, std::string_view key, std::optional<int32_t>& out);
  void Int64(dom::object o, std::string_view key, int64_t& out);
  void OptInt64(dom::object o, std::string_view key, std::optional<int64_t>& out);
  void Bool(dom::object o, std::string_view key, bool& out);
  void OptBool(dom::object o, std::string_view key, std::optional<bool>& out);
  void Strings(dom::object o, std::string_view key, std::vector<std::string>& out);
  void Map(dom::object o, std::string_view key, StringMap& out);
  void Resources(dom::object o, std::string_view key, ResourceList& out);
  // Like Resources, but leaves out unset when the key is absent or null.
  void OptResources(dom::object o, std::string_view key, std::optional<ResourceList>& out);
  void IntOrStr(dom::object o, std::string_view key, std::optional<IntOrString>& out);
  void Quant(dom::object o, std::string_view key, Quantity& out);

  // Values that are not under a key of their own (list elements, map values), read inside the
  // caller's path scope.
  void ReadString(dom::element e, std::string& out);
  void ReadQuantity(dom::element e, Quantity& out);

  // Calls f(object) for the object at key, inside its path scope.
  template <typename F>
  void Obj(dom::object o, std::string_view key, F&& f) {
    dom::object child;
    if (!GetObject(o, key, child)) return;
    Scope s(*this, key);
    f(child);
  }

  // Calls f(object, index) for each element of the array of objects at key.
  template <typename F>
  void Arr(dom::object o, std::string_view key, F&& f) {
    dom::element e;
    if (!Get(o, key, e)) return;
    Scope s(*this, key);
    dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS) return Fail("expected an array");
    int64_t i = 0;
    for (dom::element item : a) {
      Scope si(*this, i++);
      if (item.is_null()) continue;
      dom::object obj;
      if (item.get_object().get(obj) != simdjson::SUCCESS) {
        Fail("expected an object");
        continue;
      }
      f(obj);
      if (!ok()) return;
    }
  }

 private:
  struct PathElem {
    std::string_view key;
    int64_t index;
  };
  // A fixed array, not a vector: a scope is entered per field read, and a vector cost a Pod's
  // decode an allocation and 6% of its time. The parser's depth limit bounds the scopes (a key
  // and an index per level); any beyond the array are counted but not named.
  static constexpr size_t kMaxPath = 2 * kMaxNestingDepth + 2;
  void Push(PathElem e) {
    if (depth_ < kMaxPath) path_[depth_] = e;
    ++depth_;
  }
  std::string Path() const;

  PathElem path_[kMaxPath];
  size_t depth_ = 0;
  std::string error_;
};

// Reads kind T: decode_schema.cc instantiates it for every kind declared in pkg/api/schema/
// (STOWAGE_SCHEMA_KINDS).
template <typename T>
void Read(Reader& r, dom::object o, T& out);

// The object o written back as JSON, whole but for what upstream's informers drop: kind and
// apiVersion (client-go clears them on decode) and metadata.managedFields (whole_json.cc).
std::string WholeObject(dom::object o);
// Appends the value e as compact JSON, unchanged but for Go's escaping of strings.
void AppendJson(std::string& out, dom::element e);

}  // namespace stowage::api::decode_internal
