#include "stowage/common/backoff.h"

#include <algorithm>

#include "pkg/common/random.h"

namespace stowage {

Backoff::Backoff(Duration initial, Duration max, double factor, double jitter)
    : initial_(initial),
      max_(max),
      factor_(factor),
      jitter_(jitter),
      current_(initial),
      rng_state_(ThreadRandom() | 1u) {}

Duration Backoff::Next() {
  Duration d = current_;
  auto grown = std::chrono::duration_cast<Duration>(current_ * factor_);
  current_ = std::min(grown, max_);
  if (jitter_ > 0) {
    // xorshift64: cheap, and jitter needs no cryptographic quality.
    rng_state_ ^= rng_state_ << 13;
    rng_state_ ^= rng_state_ >> 7;
    rng_state_ ^= rng_state_ << 17;
    double frac = static_cast<double>(rng_state_ % 10000) / 10000.0 * jitter_;
    d += std::chrono::duration_cast<Duration>(d * frac);
  }
  return d;
}

Status RetryOnError(Clock& clock, const std::function<bool(const Status&)>& retriable,
                    const std::function<Status()>& fn) {
  Backoff backoff(kDefaultRetryInitial, Duration::max(), kDefaultRetryFactor, kDefaultRetryJitter);
  for (int attempt = 1;; ++attempt) {
    Status s = fn();
    if (s.ok() || !retriable(s) || attempt == kDefaultRetryAttempts) return s;
    clock.Sleep(backoff.Next());
  }
}

}  // namespace stowage
