#include "pkg/leaderelection/leader_elector.h"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <sstream>
#include <thread>

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/common/logging.h"
#include "pkg/common/random.h"
#include "pkg/leaderelection/lease_lock.h"
#include "pkg/leaderelection/lease_watch.h"

namespace stowage::leaderelection {

using api::JsonQuote;

namespace {
// "15s", "0.5s".
std::string Seconds(Duration d) {
  std::ostringstream out;
  out << std::chrono::duration<double>(d).count() << "s";
  return out.str();
}
}  // namespace

Status LeaderElector::Validate(const Config& c, const Callbacks& cb) {
  auto bad = [](std::string what) { return InvalidArgumentError("leader election: " + what); };
  if (c.lease_duration <= c.renew_deadline) {
    return bad("lease duration (" + Seconds(c.lease_duration) +
               ") must be greater than renew deadline (" + Seconds(c.renew_deadline) + ")");
  }
  if (c.renew_deadline <= ScaleDuration(c.retry_period, kJitterFactor)) {
    return bad("renew deadline (" + Seconds(c.renew_deadline) +
               ") must be greater than retry period (" + Seconds(c.retry_period) +
               ") * 1.2 (the jitter factor)");
  }
  if (c.lease_duration < std::chrono::seconds(1)) {
    // The lease stores whole seconds: anything shorter would be written as 0.
    return bad("lease duration must be at least 1s");
  }
  if (c.renew_deadline <= Duration::zero()) return bad("renew deadline must be greater than zero");
  if (c.retry_period <= Duration::zero()) return bad("retry period must be greater than zero");
  if (!cb.on_started_leading) return bad("on_started_leading callback must be set");
  if (!cb.on_stopped_leading) return bad("on_stopped_leading callback must be set");
  if (c.identity.empty()) return bad("identity is empty");
  return OkStatus();
}

StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::New(client::RestClient& client,
                                                            Config config, Callbacks callbacks,
                                                            Clock& clock) {
  if (Status s = Validate(config, callbacks); !s.ok()) return s;
  auto recorder = std::make_unique<CoreEventRecorder>(client, config.event_source, clock);
  auto lock = std::make_unique<LeaseLock>(client, config.lock_namespace, config.lock_name,
                                          config.identity, recorder.get());
  std::string lease_namespace = config.lock_namespace, lease_name = config.lock_name;
  std::unique_ptr<LeaderElector> e(new LeaderElector(
      std::move(recorder), std::move(lock), std::move(config), std::move(callbacks), clock));
  e->watch_ = std::make_unique<LeaseWatch>(
      client, lease_namespace, lease_name,
      [raw = e.get()](const LeaderElectionRecord& r) { raw->ObserveWatched(r); });
  return e;
}

StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::NewWithLock(
    std::unique_ptr<ResourceLock> lock, Config config, Callbacks callbacks, Clock& clock) {
  config.identity = lock->Identity();
  if (Status s = Validate(config, callbacks); !s.ok()) return s;
  return std::unique_ptr<LeaderElector>(
      new LeaderElector(nullptr, std::move(lock), std::move(config), std::move(callbacks), clock));
}

LeaderElector::LeaderElector(std::unique_ptr<CoreEventRecorder> recorder,
                             std::unique_ptr<ResourceLock> lock, Config config, Callbacks callbacks,
                             Clock& clock)
    : recorder_(std::move(recorder)),
      lock_(std::move(lock)),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)),
      clock_(clock),
      desc_(lock_->Describe()),
      random_(std::random_device{}()) {
  SetLeaderStatus(false);
}

// The watch calls into this elector, so it stops first; the other members go in reverse order:
// the lock, which refers to the recorder, before the recorder.
LeaderElector::~LeaderElector() {
  if (watch_) watch_->Stop();
}

void LeaderElector::Run(std::stop_token stop) {
  // Only a standby needs to see renewals as they happen; a leader learns of a takeover from its
  // own renewals, as upstream.
  if (watch_) watch_->Start();
  const bool acquired = Acquire(stop);
  if (watch_) watch_->Stop();
  if (!acquired) {
    callbacks_.on_stopped_leading();
    return;
  }
  std::stop_source leading;
  std::stop_callback forward(stop, [&leading] { leading.request_stop(); });
  std::thread worker([this, token = leading.get_token()] { callbacks_.on_started_leading(token); });
  Renew(stop);
  // Whatever ended the renewals, the work guarded by the lease must stop now.
  held_until_ = 0;
  leading.request_stop();
  if (config_.release_on_cancel) Release();
  // Upstream leaves the gauge at 1 after a stop; once released, or stopped, this process no
  // longer leads, so say so.
  SetLeaderStatus(false);
  lock_->RecordEvent("stopped leading");
  worker.join();
  callbacks_.on_stopped_leading();
}

