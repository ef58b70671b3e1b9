#include "pkg/framework/runtime/waiting_pod.h"

#include <algorithm>

namespace stowage::framework {

std::vector<std::string> WaitingPodImpl::pending_plugins() const {
  MutexLock l(mu_);
  std::vector<std::string> out;
  for (const auto& [name, t] : pending_) out.push_back(name);
  return out;
}

void WaitingPodImpl::Allow(std::string_view plugin) {
  MutexLock l(mu_);
  pending_.erase(std::string(plugin));
  cv_.SignalAll();
}

void WaitingPodImpl::Reject(std::string_view plugin, std::string message) {
  MutexLock l(mu_);
  if (rejection_.IsSuccess()) {
    rejection_ = std::move(Status::Unschedulable(std::move(message)).WithPlugin(plugin));
  }
  cv_.SignalAll();
}

Status WaitingPodImpl::Wait() {
  MutexLock l(mu_);
  auto start = std::chrono::steady_clock::now();
  while (rejection_.IsSuccess() && !pending_.empty()) {
    auto first = std::min_element(pending_.begin(), pending_.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    auto deadline = start + first->second;
    if (!cv_.WaitUntil(mu_, deadline) && std::chrono::steady_clock::now() >= deadline &&
        pending_.count(first->first)) {
      return std::move(Status::Unschedulable("rejected due to timeout after waiting " +
                                             std::to_string(first->second.count()) +
                                             "ms at plugin " + first->first)
                           .WithPlugin(first->first));
    }
  }
  return rejection_;
}

}  // namespace stowage::framework
