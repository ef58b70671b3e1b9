// EventRecorder: writes events.k8s.io/v1 Events about pods the way client-go's tools/events
// broadcaster does for kube-scheduler, without ever blocking the scheduling loop.
//
// Record() only builds the event and appends it to a bounded queue (1000, upstream's
// maxQueuedEvents); when the queue is full the event is dropped, counted and logged. One worker
// thread drains the queue and decides what to write; the writes go to a few writer threads
// (upstream starts a goroutine per write), each with a bounded queue, and all writes about one
// series go to the same writer so they stay in order:
//
//  * Series (upstream's isomorphic events). Events with the same type, action, reason,
//    reporting controller and instance, and regarding object (kind, apiVersion, namespace,
//    name, uid, resourceVersion) are one series. As upstream, the note is not part of that key:
//    a later event with another note counts as one more occurrence of the first. The first
//    occurrence is POSTed; the second PATCHes series {count: 2, lastObservedTime}; later ones
//    only bump the count in memory. Every 30 minutes each series is PATCHed with its count
//    (upstream's refreshTime); every 6 minutes (finishTime) a series not observed for 6 minutes
//    gets a final PATCH and is forgotten, and a single event older than 6 minutes is forgotten,
//    so the next occurrence starts a new Event. A PATCH answered 404 (the Event expired) is
//    replaced by a POST of the whole event with its series.
//  * Spam filter. Each object (and event type) has a token bucket: 25 events at once, then one
//    per 5 minutes. These are client-go's legacy EventSourceObjectSpamFilter numbers, which
//    kube-scheduler relied on before events.k8s.io: enough for every event a pod normally gets
//    (a few FailedScheduling, one Scheduled), while a pod failing in a loop costs at most one
//    write per 5 minutes once its burst is spent. Only new Events spend tokens; occurrences that
//    join a series are free (they cost at most the one PATCH above), so series counts stay
//    right. Filtered events are counted.
//  * Notes longer than the API's 1024-byte limit are cut, ending in " ..." as schedule_one.go's
//    truncateMessage does (the cut backs off to a UTF-8 character boundary).
//  * Deleted objects. Series and buckets are kept per object, so without more they would hold
//    every pod of the last 6 to 12 minutes (upstream's eventCache does): under churn, memory
//    that grows with the pod rate, about 1.8 KB per pod. A pod's deletion (ForgetObject) ends
//    its series at once, writing the count not yet written as the final PATCH, and drops its
//    bucket, since no event will be about it again; so what is kept follows the live pods, and
//    only an event recorded after its pod's deletion waits for the 6-minute pass. An event keeps
//    only the reference fields of its objects (namespace, name, uid, resourceVersion).
//  * Writes that wait. A series has at most one write waiting for a writer: a newer count
//    updates the waiting write instead of queueing another (the API server ends with the same
//    count, sent once). When events come faster than the event client's rate limit allows
//    (a pod that failed a few times and is deleted costs a count-2 PATCH and a final one),
//    the backlog therefore stops growing once it is long enough for the two to meet, instead of
//    growing with every pod.
//
// Writes use the RestClient's retries; an event that still fails is logged and dropped (upstream
// retries up to 12 times, 10 s apart, from a goroutine per event). Thread-safe: Record() and
// ForgetObject() may be called from any thread; the series and spam state belong to the worker
// thread, which handles a forget after every event recorded before it. On destruction writes
// not yet started are dropped.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pkg/api/encode.h"
#include "pkg/client/rest_client.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::scheduler {

struct EventRecorderOptions {
  size_t queue_capacity = 1000;  // events waiting for the worker, and writes per writer
  int writers = 8;
  int spam_burst = 25;
  Duration spam_refill_interval = std::chrono::minutes(5);
  Duration series_finish_interval = std::chrono::minutes(6);
  Duration series_refresh_interval = std::chrono::minutes(30);
  Clock* clock = nullptr;  // RealClock() when null
};

// The events.k8s.io note limit and the marker upstream puts at the end of a cut note.
inline constexpr size_t kNoteLengthLimit = 1024;
// note cut to kNoteLengthLimit bytes ending in " ..." when longer.
std::string TruncateNote(std::string note);

class EventRecorder {
 public:
  EventRecorder(client::RestClient& client, std::string instance, size_t capacity = 1000);
  EventRecorder(client::RestClient& client, std::string instance, EventRecorderOptions options);
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // type "Normal" or "Warning" (others are dropped, as upstream); controller is the profile's
  // scheduler name, as upstream; related, when given, is the event's secondary object (part of
  // the series key, as in client-go). Never blocks on the network.
  void Record(const api::Pod& regarding, std::string_view controller, std::string_view type,
              std::string_view reason, std::string_view action, std::string note,
              const api::Pod* related = nullptr);

