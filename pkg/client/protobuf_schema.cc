// The protobuf engine of the schema: reads every kind declared in pkg/api/schema/*.txt from the
// apiserver's protobuf encoding by walking its generated table (pkg/api/schema_generated.h)
// with VisitNumber, so it gives the structs the JSON engine (pkg/api/decode_schema.cc) gives for
// the same object. Fields are read as they come on the wire; a map, whose entries protobuf writes
// as repeated fields of its message, is read as one run of them.
#include <ctime>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "pkg/api/schema_generated.h"
#include "pkg/client/protobuf_objects.h"

namespace stowage::client::proto {
namespace {

using api::schema::HasTable;
using api::schema::kIs;
using api::schema::kOptional;
using api::schema::kOptionalMap;
using api::schema::kVector;
using api::schema::MapLike;
using api::schema::Tag;
using api::schema::Type;
using wire::Field;
using wire::WireReader;

// metav1.Time or MicroTime as JSON writes it (RFC 3339 in UTC, with microseconds for a
// MicroTime); a zero time leaves out empty, as JSON writes it as null.
void ReadTime(WireReader& r, const Field& field, bool micro, std::string& out) {
  if (!r.ExpectBytes(field) || field.bytes.empty()) return;
  int64_t seconds = 0;
  int32_t nanos = 0;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Int64(f, seconds);
    if (f.number == 2) r.Int32(f, nanos);
  });
  // RFC 3339 has four-digit years, so Go cannot write a time outside them as JSON either.
  constexpr int64_t kYear1 = -62135596800, kAfterYear9999 = 253402300800;
  if (seconds < kYear1 || seconds >= kAfterYear9999) return r.Fail("time out of range");
  if (nanos < 0 || nanos > 999'999'999) return r.Fail("time's nanoseconds out of range");
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  // Written digit by digit: every object carries times, and snprintf cost 2% of a Pod's decode.
  char buf[32];
  char* p = buf;
  auto digits = [&p](int v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) p[i] = static_cast<char>('0' + v % 10);
    p += width;
  };
  digits(tm.tm_year + 1900, 4);
  *p++ = '-';
  digits(tm.tm_mon + 1, 2);
  *p++ = '-';
  digits(tm.tm_mday, 2);
  *p++ = 'T';
  digits(tm.tm_hour, 2);
  *p++ = ':';
  digits(tm.tm_min, 2);
  *p++ = ':';
  digits(tm.tm_sec, 2);
  if (micro) {
    *p++ = '.';
    digits(nanos / 1000, 6);
  }
  *p++ = 'Z';
  out.assign(buf, p);
}

// resource.Quantity{string = 1}; name, when given, is the map key its errors name.
void ReadQuantity(WireReader& r, const Field& field, api::Quantity& out,
                  std::string_view name = {}) {
  std::string_view text;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1 && r.ExpectBytes(f)) text = f.bytes;
  });
  if (!r.ok()) return;
  auto q = api::Quantity::Parse(text);
  if (!q.ok()) {
    if (name.empty()) return r.Fail(q.status().message());
    return r.Fail(std::string(name) + ": " + std::string(q.status().message()));
  }
  out = *q;
}

// intstr.IntOrString{type = 1, intVal = 2, strVal = 3}.
void ReadIntOrString(WireReader& r, const Field& field, api::IntOrString& out) {
  int64_t type = 0;
  r.Sub(field, [&](const Field& f) {
    if (f.number == 1) r.Int64(f, type);
    if (f.number == 2) r.Int32(f, out.int_value);
    if (f.number == 3) r.Str(f, out.str_value);
  });
  out.is_string = type == 1;
}

template <typename S>
void ReadMessage(WireReader& r, std::string_view bytes, S& out);

// Reads one value that is not a map (a scalar, a list element, a map entry's value) into out.
template <typename M>
void ReadValue(WireReader& r, const Field& f, const Tag& tag, M& out) {
  if constexpr (kIs<M, std::string>) {
    if (tag.type == Type::kTime || tag.type == Type::kMicroTime) {
      ReadTime(r, f, tag.type == Type::kMicroTime, out);
    } else {
      r.Str(f, out);
    }
  } else if constexpr (kIs<M, bool>) {
    r.Bool(f, out);
  } else if constexpr (kIs<M, int32_t>) {
    r.Int32(f, out);
  } else if constexpr (kIs<M, int64_t>) {
    r.Int64(f, out);
  } else if constexpr (kIs<M, api::Quantity>) {
    ReadQuantity(r, f, out);
  } else if constexpr (kIs<M, api::IntOrString>) {
    ReadIntOrString(r, f, out);
  } else {
    static_assert(HasTable<M>, "the protobuf engine reads no value of this type");
    if (r.ExpectBytes(f)) ReadMessage(r, f.bytes, out);
  }
}

