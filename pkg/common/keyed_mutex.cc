#include "pkg/common/keyed_mutex.h"

#include <utility>

namespace stowage {

KeyedMutex::Lock::Lock(KeyedMutex& owner, std::string key) : owner_(owner), key_(std::move(key)) {
  {
    std::lock_guard<std::mutex> l(owner_.mu_);
    std::unique_ptr<Slot>& s = owner_.slots_[key_];
    if (s == nullptr) s = std::make_unique<Slot>();
    ++s->users;
    slot_ = s.get();
  }
  slot_->mu.lock();
}

KeyedMutex::Lock::~Lock() {
  slot_->mu.unlock();
  std::lock_guard<std::mutex> l(owner_.mu_);
  if (--slot_->users == 0) owner_.slots_.erase(key_);
}

size_t KeyedMutex::SizeForTest() const {
  std::lock_guard<std::mutex> l(mu_);
  return slots_.size();
}

}  // namespace stowage
