#include "pkg/common/clock.h"

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

#include <condition_variable>

namespace stowage {
bool SleepFor(Duration d, std::stop_token stop) {
  if (d <= Duration::zero()) return !stop.stop_requested();
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> l(m);
  cv.wait_for(l, stop, d, [] { return false; });
  return !stop.stop_requested();
}
}  // namespace stowage
