// PodsInPreBind: the pods whose binding cycle is running PreBind (upstream's podsInPreBindMap),
// so that preemption can cancel such a victim in memory, as it rejects one waiting at Permit,
// instead of deleting it. The binding cycle adds the pod before PreBind and, after it, marks
// it prebound: from then on a cancellation fails (the victim is deleted through the API), and
// a pod cancelled first is not bound. Only profiles with PreBind plugins register pods
// (stowage has no PreBindPreFlight, whose Skip keeps upstream's pods out). Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/interface.h"

namespace stowage::scheduler {

class PodInPreBindImpl final : public framework::PodInPreBind {
 public:
  bool CancelPod(std::string message) override {
    MutexLock l(mu_);
    if (prebound_) return false;
    if (!canceled_) cause_ = std::move(message);
    canceled_ = true;
    return true;
  }
  // Called once PreBind is done: false, with the cancellation's message in cause, when
  // preemption cancelled the pod first.
  bool MarkPrebound(std::string& cause) {
    MutexLock l(mu_);
    if (canceled_) {
      cause = cause_;
      return false;
    }
    prebound_ = true;
    return true;
  }

 private:
  Mutex mu_;
  bool prebound_ GUARDED_BY(mu_) = false;
  bool canceled_ GUARDED_BY(mu_) = false;
  std::string cause_ GUARDED_BY(mu_);
};

class PodsInPreBind {
 public:
  std::shared_ptr<PodInPreBindImpl> Add(const std::string& uid) {
    auto p = std::make_shared<PodInPreBindImpl>();
    MutexLock l(mu_);
    pods_[uid] = p;
    return p;
  }
  std::shared_ptr<PodInPreBindImpl> Get(std::string_view uid) const {
    MutexLock l(mu_);
    auto it = pods_.find(std::string(uid));
    return it == pods_.end() ? nullptr : it->second;
  }
  void Remove(const std::string& uid) {
    MutexLock l(mu_);
    pods_.erase(uid);
  }

 private:
  mutable Mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<PodInPreBindImpl>> pods_ GUARDED_BY(mu_);
};

}  // namespace stowage::scheduler
