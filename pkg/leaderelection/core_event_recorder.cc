#include "pkg/leaderelection/core_event_recorder.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "pkg/api/encode.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::leaderelection {

using json = nlohmann::json;

std::string CoreEventName(const CoreEvent& e) {
  auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(e.timestamp.time_since_epoch()).count();
  char hex[24];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(nanos));
  return e.involved_object.name + "." + hex;
}

std::string EncodeCoreEvent(const CoreEvent& e) {
  const ObjectReference& o = e.involved_object;
  std::string ns = o.namespace_.empty() ? "default" : o.namespace_;
  json involved = {{"kind", o.kind}, {"name", o.name}, {"apiVersion", o.api_version}};
  if (!o.namespace_.empty()) involved["namespace"] = o.namespace_;
  if (!o.uid.empty()) involved["uid"] = o.uid;
  if (!o.resource_version.empty()) involved["resourceVersion"] = o.resource_version;
  std::string ts = api::FormatTime(e.timestamp, /*micro=*/false);
  json j = {{"kind", "Event"},
            {"apiVersion", "v1"},
            {"metadata", {{"name", CoreEventName(e)}, {"namespace", ns}}},
            {"involvedObject", involved},
            {"reason", e.reason},
            {"message", e.message},
            {"source", {{"component", e.component}}},
            {"firstTimestamp", ts},
            {"lastTimestamp", ts},
            {"count", 1},
            {"type", e.type},
            {"eventTime", nullptr},
            {"reportingComponent", e.component},
            {"reportingInstance", ""}};
  // Invalid UTF-8 in a name or message is replaced rather than allowed to throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

CoreEventRecorder::CoreEventRecorder(client::RestClient& client, std::string component,
                                     Clock& clock, size_t capacity)
    : client_(client), component_(std::move(component)), clock_(clock), capacity_(capacity) {
  thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

CoreEventRecorder::~CoreEventRecorder() {
  thread_.request_stop();
  cv_.SignalAll();
}

void CoreEventRecorder::Event(const ObjectReference& object, std::string_view type,
                              std::string_view reason, std::string message) {
  CoreEvent e{object,     std::string(type), std::string(reason), std::move(message),
              component_, clock_.WallNow()};
  {
    MutexLock l(mu_);
    if (queue_.size() >= capacity_) {
      dropped_++;
      LOG_ERROR("\"Unable to record event: too many queued events, dropped event\" reason={}",
                api::JsonQuote(e.reason));
      return;
    }
    queue_.push_back(std::move(e));
  }
  cv_.SignalAll();
}

bool CoreEventRecorder::Flush(Duration timeout) {
  MutexLock l(mu_);
  const MonoTime deadline = std::chrono::steady_clock::now() + timeout;
  while (!(queue_.empty() && !busy_)) {
    if (!cv_.WaitUntil(mu_, {}, deadline)) return queue_.empty() && !busy_;
  }
  return true;
}

void CoreEventRecorder::Loop(std::stop_token stop) {
  for (;;) {
    CoreEvent e;
    {
      MutexLock l(mu_);
      busy_ = false;
      cv_.SignalAll();  // Flush waits for the queue to empty and the writer to go idle
      while (queue_.empty() && !stop.stop_requested()) cv_.Wait(mu_, stop);
      if (stop.stop_requested()) return;
      e = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    std::string path = "/api/v1/namespaces/" +
                       (e.involved_object.namespace_.empty() ? std::string("default")
                                                             : e.involved_object.namespace_) +
                       "/events";
    auto r = client_.Post(path, EncodeCoreEvent(e));
    if (r.ok()) {
      written_++;
      continue;
    }
    failed_++;
    LOG_ERROR("\"Unable to write event (will not retry!)\" err={} event={} reason={}",
              api::JsonQuote(r.status().ToString()), api::JsonQuote(CoreEventName(e)),
              api::JsonQuote(e.reason));
  }
}

}  // namespace stowage::leaderelection
