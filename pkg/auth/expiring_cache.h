// ExpiringCache: a bounded map whose entries each expire after their own TTL, for the answers of
// TokenReview and SubjectAccessReview. When full, the least recently used entry is dropped, so a
// flood of distinct keys (random tokens, say) costs bounded memory. Time comes from the Clock
// the owner passes in, so tests drive expiry with a FakeClock.
//
// Thread-safe: every method takes the internal mutex; values are copied out.
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::auth {

template <typename V>
class ExpiringCache {
 public:
  ExpiringCache(Clock& clock, size_t max_entries) : clock_(clock), max_entries_(max_entries) {}

  // The value stored under key, unless it is missing or expired (an expired entry is dropped).
  std::optional<V> Get(const std::string& key) {
    MutexLock l(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    if (clock_.Now() >= it->second->expires) {
      lru_.erase(it->second);
      index_.erase(it);
      return std::nullopt;
    }
    lru_.splice(lru_.begin(), lru_, it->second);  // most recently used first
    return it->second->value;
  }

  // Stores value under key for ttl; a ttl of zero or less stores nothing.
  void Set(const std::string& key, V value, Duration ttl) {
    if (ttl <= Duration::zero() || max_entries_ == 0) return;
    MutexLock l(mu_);
    MonoTime expires = clock_.Now() + ttl;
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->value = std::move(value);
      it->second->expires = expires;
      lru_.splice(lru_.begin(), lru_, it->second);
      return;
    }
    while (index_.size() >= max_entries_) {
      index_.erase(lru_.back().key);
      lru_.pop_back();
    }
    lru_.push_front(Entry{key, std::move(value), expires});
    index_.emplace(key, lru_.begin());
  }

  size_t size() const {
    MutexLock l(mu_);
    return index_.size();
  }

 private:
  struct Entry {
    std::string key;
    V value;
    MonoTime expires;
  };

  Clock& clock_;
  const size_t max_entries_;
  mutable Mutex mu_;
  std::list<Entry> lru_ GUARDED_BY(mu_);
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_ GUARDED_BY(mu_);
};

}  // namespace stowage::auth
