// Fuzzes the decoders of extender answers (pkg/extender/wire.h), which read what an outside
// service sends during the scheduling cycle. The input is one JSON document decoded as each of
// the four answers (filter, prioritize, bind, preempt), so seeds can be real answers. Every input
// must give a value or an error (nlohmann's exceptions caught inside), nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/extender/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  namespace ext = stowage::extender;
  (void)ext::DecodeFilterResult(body);
  (void)ext::DecodeHostPriorityList(body);
  (void)ext::DecodeBindingResult(body);
  (void)ext::DecodePreemptionResult(body);
  return 0;
}
