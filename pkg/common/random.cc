#include "pkg/common/random.h"

#include <atomic>
#include <random>

namespace stowage {
namespace {
std::atomic<bool> fixed{false};
std::atomic<uint64_t> fixed_seed{0};
}  // namespace

uint64_t RandomSeed() {
  if (fixed.load(std::memory_order_acquire)) return fixed_seed.load(std::memory_order_relaxed);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

void SetRandomSeed(uint64_t seed) {
  fixed_seed.store(seed, std::memory_order_relaxed);
  fixed.store(true, std::memory_order_release);
}

}  // namespace stowage
