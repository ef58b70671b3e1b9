#include "pkg/scheduler/status_writer.h"

#include <algorithm>

#include "pkg/client/errors.h"
#include "pkg/common/logging.h"
#include "pkg/scheduler/pod_status.h"
#include "stowage/common/mutex.h"

namespace stowage::scheduler {
namespace {
std::string Key(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? api::NamespacedName(pod.metadata) : pod.metadata.uid;
}
}  // namespace

StatusWriter::StatusWriter(client::RestClient& client, int workers) : client_(client) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

void StatusWriter::Submit(api::PodPtr pod, std::string patch) {
  std::string key = Key(*pod);
  {
    MutexLock l(mu_);
    if (closed_) return;
    auto [it, inserted] = pending_.insert_or_assign(key, Pending{std::move(pod), std::move(patch)});
    // A pod already queued keeps its place; one being sent is queued again when it finishes.
    if (!inserted || sending_.count(key)) return;
    ready_.push_back(std::move(key));
  }
  cv_.SignalAll();
}

void StatusWriter::Work() {
  MutexLock l(mu_);
  for (;;) {
    while (!closed_ && ready_.empty()) cv_.Wait(mu_);
    if (closed_) return;
    std::string key = std::move(ready_.front());
    ready_.pop_front();
    auto node = pending_.extract(key);
    sending_.insert(key);
    mu_.Unlock();
    const Pending& p = node.mapped();
    Status s = PatchPodStatusWithRetry(client_, p.pod->metadata, p.patch);
    if (!s.ok() && !client::IsNotFound(s)) {
      LOG_WARN("updating the status of pod {}: {}", api::NamespacedName(p.pod->metadata),
               s.ToString());
    }
    mu_.Lock();
    sending_.erase(key);
    if (pending_.count(key)) ready_.push_back(std::move(key));
    cv_.SignalAll();
  }
}

void StatusWriter::WaitForPod(const api::Pod& pod, std::chrono::milliseconds timeout) {
  const std::string key = Key(pod);
  MutexLock l(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!closed_ && (pending_.count(key) || sending_.count(key)) && cv_.WaitUntil(mu_, deadline)) {
  }
}

Status StatusWriter::SendNow(const api::PodPtr& pod, const std::string& patch,
                             std::chrono::milliseconds timeout) {
  WaitForPod(*pod, timeout);
  Status s = PatchPodStatusWithRetry(client_, pod->metadata, patch);
  if (!s.ok() && !client::IsNotFound(s)) {
    LOG_WARN("updating the status of pod {}: {}", api::NamespacedName(pod->metadata), s.ToString());
  }
  return s;
}

size_t StatusWriter::Drain(std::chrono::milliseconds timeout) {
  MutexLock l(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(pending_.empty() && sending_.empty()) && cv_.WaitUntil(mu_, deadline)) {
  }
  return ready_.size() + sending_.size();
}

void StatusWriter::Shutdown() {
  {
    MutexLock l(mu_);
    closed_ = true;
  }
  cv_.SignalAll();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace stowage::scheduler