// Reads a map field's entries into out: f and the entries that follow it on the wire, which is
// how Go writes a map; the walk resumes past the last. Entries that come again later, after
// other fields, are merged in when the walk reaches them.
template <typename M>
void ReadMap(WireReader& r, std::string_view message, const Field& f, const Tag& tag, M& out) {
  std::vector<typename M::Entry> entries(out.entries().begin(), out.entries().end());
  auto read_entry = [&](const Field& entry, int64_t index) {
    auto& e = entries.emplace_back();
    r.Sub(
        entry,
        [&](const Field& kv) {
          if (kv.number == 1) r.Str(kv, e.first);
          if (kv.number != 2) return;
          if constexpr (kIs<M, api::StringMap>) {
            r.Str(kv, e.second);
          } else if constexpr (kIs<M, api::ResourceList>) {
            ReadQuantity(r, kv, e.second, e.first);
          } else if constexpr (kIs<typename M::mapped_type, std::vector<std::string>>) {
            // A list value is a message of its own whose field 1 repeats (authentication/v1
            // ExtraValue).
            r.Sub(kv, [&](const Field& item) {
              if (item.number == 1) r.Str(item, e.second.emplace_back());
            });
          } else {
            ReadValue(r, kv, tag, e.second);
          }
        },
        index);
  };
  if (!r.ExpectBytes(f)) return;
  read_entry(f, 0);
  size_t pos = static_cast<size_t>(f.bytes.data() + f.bytes.size() - message.data());
  Field next;
  for (int64_t index = 1; r.Peek(message, pos, next) && next.number == f.number; ++index) {
    if (!r.ExpectBytes(next)) return;
    read_entry(next, index);
    r.ResumeAt(next.bytes.data() + next.bytes.size());
  }
  if (r.ok()) out = M(std::move(entries));
}

// The visitor of one field of a message (pkg/api/schema.h describes the contract).
class ProtoIn {
 public:
  ProtoIn(WireReader& r, std::string_view message, const Field& f)
      : r_(r), message_(message), f_(f) {}

  template <typename M>
  void Field(const Tag& tag, M& out) {
    if constexpr (MapLike<M>) {
      ReadMap(r_, message_, f_, tag, out);
    } else if constexpr (kOptionalMap<M>) {
      ReadMap(r_, message_, f_, tag, out ? *out : out.emplace());
    } else if constexpr (kOptional<M>) {
      ReadValue(r_, f_, tag, out.emplace());
      // A zero time is absent, as JSON writes it as null.
      if constexpr (kIs<M, std::optional<std::string>>) {
        if (tag.type != Type::kString && out->empty()) out.reset();
      }
    } else if constexpr (kVector<M>) {
      ReadValue(r_, f_, tag, out.emplace_back());
    } else {
      ReadValue(r_, f_, tag, out);
    }
  }
  template <typename F>
  void Group(const Tag&, F&& f) {
    if (!r_.ExpectBytes(f_)) return;
    const std::string_view bytes = f_.bytes;
    r_.Each(bytes, [&](const wire::Field& inner) {
      ProtoIn in(r_, bytes, inner);
      f(in, inner.number);
    });
  }
  template <typename C, typename F>
  void Each(const Tag& tag, C& out, F&& f) {
    auto& element = out.emplace_back();
    Group(tag, [&](ProtoIn& in, uint32_t n) { return f(in, element, n); });
  }
  void Present(const Tag& tag, std::string& name) {
    if (name.empty()) name = tag.json;
  }
  template <typename F>
  void Option(const Tag& tag, const std::string& name, F&& f) {
    if (name == tag.json) Group(tag, f);
  }

 private:
  WireReader& r_;
  std::string_view message_;  // the message f_ is a field of
  const wire::Field& f_;
};

template <typename S>
void ReadMessage(WireReader& r, std::string_view bytes, S& out) {
  r.Each(bytes, [&](const Field& f) {
    ProtoIn in(r, bytes, f);
    api::schema::VisitNumber(in, out, f.number);
  });
  api::schema::Finish(out);
}

}  // namespace

template <typename T>
void ReadObject(WireReader& r, std::string_view bytes, T& out) {
  ReadMessage(r, bytes, out);
}

#define STOWAGE_PROTO_READ(T) template void ReadObject(WireReader&, std::string_view, api::T&);
STOWAGE_SCHEMA_KINDS(STOWAGE_PROTO_READ)
#undef STOWAGE_PROTO_READ

}  // namespace stowage::client::proto
