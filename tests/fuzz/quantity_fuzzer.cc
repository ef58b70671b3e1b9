// Fuzzes resource quantities (api::Quantity), parsed from every container's requests, limits and
// overhead and every node's capacity. A parsed quantity's String() must parse back to the same
// value (upstream's String() promises no more), and Value()/MilliValue() must agree with the exact
// value where it fits in int64.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "stowage/api/quantity.h"
#include "stowage/common/assert.h"

namespace {

using stowage::api::Quantity;

__int128 Magnitude(__int128 v) { return v < 0 ? -v : v; }

void CheckAccessors(const Quantity& q) {
  constexpr __int128 kNanosPerUnit = 1'000'000'000;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  __int128 mag = Magnitude(q.Nanos());
  // Whole units, rounded away from zero, wherever that fits in int64.
  __int128 units = (mag + kNanosPerUnit - 1) / kNanosPerUnit;
  if (units <= kMax) {
    int64_t expected = static_cast<int64_t>(units) * q.Sign();
    RELEASE_ASSERT(q.Value() == expected, "Value() is not the exact value rounded up");
  }
  __int128 millis = (mag + 999'999) / 1'000'000;
  if (millis <= kMax) {
    int64_t expected = static_cast<int64_t>(millis) * q.Sign();
    RELEASE_ASSERT(q.MilliValue() == expected, "MilliValue() is not the exact value rounded up");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Quantity::Parse(text);
  if (!q.ok()) return 0;
  CheckAccessors(*q);
  std::string printed = q->String();
  auto back = Quantity::Parse(printed);
  RELEASE_ASSERT(back.ok(), "String() of a parsed quantity does not parse");
  RELEASE_ASSERT(*back == *q, "String() of a parsed quantity parses to another value");
  // The text itself may change once: a binary quantity that is no whole number of Ki prints
  // without a suffix, as upstream's does ("312.5Ki" as "320000"), and reads back as decimal.
  return 0;
}
