#include "pkg/common/clock.h"

namespace stowage {
namespace {
class Real final : public Clock {
 public:
  MonoTime Now() const override { return std::chrono::steady_clock::now(); }
  WallTime WallNow() const override { return std::chrono::system_clock::now(); }
};
}  // namespace

Clock& RealClock() {
  static Real* clock = new Real();  // intentionally leaked: usable during static destruction
  return *clock;
}
}  // namespace stowage
