// LeaderElector: Lease-based leader election with the behaviour of client-go's
// tools/leaderelection as kube-scheduler configures it (reference section 7).
//
// A candidate tries to acquire the lock every retry_period (jittered by a factor 1.2). Another
// holder's lease counts as valid for lease_duration after this candidate last SAW the record
// change, by its own monotonic clock, never by the timestamps in the record, so clock skew between
// machines does not matter. Beyond upstream, a standby over the real Lease also watches it
// (LeaseWatch), so it sees each renewal when it is written, and sleeps no later than the moment
// the lease it saw runs out; a release seen by the watch wakes it at once. That takes over a dead
// leader's lease leaseDuration after its last renewal, where polling alone adds up to two
// jittered retry periods; no candidate can take it earlier than upstream's would. The leader renews
// every retry_period; if no renewal succeeds within renew_deadline it stops leading. On stop with
// release_on_cancel it writes an empty holder with a one-second duration so that a standby takes
// over at once.
//
// Lifecycle of Run: acquire -> on_started_leading on its own thread -> renew until lost or
// stopped -> the leading stop_token fires -> release (if configured) -> "stopped leading" event
// -> wait for on_started_leading to return -> on_stopped_leading. on_stopped_leading is called
// whenever Run returns, even if this candidate never led (as upstream).
//
// Thread-safety: Run is called once, from one thread; IsLeader, GetLeader, Check and the counters
// may be called from any thread at any time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <stop_token>
#include <string>

#include "pkg/client/rest_client.h"
#include "pkg/client/rest_config.h"
#include "pkg/leaderelection/core_event_recorder.h"
#include "pkg/leaderelection/lock.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::leaderelection {

class LeaseWatch;

// Acquire attempts come every retry_period * [1, 1 + kJitterFactor).
inline constexpr double kJitterFactor = 1.2;

struct Config {
  std::string lock_namespace = "kube-system";
  std::string lock_name = "kube-scheduler";
  // Unique among candidates; kube-scheduler uses NewIdentity(), "<hostname>_<uuid>".
  std::string identity;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  // The election's name: the label of the leader_election_* metrics and the name in the
  // watchdog's error ("kube-scheduler" in kube-scheduler).
  std::string name = "kube-scheduler";
  // How long past the lease duration a leader that failed to renew still counts as healthy
  // (NewLeaderHealthzAdaptor(20s)).
  Duration watchdog_timeout = std::chrono::seconds(20);
  // source.component of the LeaderElection events: the first profile's schedulerName.
  std::string event_source = "default-scheduler";
};

struct Callbacks {
  // Required. Runs on its own thread once leadership is acquired; its stop_token is triggered
  // the moment leadership is lost or Run is stopped, and it must then return promptly: Run
  // waits for it before calling on_stopped_leading.
  std::function<void(std::stop_token)> on_started_leading;
  // Required. Called last, on Run's thread, whenever Run returns.
  std::function<void()> on_stopped_leading;
  // Optional. Called on Run's thread with the holder's identity when a different holder than the
  // last reported one is observed (including the first, and this candidate itself). Must not
  // block.
  std::function<void(const std::string&)> on_new_leader;
  // Optional metric hooks, called on Run's thread (at construction for the first false):
  // leader_election_master_status{name} and leader_election_slowpath_total{name}.
  std::function<void(bool)> on_leader_status;
  std::function<void()> on_slow_path;
};

class LeaderElector {
 public:
  // An elector on the Lease config.lock_namespace/config.lock_name through client, recording
  // LeaderElection events as config.event_source. client should be dedicated to the election
  // (see LeaderElectionRestConfig) so that a stuck request cannot outlast the renew deadline.
  // Fails, as upstream's NewLeaderElector, if the timings or callbacks are invalid.
  static StatusOr<std::unique_ptr<LeaderElector>> New(client::RestClient& client, Config config,
                                                      Callbacks callbacks,
                                                      Clock& clock = RealClock());
  // The same over any lock (tests); config's lock and event fields are unused.
  static StatusOr<std::unique_ptr<LeaderElector>> NewWithLock(std::unique_ptr<ResourceLock> lock,
                                                              Config config, Callbacks callbacks,
                                                              Clock& clock = RealClock());
  ~LeaderElector();

  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Blocks until stop is requested or leadership is lost (see the lifecycle above). Call once.
  void Run(std::stop_token stop);