bool LeaderElector::Acquire(std::stop_token stop) {
  LOG_INFO("\"Attempting to acquire leader lease...\" lock={}", JsonQuote(desc_));
  while (!stop.stop_requested()) {
    Status s = TryAcquireOrRenew();
    MaybeReportTransition();
    if (s.ok()) {
      lock_->RecordEvent("became leader");
      SetLeaderStatus(true);
      LOG_INFO("\"Successfully acquired lease\" lock={}", JsonQuote(desc_));
      return true;
    }
    VLOG(4, "\"Failed to acquire lease\" lock={}", JsonQuote(desc_));
    if (!WaitToRetry(stop)) break;
  }
  return false;
}

bool LeaderElector::WaitToRetry(std::stop_token stop) {
  Duration wait = Jittered(config_.retry_period);
  // One millisecond past the end, since a lease is still valid at its last instant.
  if (Duration left = LeaseLeft(clock_.Now()); left > Duration::zero()) {
    wait = std::min(wait, left + std::chrono::milliseconds(1));
  }
  std::stop_source wake;
  std::stop_callback forward(stop, [&wake] { wake.request_stop(); });
  {
    MutexLock l(mu_);
    wake_ = &wake;
  }
  clock_.Sleep(wait, wake.get_token());
  MutexLock l(mu_);
  wake_ = nullptr;
  return !stop.stop_requested();
}

void LeaderElector::Renew(std::stop_token stop) {
  while (!stop.stop_requested()) {
    Status s = PollRenew(stop);
    MaybeReportTransition();
    if (s.code() == StatusCode::kCancelled) return;  // stopped: not a failure to renew
    if (!s.ok()) {
      SetLeaderStatus(false);
      LOG_INFO("\"Failed to renew lease\" lock={} err={}", JsonQuote(desc_),
               JsonQuote(s.ToString()));
      return;
    }
    VLOG(5, "\"Successfully renewed lease\" lock={}", JsonQuote(desc_));
    if (!clock_.Sleep(config_.retry_period, stop)) return;
  }
}

Status LeaderElector::PollRenew(std::stop_token stop) {
  const MonoTime deadline = clock_.Now() + config_.renew_deadline;
  MonoTime next = clock_.Now();
  Status last;
  for (;;) {
    if (stop.stop_requested()) return CancelledError("stopped");
    last = TryAcquireOrRenew();
    if (last.ok()) return last;
    // Attempts keep a fixed cadence from the first; a slow attempt is followed at once.
    MonoTime now = clock_.Now();
    next = std::max(next + config_.retry_period, now);
    if (next >= deadline) {
      // As upstream's poll, give up when the deadline passes, not at the last attempt before it.
      if (!clock_.Sleep(deadline - now, stop)) return CancelledError("stopped");
      return DeadlineExceededError("no renewal succeeded within the renew deadline of " +
                                   Seconds(config_.renew_deadline) +
                                   "; last attempt: " + last.ToString());
    }
    if (!clock_.Sleep(next - now, stop)) return CancelledError("stopped");
  }
}

bool LeaderElector::Release() {
  auto got = lock_->Get();
  if (!got.ok()) {
    if (!client::IsNotFound(got.status())) {
      LOG_ERROR("\"error retrieving resource lock\" err={} lock={}",
                JsonQuote(got.status().ToString()), JsonQuote(desc_));
    } else {
      LOG_INFO("\"lease lock not found\" lock={}", JsonQuote(desc_));
    }
    return false;
  }
  if (!IsLeader()) return true;
  // Upstream would release even a lease that the fresh read shows in someone else's hands
  // (when this candidate never saw the takeover); clearing a live holder only costs it a
  // spurious transition, but there is nothing of ours to release, so leave it.
  if (got->record.holder_identity != config_.identity) return true;
  const WallTime wall = clock_.WallNow();
  LeaderElectionRecord record;
  record.lease_duration_seconds = 1;
  record.acquire_time = wall;
  record.renew_time = wall;
  record.leader_transitions = got->record.leader_transitions;
  if (Status s = lock_->Update(record); !s.ok()) {
    LOG_ERROR("\"Failed to release lease\" err={} lock={}", JsonQuote(s.ToString()),
              JsonQuote(desc_));
    return false;
  }
  SetObservedRecord(record);
  return true;
}

void LeaderElector::SetLeaderStatus(bool leader) {
  if (callbacks_.on_leader_status) callbacks_.on_leader_status(leader);
}

Duration LeaderElector::Jittered(Duration d) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  return ScaleDuration(d, 1.0 + unit(random_) * kJitterFactor);
}

bool LeaderElector::LeaseWatchRefused() const { return watch_ && watch_->refused(); }

bool LeaderElector::FlushEvents(Duration timeout) {
  return recorder_ == nullptr || recorder_->Flush(timeout);
}

std::string LeaderElector::NewIdentity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "localhost");
  }
  return std::string(host) + "_" + RandomUuid();
}

client::RestConfig LeaderElectionRestConfig(client::RestConfig base, Duration renew_deadline) {
  base.timeout = std::max<Duration>(std::chrono::seconds(1), renew_deadline / 2);
  base.user_agent += "/leader-election";
  base.max_retries = 0;
  return base;
}

}  // namespace stowage::leaderelection
