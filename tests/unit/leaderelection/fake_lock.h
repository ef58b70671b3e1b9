// FakeLock: an in-memory ResourceLock for the elector's unit tests. The stored record and its
// version live in a shared FakeLockState, so a test keeps looking at (and writing to) the lock
// after handing it to an elector, the way another candidate writes to a real Lease. Updates are
// optimistic like the API's: a write over a version other than the stored one is a Conflict.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/leaderelection/lock.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"

namespace stowage::leaderelection {

struct FakeLockState {
  Mutex mu;
  CondVar cv;
  std::optional<LeaderElectionRecord> record GUARDED_BY(mu);
  int64_t version GUARDED_BY(mu) = 0;
  std::vector<std::string> events GUARDED_BY(mu);
  int writes GUARDED_BY(mu) = 0;
  MonoTime last_write GUARDED_BY(mu){};
  // When set, every Get, Create and Update fails with it.
  Status fail GUARDED_BY(mu);
  // While true, Update waits (a hung API call).
  bool block_updates GUARDED_BY(mu) = false;

  // Another writer changes the record (bumping the version, as any write does).
  void Write(const LeaderElectionRecord& r) {
    MutexLock l(mu);
    record = r;
    ++version;
  }
  // Another writer touches the object without changing the record (say, an annotation).
  void Touch() {
    MutexLock l(mu);
    ++version;
  }
  std::optional<LeaderElectionRecord> Read() {
    MutexLock l(mu);
    return record;
  }
  void SetFail(Status s) {
    MutexLock l(mu);
    fail = std::move(s);
  }
  void SetBlocked(bool b) {
    {
      MutexLock l(mu);
      block_updates = b;
    }
    cv.SignalAll();
  }
  std::vector<std::string> Events() {
    MutexLock l(mu);
    return events;
  }
};

class FakeLock : public ResourceLock {
 public:
  FakeLock(std::string identity, std::shared_ptr<FakeLockState> state, Clock& clock)
      : identity_(std::move(identity)), state_(std::move(state)), clock_(clock) {}

  StatusOr<Observed> Get() override {
    MutexLock l(state_->mu);
    if (!state_->fail.ok()) return state_->fail;
    if (!state_->record) return NotFoundError("lease not found");
    seen_version_ = state_->version;
    return Observed{*state_->record, RecordKey(*state_->record)};
  }
  Status Create(const LeaderElectionRecord& r) override {
    MutexLock l(state_->mu);
    if (!state_->fail.ok()) return state_->fail;
    if (state_->record) return AlreadyExistsError("lease already exists");
    Store(r);
    return OkStatus();
  }
  Status Update(const LeaderElectionRecord& r) override {
    MutexLock l(state_->mu);
    while (state_->block_updates) state_->cv.Wait(state_->mu);
    if (!state_->fail.ok()) return state_->fail;
    if (!seen_version_) return FailedPreconditionError("update before get");
    if (*seen_version_ != state_->version) return AbortedError("conflict: the lease changed");
    Store(r);
    return OkStatus();
  }
  void RecordEvent(std::string_view message) override {
    MutexLock l(state_->mu);
    state_->events.push_back(identity_ + " " + std::string(message));
  }
  std::string Identity() const override { return identity_; }
  std::string Describe() const override { return "kube-system/fake"; }

 private:
  void Store(const LeaderElectionRecord& r) REQUIRES(state_->mu) {
    state_->record = r;
    seen_version_ = ++state_->version;
    state_->writes++;
    state_->last_write = clock_.Now();
  }

  const std::string identity_;
  std::shared_ptr<FakeLockState> state_;
  Clock& clock_;
  std::optional<int64_t> seen_version_;  // guarded by state_->mu
};

}  // namespace stowage::leaderelection
