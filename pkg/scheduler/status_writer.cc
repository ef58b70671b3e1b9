#include "pkg/scheduler/status_writer.h"

#include <algorithm>

#include "pkg/client/errors.h"
#include "pkg/common/logging.h"
#include "pkg/scheduler/pod_status.h"

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
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return;
    auto [it, inserted] = pending_.insert_or_assign(key, Pending{std::move(pod), std::move(patch)});
    // A pod already queued keeps its place; one being sent is queued again when it finishes.
    if (!inserted || sending_.count(key)) return;
    ready_.push_back(std::move(key));
  }
  cv_.notify_all();
}

void StatusWriter::Work() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [&] { return closed_ || !ready_.empty(); });
    if (closed_) return;
    std::string key = std::move(ready_.front());
    ready_.pop_front();
    auto node = pending_.extract(key);
    sending_.insert(key);
    l.unlock();
    const Pending& p = node.mapped();
    Status s = PatchPodStatusWithRetry(client_, p.pod->metadata, p.patch);
    if (!s.ok() && !client::IsNotFound(s)) {
      LOG_WARN("updating the status of pod {}: {}", api::NamespacedName(p.pod->metadata),
               s.ToString());
    }
    l.lock();
    sending_.erase(key);
    if (pending_.count(key)) ready_.push_back(std::move(key));
    cv_.notify_all();
  }
}

size_t StatusWriter::Drain(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait_for(l, timeout, [&] { return pending_.empty() && sending_.empty(); });
  return ready_.size() + sending_.size();
}

void StatusWriter::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace stowage::scheduler
