#include "stowage/common/clock.h"

#include <limits>

#include "stowage/common/mutex.h"

namespace stowage {
namespace {
class Real final : public Clock {
 public:
  MonoTime Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  bool Sleep(Duration d, std::stop_token stop) override { return SleepFor(d, stop); }
};
}  // namespace

Duration ScaleDuration(Duration d, double factor) {
  const double scaled = static_cast<double>(d.count()) * factor;
  using Rep = Duration::rep;
  // 2^63 is exactly representable, so comparing against it is exact where max() would round up.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(scaled < kLimit)) return Duration(std::numeric_limits<Rep>::max());
  if (scaled < -kLimit) return Duration(std::numeric_limits<Rep>::min());
  return Duration(static_cast<Rep>(scaled));
}

Clock& RealClock() {
  static Real* clock = new Real();  // intentionally leaked: usable during static destruction
  return *clock;
}
}  // namespace stowage

namespace stowage {
bool SleepFor(Duration d, std::stop_token stop) {
  if (d <= Duration::zero()) return !stop.stop_requested();
  Mutex m;
  CondVarAny cv;  // never signalled: only the deadline or a stop request ends the wait
  MutexLock l(m);
  const MonoTime deadline = std::chrono::steady_clock::now() + d;
  while (!stop.stop_requested() && cv.WaitUntil(m, stop, deadline)) {
  }
  return !stop.stop_requested();
}
}  // namespace stowage
