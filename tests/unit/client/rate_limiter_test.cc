#include "pkg/client/rate_limiter.h"

#include <gtest/gtest.h>

namespace stowage::client::rate_limiter_test {
namespace {

using std::chrono::milliseconds;

TEST(RateLimiter, AllowsABurstThenPacesAtQps) {
  FakeClock clock;
  RateLimiter rl(10, 3, clock);  // 10/s, burst 3
  EXPECT_EQ(rl.Reserve(), Duration::zero());
  EXPECT_EQ(rl.Reserve(), Duration::zero());
  EXPECT_EQ(rl.Reserve(), Duration::zero());
  // The fourth and fifth requests wait one and two token periods (100 ms each).
  EXPECT_NEAR(std::chrono::duration<double>(rl.Reserve()).count(), 0.1, 1e-6);
  EXPECT_NEAR(std::chrono::duration<double>(rl.Reserve()).count(), 0.2, 1e-6);
}

TEST(RateLimiter, RefillsOverTimeUpToTheBurst) {
  FakeClock clock;
  RateLimiter rl(10, 2, clock);
  rl.Reserve();
  rl.Reserve();
  clock.Advance(std::chrono::seconds(10));  // far more than needed: capped at burst 2
  EXPECT_EQ(rl.Reserve(), Duration::zero());
  EXPECT_EQ(rl.Reserve(), Duration::zero());
  EXPECT_GT(rl.Reserve(), Duration::zero());
}

TEST(RateLimiter, ZeroQpsMeansUnlimited) {
  FakeClock clock;
  RateLimiter rl(0, 1, clock);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(rl.Reserve(), Duration::zero());
}

TEST(RateLimiter, WaitReturnsEarlyWhenStopped) {
  RateLimiter rl(0.001, 1);  // one token per 1000 s
  rl.Reserve();
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(rl.Wait(stop.get_token()));
}

}  // namespace
}  // namespace stowage::client::rate_limiter_test
