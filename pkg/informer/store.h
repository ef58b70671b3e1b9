// Store: a thread-safe map from "namespace/name" to the latest immutable object, the informer's
// local copy of the cluster. Readers share a lock; objects are std::shared_ptr<const T>, so a
// reader keeps a consistent object even after the store moves on. Only the reflector writes.
// Version() counts the writes, so a reader can keep what it derived from the objects until the
// next write instead of deriving it again; once a reader asks for them (ChangesSince), the last
// writes are also kept, so it can bring what it derived up to date from those alone.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::informer {

template <typename T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;

  Ptr Get(const std::string& key) const {
    ReaderMutexLock l(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }
  std::vector<Ptr> List() const {
    ReaderMutexLock l(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(v);
    return out;
  }
  // The objects keep(object) accepts, copied under the lock, so a filtered list (one namespace's
  // objects, say) copies only what it returns.
  template <typename Keep>
  std::vector<Ptr> ListIf(const Keep& keep) const {
    ReaderMutexLock l(mu_);
    std::vector<Ptr> out;
    for (const auto& [k, v] : items_) {
      if (keep(*v)) out.push_back(v);
    }
    return out;
  }
  std::vector<std::string> Keys() const {
    ReaderMutexLock l(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(k);
    return out;
  }
  size_t Size() const {
    ReaderMutexLock l(mu_);
    return items_.size();
  }
  // Grows with every Upsert and Remove. Read it before List(): a list taken after reading v
  // holds at least the writes up to v, so a result derived from it and kept under v is never
  // newer than what v promises, only possibly older, and the next write changes the version.
  uint64_t Version() const { return version_.load(std::memory_order_acquire); }
  // One write: before is null for an add, after is null for a removal.
  struct Change {
    Ptr before, after;
  };
  // How many writes are kept for ChangesSince: a reader that asks each scheduling cycle is a few
  // writes behind, and a reader further behind lists again.
  static constexpr size_t kKeptChanges = 512;
  // Appends the writes after version since, oldest first, to out (as Out{before, after}) and
  // sets now to the version they lead to; false when they are not all kept (the first call
  // starts keeping them), and the reader must List() again.
  template <typename Out>
  bool ChangesSince(uint64_t since, std::vector<Out>& out, uint64_t& now) const {
    keep_changes_.store(true, std::memory_order_relaxed);
    ReaderMutexLock l(mu_);
    now = version_.load(std::memory_order_relaxed);
    if (since == now) return true;
    if (changes_.empty() || since < changes_start_ || since > now) return false;
    for (size_t i = static_cast<size_t>(since - changes_start_); i < changes_.size(); ++i) {
      out.push_back(Out{changes_[i].before, changes_[i].after});
    }
    return true;
  }
  // Inserts or replaces; returns the previous object or nullptr.
  Ptr Upsert(const std::string& key, Ptr obj) {
    WriterMutexLock l(mu_);
    Ptr& slot = items_[key];
    Ptr prev = std::move(slot);
    slot = std::move(obj);
    Written(prev, slot);
    return prev;
  }
  // Removes; returns the removed object or nullptr.
  Ptr Remove(const std::string& key) {
    WriterMutexLock l(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    Ptr prev = std::move(it->second);
    items_.erase(it);
    Written(prev, nullptr);
    return prev;
  }

 private:
  void Written(const Ptr& before, const Ptr& after) REQUIRES(mu_) {
    if (keep_changes_.load(std::memory_order_relaxed)) {
      if (changes_.empty()) changes_start_ = version_.load(std::memory_order_relaxed);
      changes_.push_back(Change{before, after});
      if (changes_.size() > kKeptChanges) {
        changes_.pop_front();
        ++changes_start_;
      }
    }
    version_.fetch_add(1, std::memory_order_release);
  }

  mutable SharedMutex mu_;
  std::unordered_map<std::string, Ptr> items_ GUARDED_BY(mu_);
  std::atomic<uint64_t> version_{0};  // written under mu_, read without it
  mutable std::atomic<bool> keep_changes_{false};
  // The last writes; the first moved the store from version changes_start_.
  std::deque<Change> changes_ GUARDED_BY(mu_);
  uint64_t changes_start_ GUARDED_BY(mu_) = 0;
};

}  // namespace stowage::informer
