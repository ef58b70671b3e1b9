// A bounded reader of the protobuf wire format, for the objects the apiserver sends as
// application/vnd.kubernetes.protobuf (pkg/client/protobuf_decode.h).
//
// WireReader walks one message's bytes field by field; nested messages are read by a child scope
// of the same reader, so one error and one path of field numbers serve a whole object. Untrusted
// input is bounded: every length is checked against the bytes that remain, nesting deeper than
// kMaxWireDepth is refused, groups and unknown wire types are errors, and unknown fields are
// skipped without being looked at. The first error is kept, names the path of field numbers
// (e.g. "field 2.2[0].8.2: truncated"), and stops the walk; nothing throws. Not thread-safe: one
// reader per decode.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stowage::client::wire {

// A Pod nests at most ~10 messages deep along the fields stowage reads; anything far deeper
// is malformed.
inline constexpr int kMaxWireDepth = 32;

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// One field as read from the wire: its number and, by wire type, its varint or its bytes.
struct Field {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;
  std::string_view bytes;
};

class WireReader {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Records "field <path>: <what>" unless an earlier error was recorded.
  void Fail(std::string_view what);

  // Calls f(const Field&) for each field of the message in bytes, in wire order, with the
  // field's number on the path while f runs. Stops at the first error.
  template <typename F>
  void Each(std::string_view bytes, F&& f) {
    if (depth_ >= kMaxWireDepth) return Fail("nested deeper than the limit");
    ++depth_;
    size_t pos = 0;
    Field field;
    resume_[depth_ - 1] = nullptr;
    while (ok() && pos < bytes.size()) {
      if (!Next(bytes, pos, field)) break;
      path_[depth_ - 1] = field.number;
      index_[depth_ - 1] = -1;
      f(static_cast<const Field&>(field));
      if (const char* r = resume_[depth_ - 1]) {
        pos = static_cast<size_t>(r - bytes.data());
        resume_[depth_ - 1] = nullptr;
      }
    }
    --depth_;
  }

  // Reads the field at pos of a message whose fields are being walked, for a caller that reads
  // a run of fields ahead of the walk (a map's entries); false at the end or on an error.
  bool Peek(std::string_view bytes, size_t& pos, Field& out) {
    return ok() && pos < bytes.size() && Next(bytes, pos, out);
  }
  // Continues the innermost walk at end, a point past the current field in the same message,
  // once the callback returns: the fields a caller read ahead with Peek are not read again.
  void ResumeAt(const char* end) {
    if (depth_ > 0) resume_[depth_ - 1] = end;
  }

  // Reads field as a nested message, calling f for each of its fields. index, when not
  // negative, is the element's position in a repeated field (for the error path only).
  template <typename F>
  void Sub(const Field& field, F&& f, int64_t index = -1) {
    if (!ExpectBytes(field)) return;
    if (depth_ > 0) index_[depth_ - 1] = index;
    Each(field.bytes, f);
  }

  // Scalars; a field of the wrong wire type records an error.
  void Str(const Field& field, std::string& out);
  void Int64(const Field& field, int64_t& out);
  void Int32(const Field& field, int32_t& out);
  void Bool(const Field& field, bool& out);
  bool ExpectBytes(const Field& field);

 private:
  // Reads one tag and its value at pos; false (with an error) on malformed input. Inline with a
  // one-byte fast path: nearly every tag and length the apiserver writes is one byte.
  bool Next(std::string_view bytes, size_t& pos, Field& out) {
    uint64_t tag = 0;
    if (!Varint(bytes, pos, tag)) return false;
    out.number = static_cast<uint32_t>(tag >> 3);
    out.wire_type = static_cast<uint32_t>(tag & 7);
    if (out.number == 0 || (tag >> 3) > 0x1fffffff) return Invalid(tag);
    // The field's number is on the path for the errors below.
    if (depth_ > 0) path_[depth_ - 1] = out.number, index_[depth_ - 1] = -1;
    if (out.wire_type == kVarint) return Varint(bytes, pos, out.varint);
    if (out.wire_type != kBytes) return Fixed(bytes, pos, out);
    uint64_t len = 0;
    if (!Varint(bytes, pos, len)) return false;
    if (len > bytes.size() - pos) return Overrun(len, bytes.size() - pos);
    out.bytes = bytes.substr(pos, len);
    pos += len;
    return true;
  }
  bool Varint(std::string_view bytes, size_t& pos, uint64_t& out) {
    if (pos < bytes.size() && static_cast<uint8_t>(bytes[pos]) < 0x80) {
      out = static_cast<uint8_t>(bytes[pos++]);
      return true;
    }
    return LongVarint(bytes, pos, out);
  }
  bool LongVarint(std::string_view bytes, size_t& pos, uint64_t& out);
  bool Fixed(std::string_view bytes, size_t& pos, const Field& f);  // fixed32, fixed64, others
  bool Invalid(uint64_t tag);
  bool Overrun(uint64_t len, size_t left);

  int depth_ = 0;
  uint32_t path_[kMaxWireDepth] = {};
  int64_t index_[kMaxWireDepth] = {};
  const char* resume_[kMaxWireDepth] = {};  // ResumeAt's point per walk, null when none
  std::string error_;
};

}  // namespace stowage::client::wire
