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
    Scope(Reader& r, std::string_view key) : r_(r) { r_.path_.push_back({key, -1}); }
    Scope(Reader& r, int64_t index) : r_(r) { r_.path_.push_back({{}, index}); }
    ~Scope() { r_.path_.pop_back(); }
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
  std::string Path() const;

  std::vector<PathElem> path_;
  std::string error_;
};

// One reader per kind, overloaded on the output type: decode_schema.cc's, for every kind declared
// in pkg/api/schema/.
void Read(Reader& r, dom::object o, Pod& out);
void Read(Reader& r, dom::object o, Node& out);
void Read(Reader& r, dom::object o, PersistentVolume& out);
void Read(Reader& r, dom::object o, PersistentVolumeClaim& out);
void Read(Reader& r, dom::object o, StorageClass& out);
void Read(Reader& r, dom::object o, CSINode& out);
void Read(Reader& r, dom::object o, CSIDriver& out);
void Read(Reader& r, dom::object o, PodDisruptionBudget& out);
void Read(Reader& r, dom::object o, Namespace& out);
void Read(Reader& r, dom::object o, Service& out);
void Read(Reader& r, dom::object o, ReplicaSet& out);
void Read(Reader& r, dom::object o, StatefulSet& out);
void Read(Reader& r, dom::object o, ReplicationController& out);
void Read(Reader& r, dom::object o, Lease& out);
void Read(Reader& r, dom::object o, CSIStorageCapacity& out);
void Read(Reader& r, dom::object o, ResourceSlice& out);
void Read(Reader& r, dom::object o, ResourceClaim& out);
void Read(Reader& r, dom::object o, ResourceClaimTemplate& out);
void Read(Reader& r, dom::object o, DeviceClass& out);
void Read(Reader& r, dom::object o, DeviceTaintRule& out);

// The object o written back as JSON, whole but for what upstream's informers drop: kind and
// apiVersion (client-go clears them on decode) and metadata.managedFields (whole_json.cc).
std::string WholeObject(dom::object o);

}  // namespace stowage::api::decode_internal
