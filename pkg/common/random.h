// The seed of the scheduler's random choices (ties between nodes, where preemption starts its
// search): random per process, unless `stowage simulate` fixes it so that the same inputs give
// the same placements.
#pragma once

#include <cstdint>
#include <string>

namespace stowage {

// A seed for a new random engine: the fixed one if SetRandomSeed was called, else fresh entropy.
uint64_t RandomSeed();
// Fixes the seeds handed out from now on. Call before the engines are built (before the scheduler).
void SetRandomSeed(uint64_t seed);

// A random (version 4) UUID from a per-thread engine seeded with fresh entropy: the share IDs
// of devices, event names, leader identities and the scheduler's temporary claim UIDs.
std::string RandomUuid();

// A random number from a per-thread engine seeded once per thread: for jitter, which needs no
// entropy per call (a random_device per binding's backoff was a read of the kernel's pool each).
uint64_t ThreadRandom();

}  // namespace stowage
