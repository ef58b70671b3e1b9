#include "pkg/common/clock.h"

#include "pkg/common/mutex.h"

namespace stowage {
namespace {
class Real final : public Clock {
 public:
  MonoTime Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
  bool Sleep(Duration d, std::stop_token stop) override { return SleepFor(d, stop); }
};
}  // namespace

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
