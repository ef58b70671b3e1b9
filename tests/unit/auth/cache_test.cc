// ExpiringCache (per-entry TTL, LRU bound) and SingleFlight (shared concurrent calls).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "pkg/auth/expiring_cache.h"
#include "pkg/auth/single_flight.h"

namespace stowage::auth::cache_test {
namespace {

using std::chrono::seconds;

TEST(ExpiringCache, EntriesExpireAfterTheirOwnTtl) {
  FakeClock clock;
  ExpiringCache<int> c(clock, 10);
  c.Set("short", 1, seconds(5));
  c.Set("long", 2, seconds(20));
  clock.Advance(seconds(4));
  EXPECT_EQ(c.Get("short"), 1);
  clock.Advance(seconds(1));
  EXPECT_EQ(c.Get("short"), std::nullopt);
  EXPECT_EQ(c.Get("long"), 2);
  clock.Advance(seconds(15));
  EXPECT_EQ(c.Get("long"), std::nullopt);
  EXPECT_EQ(c.size(), 0u);
}

TEST(ExpiringCache, ZeroTtlStoresNothing) {
  FakeClock clock;
  ExpiringCache<int> c(clock, 10);
  c.Set("k", 1, Duration::zero());
  EXPECT_EQ(c.Get("k"), std::nullopt);
}

TEST(ExpiringCache, LeastRecentlyUsedEntryGoesWhenFull) {
  FakeClock clock;
  ExpiringCache<int> c(clock, 2);
  c.Set("a", 1, seconds(10));
  c.Set("b", 2, seconds(10));
  EXPECT_EQ(c.Get("a"), 1);  // a is now the most recently used
  c.Set("c", 3, seconds(10));
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.Get("b"), std::nullopt);
  EXPECT_EQ(c.Get("a"), 1);
  EXPECT_EQ(c.Get("c"), 3);
}

TEST(ExpiringCache, SetReplacesValueAndExpiry) {
  FakeClock clock;
  ExpiringCache<int> c(clock, 2);
  c.Set("a", 1, seconds(1));
  c.Set("a", 2, seconds(10));
  clock.Advance(seconds(5));
  EXPECT_EQ(c.Get("a"), 2);
  EXPECT_EQ(c.size(), 1u);
}

TEST(SingleFlight, ConcurrentCallersShareOneExecution) {
  SingleFlight<int> flights;
  std::atomic<int> runs{0};
  std::atomic<bool> release{false};
  constexpr int kFollowers = 8;
  std::thread leader([&] {
    bool shared = true;
    int v = flights.Do(
        "k",
        [&] {
          ++runs;
          while (!release.load()) std::this_thread::yield();
          return 42;
        },
        &shared);
    EXPECT_EQ(v, 42);
    EXPECT_FALSE(shared);
  });
  while (runs.load() == 0) std::this_thread::yield();
  std::vector<std::thread> followers;
  std::atomic<int> shared_count{0};
  for (int i = 0; i < kFollowers; ++i) {
    followers.emplace_back([&] {
      bool shared = false;
      int v = flights.Do(
          "k",
          [&] {
            ++runs;
            return 7;
          },
          &shared);
      EXPECT_EQ(v, 42);
      if (shared) ++shared_count;
    });
  }
  // Let the leader finish only once every follower waits on its call.
  while (flights.WaitersForTest("k") < kFollowers) std::this_thread::yield();
  release = true;
  leader.join();
  for (auto& t : followers) t.join();
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(shared_count.load(), kFollowers);
}

TEST(SingleFlight, DifferentKeysRunSeparatelyAndKeysAreForgottenAfterwards) {
  SingleFlight<int> flights;
  int runs = 0;
  EXPECT_EQ(flights.Do("a", [&] { return ++runs; }), 1);
  EXPECT_EQ(flights.Do("b", [&] { return ++runs; }), 2);
  EXPECT_EQ(flights.Do("a", [&] { return ++runs; }), 3);
}

}  // namespace
}  // namespace stowage::auth::cache_test
