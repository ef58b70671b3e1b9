// CoreEventRecorder: writes core/v1 Events the way client-go's legacy recorder (tools/record)
// does, which is how kube-scheduler reports LeaderElection events: POST
// /api/v1/namespaces/<ns>/events with involvedObject, source.component, reportingComponent, first
// and last timestamps and count 1.
//
// Recording never blocks the caller: events go into a bounded queue that one thread drains; when
// the queue is full the event is dropped and counted. A failed write is logged and not retried,
// events being best effort. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <thread>

#include "pkg/client/rest_client.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::leaderelection {

// The object an event is about (core/v1 ObjectReference).
struct ObjectReference {
  std::string kind;
  std::string api_version;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
};

// One core/v1 Event as the legacy recorder builds it.
struct CoreEvent {
  ObjectReference involved_object;
  std::string type;  // Normal or Warning
  std::string reason;
  std::string message;
  std::string component;  // source.component and reportingComponent
  WallTime timestamp;     // first and last timestamp; also names the event
};

// "<involved name>.<timestamp in nanoseconds, hex>", as client-go names events.
std::string CoreEventName(const CoreEvent& event);
// The request body: a v1 Event in the involved object's namespace ("default" if it has none).
std::string EncodeCoreEvent(const CoreEvent& event);

class CoreEventRecorder {
 public:
  // component is source.component of every event (kube-scheduler uses the first profile's
  // schedulerName).
  CoreEventRecorder(client::RestClient& client, std::string component, Clock& clock = RealClock(),
                    size_t capacity = 1000);
  // Stops the writer after the event being written, if any; queued events are dropped.
  ~CoreEventRecorder();

  void Event(const ObjectReference& object, std::string_view type, std::string_view reason,
             std::string message);
  // Waits up to timeout for every queued event to be written (or to fail); true if none is left.
  // For an orderly shutdown that wants the last event out before the process exits.
  bool Flush(Duration timeout);

  uint64_t dropped() const { return dropped_.load(); }
  uint64_t written() const { return written_.load(); }
  uint64_t failed() const { return failed_.load(); }

 private:
  void Loop(std::stop_token stop);

  client::RestClient& client_;
  const std::string component_;
  Clock& clock_;
  const size_t capacity_;
  Mutex mu_;
  CondVarAny cv_;
  std::deque<CoreEvent> queue_ GUARDED_BY(mu_);
  bool busy_ GUARDED_BY(mu_) = false;  // an event taken from the queue is being written
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> written_{0};
  std::atomic<uint64_t> failed_{0};
  std::jthread thread_;  // last: started after, and joined before, everything above
};

}  // namespace stowage::leaderelection
