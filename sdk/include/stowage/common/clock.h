// Clock: the source of time for everything that waits, expires or backs off, behind an interface
// so tests can drive time by hand (FakeClock) instead of sleeping.
//
// Now() is monotonic and is what durations and deadlines use; WallNow() is calendar time for
// timestamps written to the API (events, leases). Both are safe to call from any thread.
#pragma once

#include <chrono>
#include <stop_token>

#include "stowage/common/mutex.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage {

using Duration = std::chrono::steady_clock::duration;
using MonoTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual MonoTime Now() const = 0;
  virtual WallTime WallNow() const = 0;
  // Waits for d; returns false early if stop is requested. A FakeClock just moves forward.
  virtual bool Sleep(Duration d, std::stop_token stop = {}) = 0;
};

// d * factor, saturated at Duration's bounds: converting an out-of-range double to an integer is
// undefined behaviour, which once let a retry period of 2562047h pass a range check.
Duration ScaleDuration(Duration d, double factor);

// The process-wide real clock; never destroyed.
Clock& RealClock();

// A clock that moves only when told. Thread-safe.
class FakeClock : public Clock {
 public:
  FakeClock() : mono_(std::chrono::hours(1)), wall_(std::chrono::hours(24 * 365 * 50)) {}
  MonoTime Now() const override {
    MutexLock l(mu_);
    return mono_;
  }
  WallTime WallNow() const override {
    MutexLock l(mu_);
    return wall_;
  }
  void Advance(Duration d) {
    MutexLock l(mu_);
    mono_ += d;
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
  }
  bool Sleep(Duration d, std::stop_token stop = {}) override {
    if (d > Duration::zero()) Advance(d);
    return !stop.stop_requested();
  }

 private:
  mutable Mutex mu_;
  MonoTime mono_ GUARDED_BY(mu_);
  WallTime wall_ GUARDED_BY(mu_);
};

}  // namespace stowage

namespace stowage {
// Sleeps for d of real time; returns false early if stop is requested.
bool SleepFor(Duration d, std::stop_token stop = {});
}  // namespace stowage

#pragma GCC visibility pop
