// SharedObjects: what a Handle's plugins share across profiles (Handle::SharedObject), one
// object per key, made by the first caller. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::framework {

class SharedObjects {
 public:
  std::shared_ptr<void> Get(std::string_view key,
                            const std::function<std::shared_ptr<void>()>& make) {
    MutexLock l(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) it = objects_.emplace(std::string(key), make()).first;
    return it->second;
  }

 private:
  Mutex mu_;
  std::map<std::string, std::shared_ptr<void>, std::less<>> objects_ GUARDED_BY(mu_);
};

}  // namespace stowage::framework
