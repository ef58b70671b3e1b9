// KeyedMutex: holders of one key take turns, holders of different keys do not wait for each
// other, and a key's mutex goes once nobody holds or waits for it.
#include "pkg/common/keyed_mutex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "tests/testing/eventually.h"

namespace stowage::keyed_mutex_test {
namespace {

using stowage::testing::Eventually;

TEST(KeyedMutexTest, OneKeyTakesTurnsAndOtherKeysDoNotWait) {
  KeyedMutex locks;
  std::optional<KeyedMutex::Lock> held(std::in_place, locks, "claim-a");
  std::atomic<bool> same_key{false}, other_key{false};
  std::thread waiter([&] {
    KeyedMutex::Lock l(locks, "claim-a");
    same_key = true;
  });
  std::thread other([&] {
    KeyedMutex::Lock l(locks, "claim-b");
    other_key = true;
  });
  EXPECT_TRUE(Eventually([&] { return other_key.load(); }))
      << "a holder of another key waited for claim-a's";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(same_key) << "two holders of claim-a at once";
  held.reset();
  EXPECT_TRUE(Eventually([&] { return same_key.load(); }));
  waiter.join();
  other.join();
  EXPECT_EQ(locks.SizeForTest(), 0u) << "a key's mutex outlived its holders";
}

TEST(KeyedMutexTest, ManyThreadsOnOneKeyNeverOverlap) {
  KeyedMutex locks;
  int inside = 0, most = 0, total = 0;  // written only under the key's mutex
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        KeyedMutex::Lock l(locks, "shared");
        most = std::max(most, ++inside);
        ++total;
        --inside;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(most, 1);
  EXPECT_EQ(total, 1600);
  EXPECT_EQ(locks.SizeForTest(), 0u);
}

}  // namespace
}  // namespace stowage::keyed_mutex_test
