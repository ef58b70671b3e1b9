// SingleFlight: concurrent calls for the same key share one execution, as Go's
// golang.org/x/sync/singleflight, which upstream's token cache uses. When a hundred scrapers
// present the same uncached token at once, the API server sees one TokenReview, not a hundred.
//
// Thread-safe. fn runs on the thread of the first caller, without the internal lock held; the
// others block until it returns and receive a copy of its result. A key is forgotten as soon as
// its call returns, so the next call after that runs fn again (caching is the caller's job).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::auth {

template <typename V>
class SingleFlight {
 public:
  // Runs fn for key, or waits for the call already running for key. *shared, when given, is set
  // to whether this caller received another caller's result.
  V Do(const std::string& key, const std::function<V()>& fn, bool* shared = nullptr) {
    std::shared_ptr<Call> call;
    {
      MutexLock l(mu_);
      auto it = calls_.find(key);
      if (it != calls_.end()) {
        call = it->second;
        ++call->waiters;
        while (!call->result.has_value()) cv_.Wait(mu_);
        if (shared) *shared = true;
        return *call->result;
      }
      call = std::make_shared<Call>();
      calls_.emplace(key, call);
    }
    V result = fn();
    {
      MutexLock l(mu_);
      call->result = result;
      calls_.erase(key);
    }
    cv_.SignalAll();
    if (shared) *shared = false;
    return result;
  }

  // How many callers are waiting for the call running for key (0 when none runs); for tests
  // that must know the followers have joined before letting the leader finish.
  int WaitersForTest(const std::string& key) const {
    MutexLock l(mu_);
    auto it = calls_.find(key);
    return it == calls_.end() ? 0 : it->second->waiters;
  }

 private:
  struct Call {
    std::optional<V> result;
    int waiters = 0;
  };

  mutable Mutex mu_;
  CondVar cv_;
  std::unordered_map<std::string, std::shared_ptr<Call>> calls_ GUARDED_BY(mu_);
};

}  // namespace stowage::auth
