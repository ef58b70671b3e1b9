// Backoff: exponential backoff with a cap and optional jitter, as client-go's wait.Backoff and
// the reflector's backoff manager use it. Not thread-safe; each retry loop owns one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "stowage/common/clock.h"
#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

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

// client-go's retry.DefaultBackoff: 4 attempts, 10 ms apart growing five-fold, 10% jitter.
inline constexpr int kDefaultRetryAttempts = 4;
inline constexpr std::chrono::milliseconds kDefaultRetryInitial{10};
inline constexpr double kDefaultRetryFactor = 5.0;
inline constexpr double kDefaultRetryJitter = 0.1;

// Calls fn until it succeeds, retriable rejects its error, or kDefaultRetryAttempts calls were
// made, sleeping the DefaultBackoff on clock in between (client-go's retry.OnError with
// DefaultBackoff). Returns the last result.
Status RetryOnError(Clock& clock, const std::function<bool(const Status&)>& retriable,
                    const std::function<Status()>& fn);

}  // namespace stowage

#pragma GCC visibility pop
