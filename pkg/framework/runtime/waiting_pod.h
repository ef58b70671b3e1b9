// WaitingPodImpl: a pod held at Permit until every plugin that asked it to wait allows it, one
// rejects it, or the shortest requested timeout passes (upstream runtime/waiting_pods_map.go).
//
// Thread-safety: Allow and Reject come from plugins on any thread while the binding cycle
// blocks in Wait; all state is under mu_.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"
#include "stowage/framework/interface.h"

namespace stowage::framework {

class WaitingPodImpl final : public WaitingPod {
 public:
  // pending: each waiting plugin and the timeout it asked for.
  WaitingPodImpl(api::Pod pod, std::map<std::string, std::chrono::milliseconds> pending)
      : pod_(std::move(pod)), pending_(std::move(pending)) {}
  const api::Pod& pod() const override { return pod_; }
  std::vector<std::string> pending_plugins() const override;
  void Allow(std::string_view plugin) override;
  void Reject(std::string_view plugin, std::string message) override;
  // Blocks until allowed (Success), rejected, or the shortest pending plugin's timeout
  // (Unschedulable naming that plugin, upstream's message).
  Status Wait();

 private:
  const api::Pod pod_;
  mutable Mutex mu_;
  CondVar cv_;
  std::map<std::string, std::chrono::milliseconds> pending_ GUARDED_BY(mu_);  // plugin -> timeout
  Status rejection_ GUARDED_BY(mu_);
};

}  // namespace stowage::framework
