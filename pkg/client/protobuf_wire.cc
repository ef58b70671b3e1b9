#include "pkg/client/protobuf_wire.h"

namespace stowage::client::wire {

void WireReader::Fail(std::string_view what) {
  if (!error_.empty()) return;
  error_ = "field ";
  for (int i = 0; i < depth_; ++i) {
    if (i > 0) error_ += '.';
    error_ += std::to_string(path_[i]);
    if (index_[i] >= 0) error_ += "[" + std::to_string(index_[i]) + "]";
  }
  if (depth_ == 0) error_ = "message";
  error_ += ": ";
  error_ += what;
}

bool WireReader::LongVarint(std::string_view bytes, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.size()) {
      Fail("truncated varint");
      return false;
    }
    const auto b = static_cast<uint8_t>(bytes[pos++]);
    out |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  Fail("varint longer than ten bytes");
  return false;
}

bool WireReader::Invalid(uint64_t) {
  Fail("invalid field number");
  return false;
}

bool WireReader::Overrun(uint64_t len, size_t left) {
  Fail("length " + std::to_string(len) + " runs past the end of the message (" +
       std::to_string(left) + " bytes left)");
  return false;
}

bool WireReader::Fixed(std::string_view bytes, size_t& pos, const Field& f) {
  if (f.wire_type != kFixed64 && f.wire_type != kFixed32) {
    Fail("unsupported wire type " + std::to_string(f.wire_type));
    return false;
  }
  const size_t n = f.wire_type == kFixed64 ? 8 : 4;
  if (n > bytes.size() - pos) {
    Fail("truncated fixed-size value");
    return false;
  }
  pos += n;
  return true;
}

bool WireReader::ExpectBytes(const Field& field) {
  if (field.wire_type == kBytes) return true;
  Fail("expected a length-delimited field");
  return false;
}

void WireReader::Str(const Field& field, std::string& out) {
  if (ExpectBytes(field)) out.assign(field.bytes);
}

void WireReader::Int64(const Field& field, int64_t& out) {
  if (field.wire_type != kVarint) return Fail("expected a varint");
  out = static_cast<int64_t>(field.varint);
}

void WireReader::Int32(const Field& field, int32_t& out) {
  if (field.wire_type != kVarint) return Fail("expected a varint");
  // int32 is sign-extended to 64 bits on the wire; the low half is the value.
  out = static_cast<int32_t>(static_cast<uint32_t>(field.varint));
}

void WireReader::Bool(const Field& field, bool& out) {
  if (field.wire_type != kVarint) return Fail("expected a varint");
  out = field.varint != 0;
}

}  // namespace stowage::client::wire
