// KeyedMutex: one mutex per key, made while some thread holds or waits for it and dropped after.
//
// For turns that must not overlap per object but may for different objects, such as two pods'
// writes of one shared ResourceClaim: a fixed table of striped locks would also make writes of
// unrelated objects wait for each other. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace stowage {

class KeyedMutex {
  struct Slot {
    std::mutex mu;
    int users = 0;  // the holder and the waiters, guarded by KeyedMutex::mu_
  };

 public:
  // Holds the key's mutex from construction to destruction.
  class Lock {
   public:
    Lock(KeyedMutex& owner, std::string key);
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    KeyedMutex& owner_;
    std::string key_;
    Slot* slot_ = nullptr;
  };

  // Keys with a holder or a waiter.
  size_t SizeForTest() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Slot>> slots_;
};

}  // namespace stowage
