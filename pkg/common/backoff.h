// Backoff: exponential backoff with a cap and optional jitter, as client-go's wait.Backoff and
// the reflector's backoff manager use it. Not thread-safe; each retry loop owns one.
#pragma once

#include <chrono>
#include <cstdint>

#include "pkg/common/clock.h"

namespace stowage {

class Backoff {
 public:
  // initial: first delay; max: the cap; factor: growth per step; jitter: each delay is
  // stretched by a random fraction in [0, jitter) so many clients do not retry in lockstep.
  Backoff(Duration initial, Duration max, double factor = 2.0, double jitter = 0.0);

  // The delay before the next attempt; grows by factor up to max.
  Duration Next();
  // Back to the initial delay, after a success.
  void Reset() { current_ = initial_; }
  // The delay Next() would start from, without jitter.
  Duration Current() const { return current_; }

 private:
  Duration initial_;
  Duration max_;
  double factor_;
  double jitter_;
  Duration current_;
  uint64_t rng_state_;
};

}  // namespace stowage
