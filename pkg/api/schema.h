// The schema of the compact API structs: which upstream field each member holds.
//
// pkg/api/schema/*.txt declares, per struct of types.h, the upstream fields it keeps;
// tests/cluster/cmd/schemagen resolves them on k8s.io/api's Go types at the pinned release and
// writes schema_generated.h, which gives each declared struct S:
//
//   struct STags { static constexpr Tag k...; };   one Tag per upstream field crossed
//   template <typename V, Is<S> T> void VisitFields(V& v, T& o);
//   template <typename V, Is<S> T> bool VisitNumber(V& v, T& o, uint32_t number);
//
// T is S or const S, so one table serves decoders and encoders. A codec is a visitor V with
//   v.Field(tag, member)          a kept value: a scalar, a list, a map, or an object whose
//                                 struct has its own table (or a hand-written reader)
//   v.Group(tag, f)               an upstream object the struct flattens (spec, or an inline
//                                 embedded struct, whose tag.json is empty): f visits its fields
//   v.Each(tag, container, f)     an upstream list the struct flattens into a list of lists:
//                                 f visits the fields of one element into one container element
//   v.Present(options, name)      the fields of a one-of object (a volume's sources), as a
//                                 std::span<const Tag>: name becomes the JSON name of the
//                                 first one present
//   v.Option(tag, name, f)        an option whose fields the struct keeps: f visits them when
//                                 name is tag.json (a visitor may visit them regardless)
// VisitNumber names a present option with v.Present(tag, name) (name, when still empty, becomes
// tag.json) and enters it with v.Group.
// VisitFields calls f as f(v') and f(v', element); VisitNumber, which a protobuf reader calls
// with the number of each field it meets, calls only the field with that number and passes f
// the next number instead: f(v', n) and f(v', element, n), each returning whether n is kept.
// VisitNumber returns false for a number the struct does not keep (the reader skips it).
//
// An engine calls Finish(s) once it has read a struct s (schema::Finish below).
//
// A member whose C++ type cannot hold the upstream value (an int for a string, a struct other
// than the declared one) fails to compile, at a static_assert naming the declaration's line.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::api::schema {

// Protobuf wire types, by their numbers on the wire.
enum class Wire : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// What an upstream value is, beyond its wire type (a time and a string are both kLen).
enum class Type : uint8_t {
  kString,
  kBool,
  kInt32,
  kInt64,
  kTime,          // metav1.Time: RFC 3339 in JSON, a Timestamp message in protobuf
  kMicroTime,     // metav1.MicroTime
  kQuantity,      // resource.Quantity
  kIntOrString,   // intstr.IntOrString
  kStringMap,     // map[string]string
  kResourceList,  // map[ResourceName]Quantity
  kMessage,       // an object
};

// One upstream field: its JSON name (empty for an embedded struct JSON inlines), protobuf
// number and wire type, the type of its value (of its elements, for a list; of its values, for a
// map), whether it is a list (for a map: whether its values are lists, which protobuf wraps in a
// message whose field 1 repeats), and whether it is a map from string keys (a Map<V> member; in
// protobuf, repeated entries of key 1 and value 2). kStringMap and kResourceList are single
// values, not maps.
struct Tag {
  std::string_view json;
  uint32_t number;
  Wire wire;
  Type type;
  bool list;
  bool map;
};

// T is S, const or not: the visitor functions take either.
template <typename T, typename S>
concept Is = std::same_as<std::remove_const_t<T>, S>;

namespace fits_internal {
template <typename M>
struct Unwrap {
  using type = M;
  static constexpr bool kVector = false;
};
template <typename M>
struct Unwrap<std::optional<M>> : Unwrap<M> {};
template <typename E>
struct Unwrap<std::vector<E>> {
  using type = E;
  static constexpr bool kVector = true;
};
template <typename M>
constexpr bool kIsMap = false;
template <typename V>
constexpr bool kIsMap<Map<V>> = true;
}  // namespace fits_internal

