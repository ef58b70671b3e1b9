// The heap trimmer: its loop, and what a trim gives back to the kernel.
#include "pkg/common/heap_trimmer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "tests/testing/eventually.h"

namespace stowage::heap_trimmer_test {
namespace {

using namespace std::chrono_literals;

// The process's resident set in bytes (/proc/self/statm).
long ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

TEST(HeapTrimmer, TrimsEveryPeriodUntilStopped) {
  std::atomic<int> trims{0};
  {
    std::jthread trimmer = StartHeapTrimmer(1ms, [&] { ++trims; });
    EXPECT_TRUE(testing::Eventually([&] { return trims.load() >= 3; }));
  }
  const int after_stop = trims.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(trims.load(), after_stop);
}

// Churn leaves free chunks below a live one at the top of a thread's arena: free() cannot give
// them back, a trim does.
TEST(HeapTrimmer, TrimGivesBackWhatFreeKeeps) {
  constexpr size_t kChunks = 32 * 1024, kChunk = 1024;  // 32 MiB
  long kept = 0, trimmed = 0;
  std::thread churn([&] {
    std::vector<char*> chunks;
    for (size_t i = 0; i < kChunks; ++i) {
      chunks.push_back(static_cast<char*>(std::malloc(kChunk)));
      chunks.back()[0] = 1;  // touched, so resident
      for (size_t b = 0; b < kChunk; b += 256) chunks.back()[b] = 1;
    }
    for (size_t i = 0; i + 1 < kChunks; ++i) std::free(chunks[i]);
    const long before = ResidentBytes();
    TrimHeap();
    const long after = ResidentBytes();
    kept = before;
    trimmed = before - after;
    std::free(chunks.back());
  });
  churn.join();
  EXPECT_GT(trimmed, 16L << 20) << "resident before the trim: " << kept;
}

}  // namespace
}  // namespace stowage::heap_trimmer_test
