// RateLimiter: a token bucket of `burst` tokens refilled at `qps` per second, shared by every
// request of one client (client-go's flowcontrol.NewTokenBucketRateLimiter). Thread-safe.
// Reserve() takes a token and says how long to wait for it, so waiting happens outside the lock
// and tests can drive it with a FakeClock.
#pragma once

#include <stop_token>

#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::client {

class RateLimiter {
 public:
  // qps <= 0 disables limiting.
  RateLimiter(double qps, int burst, Clock& clock = RealClock());

  // Takes one token; returns how long the caller must wait before using it (zero if available).
  Duration Reserve();
  // Reserve() and sleep; returns false if stop was requested while waiting.
  bool Wait(std::stop_token stop = {});

 private:
  const double qps_;
  const double burst_;
  Clock& clock_;
  Mutex mu_;
  double tokens_ GUARDED_BY(mu_);
  MonoTime last_ GUARDED_BY(mu_);
};

}  // namespace stowage::client