  // The object with this uid is gone (the pod was deleted): its series end now, each with a
  // final write of a count not yet written, and its spam bucket is dropped. Never blocks; an
  // empty uid is ignored.
  void ForgetObject(std::string uid);

  // Events dropped because a queue was full.
  uint64_t dropped() const { return dropped_.load(); }
  // Events dropped by the per-object spam filter.
  uint64_t spam_filtered() const { return spam_filtered_.load(); }
  // Writes the API server refused or that failed after the client's retries.
  uint64_t failed_writes() const { return failed_writes_.load(); }

  // Waits until the worker has handled everything recorded before the call and has run the
  // periodic series work that is due by the clock's current time, and the writers are idle.
  void SyncForTest();
  // What the worker kept at the end of its last pass: event series (single events included)
  // and spam buckets. Call after SyncForTest.
  struct Sizes {
    size_t series = 0;
    size_t spam_buckets = 0;
  };
  Sizes SizesForTest();

 private:
  struct Pending {
    api::EventRecord event;
    MonoTime at;
  };
  // A series write queued on a writer: until a writer starts it, a newer count of the series
  // goes into it instead of into a write of its own.
  struct SeriesWrite {
    Mutex mu;
    api::EventRecord event GUARDED_BY(mu);
    bool started GUARDED_BY(mu) = false;
  };
  // An event kept for its series: only what its series key does not hold (EventOf puts the
  // event back together), as thousands are kept for 6 minutes.
  struct Cached {
    std::string name;
    std::string event_time;          // of the first occurrence
    std::string note;                // of the first occurrence
    std::string last_observed_time;  // of the latest occurrence, once a series
    MonoTime first_seen;
    MonoTime last_observed;
    int32_t count = 1;    // >= 2 once a series
    int32_t written = 1;  // the count the API server was last sent (or will be, when queued)
    std::shared_ptr<SeriesWrite> queued;  // the series' last queued write
  };
  struct Bucket {
    double tokens;
    MonoTime last;
  };
  struct Writer {
    Mutex mu;
    CondVarAny cv;
    std::deque<std::function<void()>> tasks GUARDED_BY(mu);
    bool busy GUARDED_BY(mu) = false;
    std::jthread thread;
  };

  void Loop(std::stop_token stop);
  void WriterLoop(Writer& w, std::stop_token stop);
  // Queues a write on the writer that owns key; drops it when that writer is full.
  void Dispatch(const std::string& key, std::function<void()> write);
  void CountDrop();
  void Process(Pending& p);
  // Ends the series and drops the bucket of the object with uid.
  void Forget(const std::string& uid);
  // Queues the write of c's count as its series, or puts the count into its queued write when
  // no writer has started that yet.
  void DispatchSeries(const std::string& key, Cached& c);
  // Puts c's count into its queued write if no writer has started it; false otherwise.
  bool UpdateQueuedSeries(Cached& c);
  void RunPeriodic(MonoTime now);
  bool AllowSpam(const api::EventRecord& e, MonoTime now);
  // The event of series key as first written, with c's count and last observed time.
  static api::EventRecord EventOf(const std::string& key, const Cached& c);
  // Writes the series of e (series_count set); false when the failure is worth retrying later.
  bool WriteSeries(const api::EventRecord& e);
  Status Post(const api::EventRecord& e);
  std::string NextEventName(const std::string& object_name);

  client::RestClient& client_;
  const std::string instance_;
  const EventRecorderOptions options_;
  Clock& clock_;

  Mutex mu_;
  CondVarAny cv_;       // work for the worker
  CondVarAny sync_cv_;  // a worker pass finished
  std::deque<Pending> queue_ GUARDED_BY(mu_);
  // UIDs of deleted objects, handled after the events queued with them (at most
  // kMaxQueuedForgets; past it a deleted object's state waits for the 6-minute pass).
  std::vector<std::string> forget_ GUARDED_BY(mu_);
  Sizes sizes_ GUARDED_BY(mu_);
  bool sync_requested_ GUARDED_BY(mu_) = false;
  uint64_t passes_started_ GUARDED_BY(mu_) = 0;
  uint64_t passes_done_ GUARDED_BY(mu_) = 0;

  // Worker-thread state. Keys begin with the regarding object's uid, so an object's entries are
  // adjacent and ForgetObject finds them without a scan.
  std::map<std::string, Cached> series_;
  std::map<std::string, Bucket> spam_;
  MonoTime next_finish_;
  MonoTime next_refresh_;

  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> spam_filtered_{0};
  std::atomic<uint64_t> failed_writes_{0};
  std::atomic<int64_t> last_name_nanos_{0};
  std::atomic<int64_t> last_drop_log_nanos_{0};
  std::vector<std::unique_ptr<Writer>> writers_;  // started before the worker
  std::jthread thread_;  // last: starts after everything above is initialized
};

}  // namespace stowage::scheduler
