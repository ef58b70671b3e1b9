// Fuzzes the snapshot reader of `stowage simulate` (simulate::Snapshot): a file of API objects
// as YAML or JSON, Lists flattened, pods admitted, then the what-if changes applied to what was
// read. Every input gives objects or an error, in bounded time and memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/simulate/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  stowage::simulate::Snapshot s;
  if (!s.Parse(text, "fuzz.yaml").ok()) return 0;
  (void)s.Objects();
  (void)s.Cordon("n1");
  (void)s.Drain("n1");
  (void)s.Remove("node/n2");
  (void)s.Remove("pod/default/p");
  (void)s.PendingPods();
  return 0;
}
