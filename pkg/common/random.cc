#include "pkg/common/random.h"

#include <atomic>
#include <cstdio>
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

namespace {
std::mt19937_64& ThreadEngine() {
  thread_local std::mt19937_64 engine{(static_cast<uint64_t>(std::random_device{}()) << 32) ^
                                      std::random_device{}()};
  return engine;
}
}  // namespace

uint64_t ThreadRandom() { return ThreadEngine()(); }

std::string RandomUuid() {
  std::mt19937_64& engine = ThreadEngine();
  uint64_t hi = engine(), lo = engine();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;              // version 4
  lo = (lo & ~(0xc0ULL << 56)) | (0x80ULL << 56);  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace stowage
