// DeviceId and PoolId: how the allocator names a device (driver/pool/device) and a pool.
//
// Plain values, freely copied between threads. Ordering is by driver, then pool, then device, the
// order in which the allocator visits pools.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
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

// The hash of a device's three names, the same for a DeviceId and a DeviceRef of one device.
inline size_t HashDevice(std::string_view driver, std::string_view pool, std::string_view device) {
  std::hash<std::string_view> h;
  size_t seed = h(driver);
  seed ^= h(pool) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  seed ^= h(device) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

// A device named by views into the slice that lists it, hashed once when first looked up: the
// search visits each device by these names, and copying and hashing three strings per lookup was
// an eighth of a DRA cycle; most visits now need no hash at all (AllocatedState::HoldsWholeAt).
// Valid while the strings it views are; not shared between threads.
struct DeviceRef {
  DeviceRef() = default;  // names nothing; a placeholder until assigned, never looked up
  DeviceRef(std::string_view d, std::string_view p, std::string_view n)
      : driver(d), pool(p), device(n) {}
  DeviceRef(const DeviceId& id) : DeviceRef(id.driver, id.pool, id.device) {}  // NOLINT: implicit
  std::string_view driver, pool, device;
  size_t Hash() const {
    if (!hashed_) {
      hash_ = HashDevice(driver, pool, device);
      hashed_ = true;
    }
    return hash_;
  }
  DeviceId ToId() const {
    return DeviceId{std::string(driver), std::string(pool), std::string(device)};
  }
  std::string String() const { return ToId().String(); }

 private:
  mutable size_t hash_ = 0;
  mutable bool hashed_ = false;
};

// Hash and equality that also take a DeviceRef, so sets of DeviceIds are probed without a copy.
struct DeviceIdHash {
  using is_transparent = void;
  size_t operator()(const DeviceId& id) const { return HashDevice(id.driver, id.pool, id.device); }
  size_t operator()(const DeviceRef& ref) const { return ref.Hash(); }
};

struct DeviceIdEq {
  using is_transparent = void;
  bool operator()(const DeviceId& a, const DeviceId& b) const { return a == b; }
  bool operator()(const DeviceId& a, const DeviceRef& b) const { return Same(a, b); }
  bool operator()(const DeviceRef& a, const DeviceId& b) const { return Same(b, a); }
  // No hash here: the tables compare their cached hashes first, and a key kept in a table that
  // threads share must not be hashed (written) by a lookup.
  bool operator()(const DeviceRef& a, const DeviceRef& b) const {
    return a.device == b.device && a.pool == b.pool && a.driver == b.driver;
  }

 private:
  static bool Same(const DeviceId& a, const DeviceRef& b) {
    return a.device == b.device && a.pool == b.pool && a.driver == b.driver;
  }
};

// The devices that claims other than the ones being allocated already hold.
using DeviceIdSet = std::unordered_set<DeviceId, DeviceIdHash, DeviceIdEq>;
template <typename V>
using DeviceIdMap = std::unordered_map<DeviceId, V, DeviceIdHash, DeviceIdEq>;
// Keyed by views, for maps that live no longer than the slices they name (one search's).
template <typename V>
using DeviceRefMap = std::unordered_map<DeviceRef, V, DeviceIdHash, DeviceIdEq>;

}  // namespace stowage::dra
