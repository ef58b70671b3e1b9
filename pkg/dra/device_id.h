// DeviceId and PoolId: how the allocator names a device (driver/pool/device) and a pool.
//
// Plain values, freely copied between threads. Ordering is by driver, then pool, then device, the
// order in which the allocator visits pools.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_set>

namespace stowage::dra {

// A resource pool of one driver.
struct PoolId {
  std::string driver;
  std::string pool;
  friend bool operator==(const PoolId&, const PoolId&) = default;
  friend auto operator<=>(const PoolId&, const PoolId&) = default;
  std::string String() const { return driver + "/" + pool; }
};

// One device of a pool.
struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;
  friend bool operator==(const DeviceId&, const DeviceId&) = default;
  friend auto operator<=>(const DeviceId&, const DeviceId&) = default;
  std::string String() const { return driver + "/" + pool + "/" + device; }
};

struct DeviceIdHash {
  size_t operator()(const DeviceId& id) const {
    std::hash<std::string> h;
    size_t seed = h(id.driver);
    seed ^= h(id.pool) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    seed ^= h(id.device) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    return seed;
  }
};

// The devices that claims other than the ones being allocated already hold.
using DeviceIdSet = std::unordered_set<DeviceId, DeviceIdHash>;

}  // namespace stowage::dra
