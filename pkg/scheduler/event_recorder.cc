#include "pkg/scheduler/event_recorder.h"

#include <cstdio>

#include "pkg/client/resources.h"
#include "pkg/common/logging.h"

namespace stowage::scheduler {

namespace {
// Upstream truncates event notes to the API's 1 KiB limit, marking the cut with " ...".
constexpr size_t kNoteLengthLimit = 1024;
}  // namespace

EventRecorder::EventRecorder(client::RestClient& client, std::string instance, size_t capacity)
    : client_(client), instance_(std::move(instance)), capacity_(capacity) {
  thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

EventRecorder::~EventRecorder() {
  thread_.request_stop();
  cv_.notify_all();
}

void EventRecorder::Record(const api::Pod& regarding, std::string_view controller,
                           std::string_view type, std::string_view reason,
                           std::string_view action, std::string note) {
  if (note.size() > kNoteLengthLimit) note = note.substr(0, kNoteLengthLimit - 4) + " ...";
  api::EventRecord e;
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%llx%04llx",
                static_cast<unsigned long long>(RealClock().WallNow().time_since_epoch().count() &
                                                0xffffffffffULL),
                static_cast<unsigned long long>(seq_++ & 0xffff));
  e.name = regarding.metadata.name + suffix;
  e.namespace_ = regarding.metadata.namespace_;
  e.event_time = api::FormatTime(RealClock().WallNow(), true);
  e.reporting_controller = std::string(controller);
  e.reporting_instance = std::string(controller) + "-" + instance_;
  e.action = std::string(action);
  e.reason = std::string(reason);
  e.note = std::move(note);
  e.type = std::string(type);
  e.regarding_kind = "Pod";
  e.regarding_api_version = "v1";
  e.regarding = regarding.metadata;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (queue_.size() >= capacity_) {
      dropped_++;
      return;
    }
    queue_.push_back(std::move(e));
  }
  cv_.notify_one();
}

void EventRecorder::Loop(std::stop_token stop) {
  for (;;) {
    api::EventRecord e;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, stop, [&] { return !queue_.empty(); });
      if (queue_.empty()) return;  // stopped
      e = std::move(queue_.front());
      queue_.pop_front();
    }
    Status s = client::CreateEvent(client_, e);
    if (!s.ok()) VLOG(2, "event {} for {}/{} not recorded: {}", e.reason, e.namespace_, e.regarding.name, s.ToString());
  }
}

}  // namespace stowage::scheduler
