#include "pkg/scheduler/event_recorder.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "pkg/api/name_validation.h"
#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/common/random.h"
#include "stowage/common/mutex.h"

namespace stowage::scheduler {

namespace {

constexpr std::string_view kTruncatedSuffix = " ...";
// Events are named within DNS-subdomain limits; longer object names get a random name.
constexpr size_t kMaxNameLength = 253;
// The worker wakes at least this often even when nothing is due (a changed clock, spurious
// stop requests), so periodic work is never late by more.
constexpr Duration kMaxIdleWait = std::chrono::minutes(1);
// Deleted objects waiting for the worker at most (a mass deletion while a periodic write is
// slow); past it their state is dropped by the 6-minute pass instead.
constexpr size_t kMaxQueuedForgets = 1 << 16;

// Fields joined with a separator no Kubernetes name or reason contains.
std::string JoinKey(std::initializer_list<std::string_view> parts) {
  std::string key;
  for (std::string_view p : parts) {
    key.append(p);
    key += '\x1f';
  }
  return key;
}

// Both keys begin with the regarding object's uid, so that an object's entries are adjacent in
// the ordered maps (ForgetObject); the order of the fields is otherwise of no consequence.
std::string KeyPrefix(const std::string& uid) { return JoinKey({uid}); }

// client-go's eventKey: the note is deliberately not part of it; the related object is.
std::string SeriesKey(const api::EventRecord& e) {
  return JoinKey({e.regarding.uid, e.type, e.action, e.reason, e.reporting_controller,
                  e.reporting_instance, e.regarding_kind, e.regarding_api_version,
                  e.regarding.namespace_, e.regarding.name, e.regarding.resource_version,
                  e.related_kind, e.related_api_version, e.related.namespace_, e.related.name,
                  e.related.uid, e.related.resource_version});
}

// The fields of a key in order (JoinKey ends each with the separator).
std::vector<std::string_view> SplitKey(std::string_view key) {
  std::vector<std::string_view> parts;
  for (size_t end; (end = key.find('\x1f')) != std::string_view::npos; key.remove_prefix(end + 1)) {
    parts.push_back(key.substr(0, end));
  }
  return parts;
}

// client-go's getSpamKey: source, object and event type.
std::string SpamKey(const api::EventRecord& e) {
  return JoinKey({e.regarding.uid, e.reporting_controller, e.reporting_instance, e.regarding_kind,
                  e.regarding.namespace_, e.regarding.name, e.regarding_api_version, e.type});
}

// Erases the entries of map whose keys begin with prefix, calling each(key, value) first.
template <typename Map, typename Fn>
void EraseWithPrefix(Map& map, const std::string& prefix, Fn each) {
  auto it = map.lower_bound(prefix);
  while (it != map.end() && it->first.starts_with(prefix)) {
    each(it->first, it->second);
    it = map.erase(it);
  }
}

std::string EventPath(const api::EventRecord& e) {
  return "/apis/events.k8s.io/v1/namespaces/" + e.namespace_ + "/events/" + e.name;
}

// Failures that say nothing about the event itself: the API server was unreachable, busy or
// timed out, so the same write may succeed later.
bool IsTransient(const Status& s) {
  return client::IsServerError(s) || client::IsTooManyRequests(s) ||
         s.code() == StatusCode::kDeadlineExceeded;
}

}  // namespace

std::string TruncateNote(std::string note) {
  if (note.size() <= kNoteLengthLimit) return note;
  size_t cut = kNoteLengthLimit - kTruncatedSuffix.size();
  // Never split a UTF-8 character: the API server would reject the invalid string.
  while (cut > 0 && (static_cast<unsigned char>(note[cut]) & 0xC0) == 0x80) --cut;
  note.resize(cut);
  note += kTruncatedSuffix;
  return note;
}

EventRecorder::EventRecorder(client::RestClient& client, std::string instance, size_t capacity)
    : EventRecorder(client, std::move(instance), EventRecorderOptions{.queue_capacity = capacity}) {
}

EventRecorder::EventRecorder(client::RestClient& client, std::string instance,
                             EventRecorderOptions options)
    : client_(client),
      instance_(std::move(instance)),
      options_(options),
      clock_(options.clock ? *options.clock : RealClock()) {
  MonoTime now = clock_.Now();
  next_finish_ = now + options_.series_finish_interval;
  next_refresh_ = now + options_.series_refresh_interval;
  for (int i = 0; i < std::max(1, options_.writers); ++i) {
    auto w = std::make_unique<Writer>();
    Writer* raw = w.get();
    w->thread = std::jthread([this, raw](std::stop_token stop) { WriterLoop(*raw, stop); });
    writers_.push_back(std::move(w));
  }
  thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

EventRecorder::~EventRecorder() {
  // The worker first, since it feeds the writers.
  thread_.request_stop();
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
  for (auto& w : writers_) {
    w->thread.request_stop();
    w->cv.SignalAll();
  }
  for (auto& w : writers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

void EventRecorder::WriterLoop(Writer& w, std::stop_token stop) {
  while (true) {
    std::function<void()> task;
    {
      MutexLock l(w.mu);
      w.busy = false;
      w.cv.SignalAll();  // SyncForTest waits for idle writers
      while (w.tasks.empty() && !stop.stop_requested()) w.cv.Wait(w.mu, stop);
      if (stop.stop_requested()) return;
      task = std::move(w.tasks.front());
      w.tasks.pop_front();
      w.busy = true;
    }
    task();
  }
}

void EventRecorder::Dispatch(const std::string& key, std::function<void()> write) {
  Writer& w = *writers_[std::hash<std::string>{}(key) % writers_.size()];
  {
    MutexLock l(w.mu);
    if (w.tasks.size() >= options_.queue_capacity) {
      CountDrop();
      return;
    }
    w.tasks.push_back(std::move(write));
  }
  w.cv.Signal();
}

void EventRecorder::CountDrop() {
  uint64_t n = ++dropped_;
  // At most one line per 10 s: a flood of drops must not become a flood of logs.
  int64_t now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.Now().time_since_epoch()).count();
  int64_t last = last_drop_log_nanos_.load();
  if ((last == 0 || now - last >= 10'000'000'000LL) &&
      last_drop_log_nanos_.compare_exchange_strong(last, now)) {
    LOG_WARN("Event queue is full; dropping events (dropped so far: {})", n);
  }
}

std::string EventRecorder::NextEventName(const std::string& object_name) {
  // client-go names events <object>.<unix nanos in hex>; the nanos are kept strictly increasing
  // so two events in the same nanosecond still get distinct names.
  int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.WallNow().time_since_epoch())
          .count();
  int64_t last = last_name_nanos_.load();
  int64_t next;
  do {
    next = std::max(nanos, last + 1);
  } while (!last_name_nanos_.compare_exchange_weak(last, next));
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%llx", static_cast<unsigned long long>(next));
  std::string name = object_name + suffix;
  if (name.size() > kMaxNameLength || !api::IsDNS1123Subdomain(name)) return RandomUuid();
  return name;
}

void EventRecorder::Record(const api::Pod& regarding, std::string_view controller,
                           std::string_view type, std::string_view reason, std::string_view action,
                           std::string note, const api::Pod* related) {
  if (type != "Normal" && type != "Warning") {
    LOG_ERROR("Unsupported event type eventType=\"{}\"", type);
    return;
  }
  Pending p;
  api::EventRecord& e = p.event;
  e.name = NextEventName(regarding.metadata.name);
  e.namespace_ = regarding.metadata.namespace_.empty() ? "default" : regarding.metadata.namespace_;
  e.event_time = api::FormatTime(clock_.WallNow(), true);
  e.reporting_controller = std::string(controller);
  e.reporting_instance = std::string(controller) + "-" + instance_;
  e.action = std::string(action);
  e.reason = std::string(reason);
  e.note = TruncateNote(std::move(note));
  e.type = std::string(type);
  e.regarding_kind = "Pod";
  e.regarding_api_version = "v1";
  e.regarding = regarding.metadata;
  if (related) {
    e.related_kind = "Pod";
    e.related_api_version = "v1";
    e.related = related->metadata;
  }
  p.at = clock_.Now();
  {
    MutexLock l(mu_);
    if (queue_.size() >= options_.queue_capacity) {
      CountDrop();
      return;
    }
    queue_.push_back(std::move(p));
  }
  cv_.Signal();
}

void EventRecorder::ForgetObject(std::string uid) {
  if (uid.empty()) return;
  {
    MutexLock l(mu_);
    if (forget_.size() >= kMaxQueuedForgets) return;
    forget_.push_back(std::move(uid));
  }
  cv_.Signal();
}

EventRecorder::Sizes EventRecorder::SizesForTest() {
  MutexLock l(mu_);
  return sizes_;
}

void EventRecorder::SyncForTest() {
  {
    MutexLock l(mu_);
    uint64_t target = passes_started_ + 1;
    sync_requested_ = true;
    cv_.SignalAll();
    while (passes_done_ < target) sync_cv_.Wait(mu_, {});
  }
  for (auto& w : writers_) {
    MutexLock l(w->mu);
    while (!(w->tasks.empty() && !w->busy)) w->cv.Wait(w->mu, {});
  }
}

void EventRecorder::Loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    MonoTime due = std::min(next_finish_, next_refresh_);
    Duration wait = std::clamp<Duration>(due - clock_.Now(), Duration::zero(), kMaxIdleWait);
    std::deque<Pending> batch;
    std::vector<std::string> forget;
    uint64_t pass;
    {
      MutexLock l(mu_);
      const MonoTime deadline = std::chrono::steady_clock::now() + wait;
      while (queue_.empty() && forget_.empty() && !sync_requested_ && !stop.stop_requested() &&
             cv_.WaitUntil(mu_, stop, deadline)) {
      }
      if (stop.stop_requested()) return;
      batch.swap(queue_);
      forget.swap(forget_);
      sync_requested_ = false;
      pass = ++passes_started_;
    }
    for (Pending& p : batch) {
      if (stop.stop_requested()) return;
      Process(p);
    }
    // After the batch: every event recorded before an object's deletion was seen is in it or
    // in an earlier one, so none comes back to life after its forget.
    for (const std::string& uid : forget) Forget(uid);
    RunPeriodic(clock_.Now());
    {
      MutexLock l(mu_);
      passes_done_ = pass;
      sizes_ = Sizes{series_.size(), spam_.size()};
    }
    sync_cv_.SignalAll();
  }
}

void EventRecorder::Process(Pending& p) {
  std::string key = SeriesKey(p.event);
  if (auto it = series_.find(key); it != series_.end()) {
    Cached& c = it->second;
    c.last_observed = p.at;
    c.last_observed_time = p.event.event_time;
    // The second occurrence turns the event into a series at once; later ones wait for the
    // periodic writes.
    if (++c.count == 2) DispatchSeries(key, c);
    return;
  }
  if (!AllowSpam(p.event, p.at)) {
    spam_filtered_++;
    VLOG(4, "Event filtered as spam object=\"{}/{}\" reason=\"{}\"", p.event.regarding.namespace_,
         p.event.regarding.name, p.event.reason);
    return;
  }
  auto [it, inserted] = series_.emplace(
      key, Cached{p.event.name, p.event.event_time, p.event.note, {}, p.at, p.at, 1});
  (void)inserted;
  Dispatch(key, [this, e = std::move(p.event)] {
    if (Status s = Post(e); !s.ok()) {
      failed_writes_++;
      LOG_ERROR_ERR(s, "Unable to write event (will not retry!) event=\"{}/{}\"", e.namespace_,
                    e.name);
    }
  });
}

api::EventRecord EventRecorder::EventOf(const std::string& key, const Cached& c) {
  std::vector<std::string_view> f = SplitKey(key);
  if (f.size() != 17) f.resize(17);  // cannot happen: every key is a SeriesKey
  auto s = [&](size_t i) { return std::string(f[i]); };
  api::EventRecord e;
  e.name = c.name;
  e.event_time = c.event_time;
  e.note = c.note;
  e.regarding.uid = s(0);
  e.type = s(1);
  e.action = s(2);
  e.reason = s(3);
  e.reporting_controller = s(4);
  e.reporting_instance = s(5);
  e.regarding_kind = s(6);
  e.regarding_api_version = s(7);
  e.regarding.namespace_ = s(8);
  e.regarding.name = s(9);
  e.regarding.resource_version = s(10);
  e.related_kind = s(11);
  e.related_api_version = s(12);
  e.related.namespace_ = s(13);
  e.related.name = s(14);
  e.related.uid = s(15);
  e.related.resource_version = s(16);
  e.namespace_ = e.regarding.namespace_.empty() ? "default" : e.regarding.namespace_;
  e.series_count = c.count;
  e.series_last_observed_time = c.last_observed_time;
  return e;
}

bool EventRecorder::UpdateQueuedSeries(Cached& c) {
  if (c.queued == nullptr) return false;
  MutexLock l(c.queued->mu);
  if (c.queued->started) return false;
  c.queued->event.series_count = c.count;
  c.queued->event.series_last_observed_time = c.last_observed_time;
  c.written = c.count;
  return true;
}

void EventRecorder::DispatchSeries(const std::string& key, Cached& c) {
  if (UpdateQueuedSeries(c)) return;
  c.written = c.count;
  auto w = std::make_shared<SeriesWrite>();
  {
    MutexLock l(w->mu);
    w->event = EventOf(key, c);
  }
  c.queued = w;
  Dispatch(key, [this, w] {
    api::EventRecord e;
    {
      MutexLock l(w->mu);
      w->started = true;
      e = w->event;
    }
    WriteSeries(e);
  });
}

void EventRecorder::Forget(const std::string& uid) {
  const std::string prefix = KeyPrefix(uid);
  EraseWithPrefix(series_, prefix, [this](const std::string& key, Cached& c) {
    // The series ends here rather than 6 minutes on: its last count is written now.
    if (c.count >= 2 && c.count != c.written) DispatchSeries(key, c);
  });
  EraseWithPrefix(spam_, prefix, [](const std::string&, Bucket&) {});
}

bool EventRecorder::AllowSpam(const api::EventRecord& e, MonoTime now) {
  const double burst = options_.spam_burst;
  auto [it, inserted] = spam_.try_emplace(SpamKey(e), Bucket{burst, now});
  Bucket& b = it->second;
  if (!inserted && now > b.last) {
    double refill = std::chrono::duration<double>(now - b.last) /
                    std::chrono::duration<double>(options_.spam_refill_interval);
    b.tokens = std::min(burst, b.tokens + refill);
    b.last = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

Status EventRecorder::Post(const api::EventRecord& e) { return client::CreateEvent(client_, e); }

bool EventRecorder::WriteSeries(const api::EventRecord& e) {
  std::string patch = api::EncodeEventSeriesPatch(e.series_count, e.series_last_observed_time);
  Status s = client_.Patch(EventPath(e), patch, client::kStrategicMergePatch).status();
  if (client::IsNotFound(s)) {
    // The event expired or its first POST failed: create it whole, series included.
    s = Post(e);
    // Someone created it in between (a very young event): the patch applies now.
    if (client::IsAlreadyExists(s)) {
      s = client_.Patch(EventPath(e), patch, client::kStrategicMergePatch).status();
    }
  }
  if (s.ok()) return true;
  failed_writes_++;
  LOG_ERROR_ERR(s, "Unable to update event series event=\"{}/{}\" count={}", e.namespace_, e.name,
                e.series_count);
  return !IsTransient(s);
}

void EventRecorder::RunPeriodic(MonoTime now) {
  if (now >= next_finish_) {
    // upstream's finishSeries: write the final count of series that ended, forget old singles.
    for (auto it = series_.begin(); it != series_.end();) {
      Cached& c = it->second;
      bool forget = false;
      if (c.count >= 2) {
        if (c.last_observed + options_.series_finish_interval < now) {
          // A write still queued carries the final count; otherwise it is written here.
          forget = UpdateQueuedSeries(c);
          if (!forget) {
            c.written = c.count;
            forget = WriteSeries(EventOf(it->first, c));
          }
        }
      } else {
        forget = c.first_seen + options_.series_finish_interval < now;
      }
      it = forget ? series_.erase(it) : std::next(it);
    }
    // A bucket that has refilled completely is the same as no bucket.
    for (auto it = spam_.begin(); it != spam_.end();) {
      double refill = std::chrono::duration<double>(now - it->second.last) /
                      std::chrono::duration<double>(options_.spam_refill_interval);
      bool full = it->second.tokens + refill >= options_.spam_burst;
      it = full ? spam_.erase(it) : std::next(it);
    }
    next_finish_ = now + options_.series_finish_interval;
  }
  if (now >= next_refresh_) {
    // upstream's refreshExistingEventSeries: every live series gets its current count.
    for (auto& [key, c] : series_) {
      if (c.count < 2 || UpdateQueuedSeries(c)) continue;
      c.written = c.count;
      WriteSeries(EventOf(key, c));
    }
    next_refresh_ = now + options_.series_refresh_interval;
  }
}

}  // namespace stowage::scheduler
