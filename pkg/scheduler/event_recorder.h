// EventRecorder: writes events.k8s.io/v1 Events about pods without blocking the scheduling
// loop. Events go into a bounded queue drained by one thread; when the queue is full new events
// are dropped (and counted), so a storm of failures cannot stall scheduling or flood the API
// server. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "pkg/api/encode.h"
#include "pkg/client/rest_client.h"

namespace stowage::scheduler {

class EventRecorder {
 public:
  EventRecorder(client::RestClient& client, std::string instance, size_t capacity = 1000);
  ~EventRecorder();

  // type "Normal" or "Warning"; controller is the profile's scheduler name, as upstream.
  void Record(const api::Pod& regarding, std::string_view controller, std::string_view type,
              std::string_view reason, std::string_view action, std::string note);
  uint64_t dropped() const { return dropped_.load(); }

 private:
  void Loop(std::stop_token stop);

  client::RestClient& client_;
  const std::string instance_;
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<api::EventRecord> queue_;
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> seq_{0};
  std::jthread thread_;
};

}  // namespace stowage::scheduler
