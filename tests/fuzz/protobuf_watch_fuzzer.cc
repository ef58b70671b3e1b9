// Fuzzes the protobuf side of lists and watches as the client reads them: the response bytes are
// cut into frames by client::ProtoFrameSplitter (pkg/client/protobuf_decode.h), delivered in two
// chunks split where the first input byte says, and each frame is decoded as a Pod and as a Node
// watch event; the whole input is also decoded as an object (a Pod, a Node, and the two DRA kinds
// whose maps of objects and nested lists reach the rest of the protobuf engine), a list and an
// error Status. The
// frame limit is small here so that oversized frames are reached.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/client/protobuf_decode.h"
#include "stowage/api/types.h"
#include "stowage/common/assert.h"

namespace {

using namespace stowage;

template <typename T>
void DecodeFrame(std::string_view frame) {
  auto ev = client::DecodeProtoWatchEvent<T>(frame);
  // An object event always carries its object, which the informer's store dereferences.
  if (ev.ok() &&
      (ev->type == api::WatchEventType::kAdded || ev->type == api::WatchEventType::kModified ||
       ev->type == api::WatchEventType::kDeleted)) {
    RELEASE_ASSERT(ev->object != nullptr, "object event without an object");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)client::DecodeProto<api::Pod>(stream);
  (void)client::DecodeProto<api::Node>(stream);
  (void)client::DecodeProto<api::ResourceSlice>(stream);
  (void)client::DecodeProto<api::ResourceClaim>(stream);
  (void)client::DecodeProtoList<api::Pod>(stream);
  (void)client::DecodeProtoList<api::Node>(stream);
  (void)client::DecodeProtoApiStatus(stream, 410);
  size_t cut = data[0] % size;
  cut = cut < stream.size() ? cut : stream.size();
  constexpr size_t kLimit = 64 << 10;
  client::ProtoFrameSplitter frames(kLimit);
  auto on_frame = [](std::string_view frame) {
    DecodeFrame<api::Pod>(frame);
    DecodeFrame<api::Node>(frame);
    return true;
  };
  if (!frames.Feed(stream.substr(0, cut), on_frame).ok()) return 0;
  Status fed = frames.Feed(stream.substr(cut), on_frame);
  RELEASE_ASSERT(!fed.ok() || frames.pending() < kLimit + 4,
                 "unfinished frame held past the limit");
  return 0;
}
