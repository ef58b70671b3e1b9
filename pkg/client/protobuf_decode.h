// Decoding of objects, their lists and their watch streams from the apiserver's protobuf
// encoding (application/vnd.kubernetes.protobuf), into exactly the structs pkg/api/decode.h makes
// of the same objects as JSON: both are engines over the one schema of pkg/api/schema. The
// apiserver keeps its objects encoded as protobuf, so a protobuf client saves it a second encoding
// of every event.
//
// The bytes are the apiserver's: "k8s\0" followed by runtime.Unknown{typeMeta, raw,
// contentEncoding, contentType}, raw holding the object (or PodList/NodeList); a watch stream is
// frames of a 4-byte big-endian length followed by a metav1.WatchEvent{type, object: raw}, raw
// being an envelope of the object (or of a Status for ERROR). Only the fields the JSON decoder
// reads are kept; unknown fields are skipped. Input is untrusted and bounded like the JSON
// decoder's (pkg/api/decode.h limits); errors name the kind and the path of field numbers, e.g.
// `Pod default/web-0: field 2.2[0].8.2: ...`. All functions are thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pkg/api/decode.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

namespace stowage::client {

// The Accept header of a watch whose frames are decoded by DecodeProtoWatchEvent.
inline constexpr std::string_view kProtobufWatch =
    "application/vnd.kubernetes.protobuf;stream=watch";

// Whether data starts as the apiserver's protobuf envelope ("k8s\0").
inline bool IsProtobufEnvelope(std::string_view data) {
  return data.substr(0, 4) == std::string_view("k8s\0", 4);
}

// T is any kind of pkg/api/schema (STOWAGE_SCHEMA_KINDS).
template <typename T>
StatusOr<T> DecodeProto(std::string_view data);
template <typename T>
StatusOr<api::List<T>> DecodeProtoList(std::string_view data);
// One frame of a watch stream, without its length prefix.
template <typename T>
StatusOr<api::WatchEvent<T>> DecodeProtoWatchEvent(std::string_view frame);

// An error body (a Status in the envelope); a body that is not one is read as the JSON decoder
// reads it, so a proxy's page still yields a message.
api::ApiStatus DecodeProtoApiStatus(std::string_view body, int32_t http_code);

// Turns the bytes of a watch response, as they arrive, into whole frames. A frame announced
// larger than max_frame is an error before any of it is buffered. Not thread-safe.
class ProtoFrameSplitter {
 public:
  explicit ProtoFrameSplitter(size_t max_frame) : max_frame_(max_frame) {}

  // Feeds bytes; calls on_frame for each complete frame (without its length). Stops early and
  // returns OK if on_frame returns false (stopped() is then true).
  template <typename F>
  Status Feed(std::string_view data, F&& on_frame) {
    buffer_.append(data);
    size_t pos = 0;
    Status st;
    while (!stopped_) {
      if (buffer_.size() - pos < 4) break;
      const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + pos);
      const size_t len = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
      if (len > max_frame_) {
        st = ResourceExhaustedError("watch frame of " + std::to_string(len) +
                                    " bytes exceeds the limit of " + std::to_string(max_frame_) +
                                    " bytes");
        break;
      }
      if (buffer_.size() - pos - 4 < len) break;
      if (!on_frame(std::string_view(buffer_).substr(pos + 4, len))) stopped_ = true;
      pos += 4 + len;
    }
    buffer_.erase(0, pos);
    return st;
  }
  bool stopped() const { return stopped_; }
  // Bytes of an unfinished frame.
  size_t pending() const { return buffer_.size(); }

 private:
  size_t max_frame_;
  std::string buffer_;
  bool stopped_ = false;
};

}  // namespace stowage::client