  // Whether the last observed record names this candidate.
  bool IsLeader() const;
  // A version of the lock's record seen by a watch (LeaseWatch calls it; tests may too). A record
  // that differs from the last one seen restarts the holder's validity from now, as a read
  // would; one with no holder (released) wakes a waiting Acquire at once.
  void ObserveWatched(const LeaderElectionRecord& record);
  // Whether this candidate holds the lease by its own monotonic clock: from a successful acquire
  // or renewal until lease_duration after that attempt began, the earliest another candidate
  // may take over. A leader that was stalled (SIGSTOP, a long pause) sees false the moment it
  // resumes, before any renewal attempt. Lock-free; callable from any thread.
  bool HoldsLease() const;
  // The holder in the last observed record; empty before any observation.
  std::string GetLeader() const;
  // The watchdog behind the "leaderElection" health check: an error when this candidate is the
  // leader but has not renewed for longer than lease_duration + watchdog_timeout (it should have
  // stopped leading by then; a deadlock can prevent that). OK for a standby.
  Status Check() const;

  const std::string& identity() const { return config_.identity; }
  // Whether the apiserver refused this candidate's watch of the Lease (its RBAC grants no list and
  // watch on it, as kube-scheduler's does not), so that it only polls.
  bool LeaseWatchRefused() const;
  // Renewals and acquisitions that fell back to the slow path (read, then write) while leader.
  uint64_t slow_path_count() const { return slow_path_count_.load(); }
  // Waits up to timeout for queued LeaderElection events to be written, so that "stopped
  // leading" gets out before the process exits. True if none is left (or events are off).
  bool FlushEvents(Duration timeout);

  // "<hostname>_<random UUID v4>".
  static std::string NewIdentity();
  // The checks of upstream's NewLeaderElector.
  static Status Validate(const Config& config, const Callbacks& callbacks);

 private:
  LeaderElector(std::unique_ptr<CoreEventRecorder> recorder, std::unique_ptr<ResourceLock> lock,
                Config config, Callbacks callbacks, Clock& clock);

  // Loops until acquired (true) or stopped (false).
  bool Acquire(std::stop_token stop);
  // Renews until a renewal fails for renew_deadline or stop is requested.
  void Renew(std::stop_token stop);
  // Tries every retry_period until one renewal succeeds (OK), renew_deadline passes
  // (DeadlineExceeded, with the last failure) or stop is requested (Cancelled).
  Status PollRenew(std::stop_token stop);
  // One attempt: OK when this candidate holds the lease afterwards; otherwise why not.
  Status TryAcquireOrRenew();
  bool Release();
  void MaybeReportTransition();
  void SetLeaderStatus(bool leader);

  bool IsLeaseValid(MonoTime now) const;
  // How long another holder's lease stays valid from now; zero when there is none or it ran out.
  Duration LeaseLeft(MonoTime now) const;
  // Waits before the next acquire attempt: a jittered retry period, cut short at the moment the
  // observed lease runs out, or when the watch sees it released. False when stop is requested.
  bool WaitToRetry(std::stop_token stop);
  // Records a record read or watched under key; a key other than the last one restarts the
  // validity clock. True if it did.
  bool ObserveKeyed(const LeaderElectionRecord& record, const std::string& key);
  void SetObservedRecord(const LeaderElectionRecord& record);
  LeaderElectionRecord GetObservedRecord() const;
  Duration Jittered(Duration d);

  const std::unique_ptr<CoreEventRecorder> recorder_;  // null over a test lock
  const std::unique_ptr<ResourceLock> lock_;
  std::unique_ptr<LeaseWatch> watch_;  // null over a test lock
  const Config config_;
  const Callbacks callbacks_;
  Clock& clock_;
  const std::string desc_;  // the lock, for logs

  mutable Mutex mu_;
  LeaderElectionRecord observed_record_ GUARDED_BY(mu_);
  MonoTime observed_time_ GUARDED_BY(mu_){};
  // RecordKey of the record last read or watched (not written): one that differs is a change
  // seen.
  std::string observed_key_ GUARDED_BY(mu_);
  // Set while Acquire waits: the watch requests stop on it to cut the wait short.
  std::stop_source* wake_ GUARDED_BY(mu_) = nullptr;
  std::string reported_leader_;  // Run's thread only
  std::mt19937_64 random_;       // Run's thread only
  std::atomic<uint64_t> slow_path_count_{0};
  // HoldsLease's deadline, in steady-clock ticks since its epoch; 0: not held.
  std::atomic<Duration::rep> held_until_{0};
};

// The client configuration for the election, from the scheduler's own (resourcelock
// NewFromKubeconfig): request timeout max(1s, renew_deadline / 2) so one hung request cannot
// cost the lease, user agent suffixed "/leader-election", and no client-side retries since the
// election retries every retry_period itself.
client::RestConfig LeaderElectionRestConfig(client::RestConfig base, Duration renew_deadline);

}  // namespace stowage::leaderelection