// Whether a member of C++ type M can hold an upstream value of type t; list says the value is a
// list, lists how many lists its path crossed (each a level of std::vector), map that it is a
// map (a Map<V> whose V holds a t, or a list of t when list is also set), and S is the declared
// struct of a kMessage. std::optional is
// accepted at every level (a pointer upstream).
template <typename M, Type t, bool list, int lists, typename S, bool map = false>
constexpr bool Fits() {
  using U = fits_internal::Unwrap<M>;
  if constexpr (map && lists == 0) {  // a map of values, or of lists of values when list is set
    using V = typename fits_internal::Unwrap<std::remove_cvref_t<M>>::type;
    if constexpr (!U::kVector && fits_internal::kIsMap<V>) {
      return Fits<typename V::mapped_type, t, list, 0, S>();
    } else {
      return false;
    }
  } else if constexpr (lists > 0 || list) {
    if constexpr (!U::kVector) {
      return false;
    } else if constexpr (lists > 0) {
      return Fits<typename U::type, t, list, lists - 1, S, map>();
    } else {
      return Fits<typename U::type, t, false, 0, S, map>();
    }
  } else {
    using V = typename fits_internal::Unwrap<std::remove_cvref_t<M>>::type;
    if constexpr (fits_internal::Unwrap<M>::kVector) {
      return false;
    } else if constexpr (t == Type::kString || t == Type::kTime || t == Type::kMicroTime) {
      return std::is_same_v<V, std::string>;
    } else if constexpr (t == Type::kBool) {
      return std::is_same_v<V, bool>;
    } else if constexpr (t == Type::kInt32) {
      return std::is_same_v<V, int32_t>;
    } else if constexpr (t == Type::kInt64) {
      return std::is_same_v<V, int64_t>;
    } else if constexpr (t == Type::kQuantity) {
      return std::is_same_v<V, Quantity>;
    } else if constexpr (t == Type::kIntOrString) {
      return std::is_same_v<V, IntOrString>;
    } else if constexpr (t == Type::kStringMap) {
      return std::is_same_v<V, StringMap>;
    } else if constexpr (t == Type::kResourceList) {
      return std::is_same_v<V, ResourceList>;
    } else {
      return std::is_same_v<V, S>;
    }
  }
}

// What the engines ask of a member's C++ type.
template <typename M, typename E>
inline constexpr bool kIs = std::is_same_v<M, E>;
template <typename M>
inline constexpr bool kOptional = false;
template <typename E>
inline constexpr bool kOptional<std::optional<E>> = true;
template <typename M>
inline constexpr bool kVector = false;
template <typename E>
inline constexpr bool kVector<std::vector<E>> = true;
template <typename M>
inline constexpr bool kMap = false;
template <typename V>
inline constexpr bool kMap<Map<V>> = true;
// A map kept whole: Map<V>, StringMap or ResourceList.
template <typename M>
concept MapLike = kMap<M> || kIs<M, StringMap> || kIs<M, ResourceList>;
template <typename M>
inline constexpr bool kOptionalMap = false;
template <MapLike M>
inline constexpr bool kOptionalMap<std::optional<M>> = true;

// A visitor that accepts every call, for asking whether a struct has a generated table.
struct AnyVisitor {
  template <typename M>
  void Field(const Tag&, M&);
  template <typename F>
  void Group(const Tag&, F&&);
  template <typename C, typename F>
  void Each(const Tag&, C&, F&&);
  void Present(std::span<const Tag>, std::string&);
  void Present(const Tag&, std::string&);
  template <typename F>
  void Option(const Tag&, std::string&, F&&);
};

// S has a generated table (VisitFields and VisitNumber, found by argument-dependent lookup in
// schema_generated.h).
template <typename S>
concept HasTable = requires(AnyVisitor& v, S& s) {
  VisitFields(v, s);
  VisitNumber(v, s, 1u);
};

// A kind's Tags also hold its apiVersion ("storage.k8s.io/v1", as client-go's scheme registers
// it): KindTags<T>::kApiVersion. The generated TagsOf(Kind<T>) overloads, declared for decltype
// only, map a kind to its Tags; members of the Tags structs stay internal to the program, where a
// variable template's specialisations were exported to plugin libraries.
template <typename T>
struct Kind {};
template <typename T>
using KindTags = decltype(TagsOf(Kind<T>()));

// kubectl's client-side apply copy of the whole object: it can be large and nothing in a
// scheduler reads it, so ObjectMeta drops it.
inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// What a struct needs once read: what the API server would have defaulted (for objects written by
// hand), and what is dropped after reading. Defined for the structs that need it (types.cc).
void AfterRead(ObjectMeta& m);     // drops kLastAppliedAnnotation
void AfterRead(ContainerPort& p);  // protocol defaults to TCP

// Every engine calls this after reading a struct.
template <typename S>
void Finish(S& s) {
  if constexpr (requires { AfterRead(s); }) AfterRead(s);
}

}  // namespace stowage::api::schema
