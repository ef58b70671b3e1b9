#include "pkg/common/heap_trimmer.h"

#include <malloc.h>

#include <utility>

namespace stowage {

void TrimHeap() { malloc_trim(0); }

std::jthread StartHeapTrimmer(Duration period, std::function<void()> trim) {
  return std::jthread([period, trim = std::move(trim)](std::stop_token stop) {
    while (SleepFor(period, stop)) trim();
  });
}

}  // namespace stowage
