// LeaderElector's single attempt (upstream tryAcquireOrRenew) and its bookkeeping of the
// observed record. See leader_elector.h.
#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/common/logging.h"
#include "pkg/leaderelection/leader_elector.h"
#include "stowage/common/mutex.h"

namespace stowage::leaderelection {

using api::JsonQuote;

Status LeaderElector::TryAcquireOrRenew() {
  const MonoTime now = clock_.Now();
  const WallTime wall = clock_.WallNow();
  LeaderElectionRecord record;
  record.holder_identity = config_.identity;
  record.lease_duration_seconds = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  record.acquire_time = wall;
  record.renew_time = wall;

  // 1. The leader writes optimistically over the version it last wrote; if someone else changed
  // the lease the write fails with Conflict and the slow path below finds out what happened.
  if (IsLeader() && IsLeaseValid(now)) {
    LeaderElectionRecord old = GetObservedRecord();
    record.acquire_time = old.acquire_time;
    record.leader_transitions = old.leader_transitions;
    Status s = lock_->Update(record);
    if (s.ok()) {
      SetObservedRecord(record);
      held_until_ = (now + config_.lease_duration).time_since_epoch().count();
      return OkStatus();
    }
    VLOG(2, "\"Failed to update lease optimistically, falling back to slow path\" lock={} err={}",
         JsonQuote(desc_), JsonQuote(s.ToString()));
  }

  // 2. Read the lease, creating it if there is none.
  auto got = lock_->Get();
  if (!got.ok()) {
    if (!client::IsNotFound(got.status())) {
      LOG_ERROR("\"Error retrieving lease lock\" err={} lock={}",
                JsonQuote(got.status().ToString()), JsonQuote(desc_));
      return got.status().WithPrefix("reading lease " + desc_);
    }
    if (Status s = lock_->Create(record); !s.ok()) {
      LOG_ERROR("\"Error initially creating lease lock\" err={} lock={}", JsonQuote(s.ToString()),
                JsonQuote(desc_));
      return s.WithPrefix("creating lease " + desc_);
    }
    SetObservedRecord(record);
    held_until_ = (now + config_.lease_duration).time_since_epoch().count();
    return OkStatus();
  }

  // 3. A record that changed since the last read restarts the validity clock: the holder is
  // alive. Validity is judged by when this candidate saw the change, not by the times inside.
  const LeaderElectionRecord& old = got->record;
  ObserveKeyed(old, got->key);
  if (!old.holder_identity.empty() && IsLeaseValid(now) && !IsLeader()) {
    VLOG(4, "\"Lease is held by and has not yet expired\" lock={} holder={}", JsonQuote(desc_),
         JsonQuote(old.holder_identity));
    return UnavailableError("lease " + desc_ + " is held by " + JsonQuote(old.holder_identity) +
                            " and has not yet expired");
  }

  // 4. Take over (or renew through the slow path). A new holder counts one more transition and
  // starts a new acquireTime; the same holder keeps both.
  if (IsLeader()) {
    record.acquire_time = old.acquire_time;
    record.leader_transitions = old.leader_transitions;
    slow_path_count_++;
    if (callbacks_.on_slow_path) callbacks_.on_slow_path();
  } else {
    record.leader_transitions = old.leader_transitions + 1;
  }
  if (Status s = lock_->Update(record); !s.ok()) {
    LOG_ERROR("\"Failed to update lease\" err={} lock={}", JsonQuote(s.ToString()),
              JsonQuote(desc_));
    return s.WithPrefix("updating lease " + desc_);
  }
  SetObservedRecord(record);
  // Measured from before the write: no other candidate can have seen it earlier.
  held_until_ = (now + config_.lease_duration).time_since_epoch().count();
  return OkStatus();
}

void LeaderElector::MaybeReportTransition() {
  std::string holder = GetObservedRecord().holder_identity;
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (callbacks_.on_new_leader) callbacks_.on_new_leader(reported_leader_);
}

bool LeaderElector::IsLeader() const {
  MutexLock l(mu_);
  return observed_record_.holder_identity == config_.identity;
}

bool LeaderElector::HoldsLease() const {
  return clock_.Now().time_since_epoch().count() < held_until_.load();
}

std::string LeaderElector::GetLeader() const {
  MutexLock l(mu_);
  return observed_record_.holder_identity;
}

Status LeaderElector::Check() const {
  if (!IsLeader()) return OkStatus();  // a standby has nothing to renew
  MonoTime last;
  {
    MutexLock l(mu_);
    last = observed_time_;
  }
  if (clock_.Now() - last > config_.lease_duration + config_.watchdog_timeout) {
    return UnavailableError("failed election to renew leadership on lease " + config_.name);
  }
  return OkStatus();
}

void LeaderElector::ObserveWatched(const LeaderElectionRecord& record) {
  if (!ObserveKeyed(record, RecordKey(record)) || !record.holder_identity.empty()) return;
  MutexLock l(mu_);
  if (wake_ != nullptr) wake_->request_stop();
}

bool LeaderElector::ObserveKeyed(const LeaderElectionRecord& record, const std::string& key) {
  // A watch event older than a read already seen (the watch lagging) only restarts the clock
  // later than needed: it can delay a takeover, never hasten one.
  MonoTime now = clock_.Now();
  MutexLock l(mu_);
  if (observed_key_ == key) return false;
  observed_key_ = key;
  observed_record_ = record;
  observed_time_ = now;
  return true;
}

Duration LeaderElector::LeaseLeft(MonoTime now) const {
  MutexLock l(mu_);
  if (observed_record_.holder_identity.empty()) return Duration::zero();
  MonoTime end = observed_time_ + std::chrono::seconds(observed_record_.lease_duration_seconds);
  return end > now ? end - now : Duration::zero();
}

bool LeaderElector::IsLeaseValid(MonoTime now) const {
  MutexLock l(mu_);
  return observed_time_ + std::chrono::seconds(observed_record_.lease_duration_seconds) > now;
}

void LeaderElector::SetObservedRecord(const LeaderElectionRecord& record) {
  MonoTime now = clock_.Now();
  MutexLock l(mu_);
  observed_record_ = record;
  observed_time_ = now;
}

LeaderElectionRecord LeaderElector::GetObservedRecord() const {
  MutexLock l(mu_);
  return observed_record_;
}

}  // namespace stowage::leaderelection
