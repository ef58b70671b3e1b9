// Fuzzes a watch stream as the client and the informers read it: the response bytes are cut into
// lines by client::LineSplitter (pkg/client/line_splitter.h), delivered in two chunks split where
// the first input byte says, and each line is decoded as a watch event of the kinds the informers
// watch (api::DecodeWatchEvent). The line limit is small here so that over-long lines are reached.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/api/decode.h"
#include "pkg/client/line_splitter.h"
#include "stowage/api/types.h"
#include "stowage/common/assert.h"

namespace {

using namespace stowage::api;

template <typename... Kinds>
bool DecodeLine(std::string_view line) {
  (void)DecodeApiStatus(line, 410);
  (
      [&] {
        auto ev = DecodeWatchEvent<Kinds>(line);
        // An object event always carries its object, which the informer's store dereferences.
        if (ev.ok() &&
            (ev->type == WatchEventType::kAdded || ev->type == WatchEventType::kModified ||
             ev->type == WatchEventType::kDeleted)) {
          RELEASE_ASSERT(ev->object != nullptr, "object event without an object");
        }
      }(),
      ...);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t cut = data[0] % size;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  cut = cut < stream.size() ? cut : stream.size();
  stowage::client::LineSplitter lines(64 << 10);
  auto on_line = [](std::string_view line) {
    return DecodeLine<Pod, Node, PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
                      CSIDriver, PodDisruptionBudget, Namespace, Service, ReplicaSet, StatefulSet,
                      ReplicationController, Lease>(line);
  };
  if (!lines.Feed(stream.substr(0, cut), on_line).ok()) return 0;
  (void)lines.Feed(stream.substr(cut), on_line);
  RELEASE_ASSERT(lines.pending() <= (64 << 10), "unfinished line held past the limit");
  return 0;
}
