#include "pkg/client/rate_limiter.h"

#include <algorithm>

#include "stowage/common/mutex.h"

namespace stowage::client {

RateLimiter::RateLimiter(double qps, int burst, Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Now()) {}

Duration RateLimiter::Reserve() {
  if (qps_ <= 0) return Duration::zero();
  MutexLock l(mu_);
  MonoTime now = clock_.Now();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  tokens_ -= 1;  // may go negative: the debt is the wait
  if (tokens_ >= 0) return Duration::zero();
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool RateLimiter::Wait(std::stop_token stop) { return clock_.Sleep(Reserve(), stop); }

}  // namespace stowage::client
