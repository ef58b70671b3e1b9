// The elector's decisions over an in-memory lock and a fake clock: when it acquires (validity by
// local observation of record changes, not by the record's times), what it writes, when it gives
// up leadership, what release leaves behind, the watchdog, callbacks and hooks. A FakeClock's
// Sleep moves time forward at once, so these tests run through minutes of election in
// microseconds and every figure below is exact fake time.
#include "pkg/leaderelection/leader_elector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "pkg/client/errors.h"
#include "stowage/common/mutex.h"
#include "tests/unit/leaderelection/fake_lock.h"

namespace stowage::leaderelection::leader_elector_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs an elector over a FakeLock and records what its callbacks saw.
struct Harness {
  FakeClock clock;
  std::shared_ptr<FakeLockState> state = std::make_shared<FakeLockState>();
  Config config;
  std::stop_source stop;
  // What to do once leading (runs on the elector's worker thread); by default, stop.
  std::function<void()> while_leading = [this] { stop.request_stop(); };

  Mutex mu;
  std::vector<std::string> new_leaders;
  std::vector<bool> statuses;
  int slow_path_hook = 0;
  int started = 0;
  bool token_fired = false;
  bool stopped = false;
  MonoTime acquired_at{};
  std::unique_ptr<LeaderElector> elector;

  Harness() { config.identity = "me"; }

  LeaderElector& Make() {
    Callbacks cb;
    cb.on_started_leading = [this](std::stop_token token) {
      {
        MutexLock l(mu);
        ++started;
      }
      while_leading();
      Mutex m;
      CondVarAny cv;
      MutexLock l(m);
      while (!token.stop_requested()) cv.Wait(m, token);
      MutexLock g(mu);
      token_fired = true;
    };
    cb.on_stopped_leading = [this] {
      MutexLock l(mu);
      stopped = true;
    };
    cb.on_new_leader = [this](const std::string& id) {
      MutexLock l(mu);
      new_leaders.push_back(id);
    };
    cb.on_leader_status = [this](bool leader) {
      MutexLock l(mu);
      statuses.push_back(leader);
      // Called on Run's thread the moment the lease is won; the worker starts later, when the
      // renewals may already have moved fake time on.
      if (leader) acquired_at = clock.Now();
    };
    cb.on_slow_path = [this] {
      MutexLock l(mu);
      ++slow_path_hook;
    };
    auto e = LeaderElector::NewWithLock(std::make_unique<FakeLock>("me", state, clock), config,
                                        std::move(cb), clock);
    EXPECT_TRUE(e.ok()) << e.status();
    elector = std::move(*e);
    return *elector;
  }
  void Run() { elector->Run(stop.get_token()); }

  LeaderElectionRecord Held(std::string holder, int transitions = 0) {
    WallTime now = clock.WallNow();
    return LeaderElectionRecord{std::move(holder), 15, now, now, transitions, "", ""};
  }
};

// Hangs the renewals and waits until the elector is stuck in one (nobody sleeps through fake
// time any more); returns when its last successful write began.
MonoTime HangRenewals(Harness& h) {
  h.state->SetBlocked(true);
  MonoTime last;
  for (;;) {
    {
      MutexLock l(h.state->mu);
      last = h.state->last_write;
    }
    MonoTime before = h.clock.Now();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (h.clock.Now() == before) return last;
  }
}

TEST(LeaderElector, CreatesTheLeaseWhenThereIsNoneLeadsAndReleasesOnStop) {
  Harness h;
  std::optional<LeaderElectionRecord> while_held;
  h.while_leading = [&] {
    while_held = h.state->Read();
    h.stop.request_stop();
  };
  MonoTime t0 = h.clock.Now();
  WallTime w0 = h.clock.WallNow();
  h.Make();
  h.Run();

  EXPECT_EQ(h.started, 1);
  EXPECT_EQ(h.acquired_at, t0) << "the first attempt creates the lease and wins";
  ASSERT_TRUE(while_held);
  EXPECT_EQ(while_held->holder_identity, "me");
  EXPECT_EQ(while_held->lease_duration_seconds, 15);
  EXPECT_EQ(while_held->leader_transitions, 0);
  EXPECT_EQ(while_held->acquire_time, w0) << "renewals keep the acquire time";

  auto released = h.state->Read();
  ASSERT_TRUE(released);
  EXPECT_EQ(released->holder_identity, "");
  EXPECT_EQ(released->lease_duration_seconds, 1);
  EXPECT_EQ(released->leader_transitions, 0);
  EXPECT_TRUE(h.token_fired);
  EXPECT_TRUE(h.stopped);
  EXPECT_FALSE(h.elector->IsLeader());
  EXPECT_THAT(h.state->Events(), ElementsAre("me became leader", "me stopped leading"));
  EXPECT_THAT(h.new_leaders, ElementsAre("me"));
  EXPECT_THAT(h.statuses, ElementsAre(false, true, false));
  EXPECT_EQ(h.elector->slow_path_count(), 0u);
}

TEST(LeaderElector, WaitsOutAnotherHoldersLeaseByLocalObservationNotByItsTimestamps) {
  Harness h;
  // The holder's clock is an hour behind: by renewTime its lease expired long ago. Upstream
  // ignores that and waits a full lease duration after first seeing the record.
  LeaderElectionRecord other = h.Held("other", 3);
  other.acquire_time = other.renew_time = h.clock.WallNow() - std::chrono::hours(1);
  h.state->Write(other);
  std::optional<LeaderElectionRecord> while_held;
  h.while_leading = [&] {
    while_held = h.state->Read();
    h.stop.request_stop();
  };
  MonoTime t0 = h.clock.Now();
  h.Make();
  h.Run();

  ASSERT_EQ(h.started, 1);
  EXPECT_EQ(h.acquired_at - t0, seconds(15) + milliseconds(1))
      << "the wait ends when the lease it saw runs out, not at the next jittered retry";
  ASSERT_TRUE(while_held);
  EXPECT_EQ(while_held->holder_identity, "me");
  EXPECT_EQ(while_held->leader_transitions, 4) << "a new holder counts one more transition";
  EXPECT_NE(while_held->acquire_time, other.acquire_time) << "and starts a new acquire time";
  EXPECT_THAT(h.new_leaders, ElementsAre("other", "me"));
}

TEST(LeaderElector, AcquireAttemptsComeEveryRetryPeriodWithJitter) {
  Harness h;
  LeaderElectionRecord other = h.Held("other");
  other.lease_duration_seconds = 60;  // validity follows the record's duration
  h.state->Write(other);
  std::vector<MonoTime> attempts;
  // Every acquire attempt reads the lease once; this lock notes when.
  class TimedLock : public FakeLock {
   public:
    TimedLock(std::shared_ptr<FakeLockState> s, Clock& c, std::vector<MonoTime>& out)
        : FakeLock("me", std::move(s), c), clock_(c), out_(out) {}
    StatusOr<Observed> Get() override {
      out_.push_back(clock_.Now());
      return FakeLock::Get();
    }
    Clock& clock_;
    std::vector<MonoTime>& out_;
  };
  Callbacks cb;
  cb.on_started_leading = [&](std::stop_token) { h.stop.request_stop(); };
  cb.on_stopped_leading = [] {};
  auto e = LeaderElector::NewWithLock(std::make_unique<TimedLock>(h.state, h.clock, attempts),
                                      h.config, std::move(cb), h.clock);
  ASSERT_TRUE(e.ok()) << e.status();
  (*e)->Run(h.stop.get_token());
  ASSERT_GE(attempts.size(), 10u);
  // The last read is the release's, and the one before it the winning attempt, made the moment
  // the lease ran out; all others are a jittered retry period apart.
  for (size_t i = 1; i + 2 < attempts.size(); ++i) {
    Duration gap = attempts[i] - attempts[i - 1];
    EXPECT_GE(gap, seconds(2));
    EXPECT_LT(gap, seconds(2) * 2.2);
  }
  EXPECT_EQ(attempts[attempts.size() - 2] - attempts[0], seconds(60) + milliseconds(1));
}

// A FakeClock that runs scripted events at their times while someone sleeps through them: a
// world in which the holder renews on its own schedule and the watch delivers each renewal the
// moment it is written. A sleep that an event cuts short (its stop requested) ends at the event.
class ScriptedClock : public FakeClock {
 public:
  void At(MonoTime t, std::function<void()> f) {
    MutexLock l(mu_);
    events_.emplace(t, std::move(f));
  }
  bool Sleep(Duration d, std::stop_token stop = {}) override {
    const MonoTime end = Now() + d;
    for (;;) {
      std::function<void()> f;
      {
        MutexLock l(mu_);
        if (events_.empty() || events_.begin()->first > end) break;
        Advance(events_.begin()->first - Now());
        f = std::move(events_.begin()->second);
        events_.erase(events_.begin());
      }
      f();
      if (stop.stop_requested()) return false;
    }
    if (end > Now()) Advance(end - Now());
    return !stop.stop_requested();
  }

 private:
  Mutex mu_;
  std::multimap<MonoTime, std::function<void()>> events_ GUARDED_BY(mu_);
};

// The holder renews every 2 s for 30 s, then dies. Polling alone sees the last renewal at the
// next jittered retry (up to 4.4 s later) and counts the lease from there; a watch sees it when
// it is written, so the standby takes over exactly a lease duration after it.
TEST(LeaderElector, AWatchedRenewalCountsFromWhenItWasWrittenNotFromTheNextPoll) {
  ScriptedClock clock;
  auto state = std::make_shared<FakeLockState>();
  const MonoTime t0 = clock.Now();
  auto held = [&] {
    WallTime now = clock.WallNow();
    return LeaderElectionRecord{"other", 15, now, now, 0, "", ""};
  };
  state->Write(held());
  std::stop_source stop;
  MonoTime acquired_at{};
  Callbacks cb;
  cb.on_started_leading = [&](std::stop_token) { stop.request_stop(); };
  cb.on_stopped_leading = [] {};
  cb.on_leader_status = [&](bool leader) {
    if (leader) acquired_at = clock.Now();
  };
  Config config;
  auto e = LeaderElector::NewWithLock(std::make_unique<FakeLock>("me", state, clock), config,
                                      std::move(cb), clock);
  ASSERT_TRUE(e.ok()) << e.status();
  LeaderElector* elector = e->get();
  for (int k = 1; k <= 15; ++k) {
    clock.At(t0 + seconds(2 * k), [&] {
      LeaderElectionRecord r = held();
      state->Write(r);
      elector->ObserveWatched(r);
    });
  }
  elector->Run(stop.get_token());
  EXPECT_EQ(acquired_at - (t0 + seconds(30)), seconds(15) + milliseconds(1));
}

// A leader that steps down writes an empty holder; the watch wakes a standby that is waiting out
// its retry period, instead of leaving the lease unheld until the next poll.
TEST(LeaderElector, AReleaseSeenByTheWatchIsTakenAtOnce) {
  ScriptedClock clock;
  auto state = std::make_shared<FakeLockState>();
  const MonoTime t0 = clock.Now();
  WallTime w0 = clock.WallNow();
  state->Write(LeaderElectionRecord{"other", 15, w0, w0, 2, "", ""});
  std::stop_source stop;
  MonoTime acquired_at{};
  Callbacks cb;
  cb.on_started_leading = [&](std::stop_token) { stop.request_stop(); };
  cb.on_stopped_leading = [] {};
  cb.on_leader_status = [&](bool leader) {
    if (leader) acquired_at = clock.Now();
  };
  Config config;
  auto e = LeaderElector::NewWithLock(std::make_unique<FakeLock>("me", state, clock), config,
                                      std::move(cb), clock);
  ASSERT_TRUE(e.ok()) << e.status();
  LeaderElector* elector = e->get();
  // 1.5 s in: before the first retry, which comes 2 s or more after the first attempt.
  clock.At(t0 + milliseconds(1500), [&] {
    WallTime now = clock.WallNow();
    LeaderElectionRecord released{"", 1, now, now, 2, "", ""};
    state->Write(released);
    elector->ObserveWatched(released);
  });
  elector->Run(stop.get_token());
  EXPECT_EQ(acquired_at - t0, milliseconds(1500));
  EXPECT_EQ(state->Read()->leader_transitions, 3) << "one more transition, kept by the release";
}

TEST(LeaderElector, AHolderThatKeepsRenewingKeepsTheLease) {
  Harness h;
  h.state->Write(h.Held("other"));
  MonoTime t0 = h.clock.Now();
  MonoTime last_renewal = t0;
  // "other" renews whenever this candidate looks, for the first minute.
  class RenewingLock : public FakeLock {
   public:
    RenewingLock(Harness& h, MonoTime until, MonoTime& last)
        : FakeLock("me", h.state, h.clock), h_(h), until_(until), last_(last) {}
    StatusOr<Observed> Get() override {
      if (h_.clock.Now() < until_) {
        LeaderElectionRecord r = *h_.state->Read();
        r.renew_time = h_.clock.WallNow();
        h_.state->Write(r);
        last_ = h_.clock.Now();
      }
      return FakeLock::Get();
    }
    Harness& h_;
    MonoTime until_;
    MonoTime& last_;
  };
  Callbacks cb;
  MonoTime acquired_at{};
  cb.on_started_leading = [&](std::stop_token) { h.stop.request_stop(); };
  cb.on_stopped_leading = [] {};
  cb.on_leader_status = [&](bool leader) {
    if (leader) acquired_at = h.clock.Now();
  };
  auto e =
      LeaderElector::NewWithLock(std::make_unique<RenewingLock>(h, t0 + seconds(60), last_renewal),
                                 h.config, std::move(cb), h.clock);
  ASSERT_TRUE(e.ok()) << e.status();
  (*e)->Run(h.stop.get_token());
  EXPECT_GT(last_renewal, t0 + seconds(50));
  EXPECT_GE(acquired_at - last_renewal, seconds(15));
}

TEST(LeaderElector, TakesAReleasedLeaseAtOnce) {
  Harness h;
  LeaderElectionRecord released = h.Held("", 5);
  released.lease_duration_seconds = 1;
  h.state->Write(released);
  std::optional<LeaderElectionRecord> while_held;
  h.while_leading = [&] {
    while_held = h.state->Read();
    h.stop.request_stop();
  };
  MonoTime t0 = h.clock.Now();
  h.Make();
  h.Run();
  EXPECT_EQ(h.acquired_at, t0);
  ASSERT_TRUE(while_held);
  EXPECT_EQ(while_held->holder_identity, "me");
  EXPECT_EQ(while_held->leader_transitions, 6);
}

TEST(LeaderElector, StopsLeadingWhenNoRenewalSucceedsWithinTheRenewDeadline) {
  Harness h;
  h.while_leading = [&] { h.state->SetFail(UnavailableError("apiserver unreachable")); };
  h.Make();
  h.Run();  // returns by itself: leadership is lost
  EXPECT_FALSE(h.stop.stop_requested());
  EXPECT_TRUE(h.token_fired) << "the leading work was told to stop";
  EXPECT_TRUE(h.stopped);
  MonoTime last_write;
  {
    MutexLock l(h.state->mu);
    last_write = h.state->last_write;
  }
  Duration since_last_renewal = h.clock.Now() - last_write;
  // The poll that fails starts right after acquiring, or one retry period after the last
  // successful renewal; it gives up exactly at its deadline.
  EXPECT_TRUE(since_last_renewal == seconds(10) || since_last_renewal == seconds(2) + seconds(10))
      << std::chrono::duration<double>(since_last_renewal).count() << "s";
  EXPECT_THAT(h.statuses, ElementsAre(false, true, false, false));
  EXPECT_THAT(h.state->Events(), ElementsAre("me became leader", "me stopped leading"));
  EXPECT_EQ(h.state->Read()->holder_identity, "me") << "the release could not be written either";
}

TEST(LeaderElector, StepsDownWhenAnotherWriterTakesTheLease) {
  Harness h;
  h.while_leading = [&] { h.state->Write(h.Held("intruder", 9)); };
  h.Make();
  h.Run();
  EXPECT_FALSE(h.stop.stop_requested());
  EXPECT_TRUE(h.token_fired);
  EXPECT_EQ(h.elector->GetLeader(), "intruder");
  EXPECT_FALSE(h.elector->IsLeader());
  EXPECT_EQ(h.state->Read()->holder_identity, "intruder") << "release leaves others' leases alone";
  EXPECT_THAT(h.new_leaders, ElementsAre("me", "intruder"));
}

TEST(LeaderElector, ARenewalThatHitsAConflictGoesThroughTheSlowPathAndKeepsLeading) {
  Harness h;
  const WallTime acquired = h.clock.WallNow();
  std::optional<LeaderElectionRecord> after;
  h.while_leading = [&] {
    h.state->Touch();  // someone edits the object (say an annotation), not the record
    while (h.elector->slow_path_count() == 0) std::this_thread::yield();
    after = h.state->Read();
    h.stop.request_stop();
  };
  h.Make();
  h.Run();
  EXPECT_EQ(h.elector->slow_path_count(), 1u);
  EXPECT_EQ(h.slow_path_hook, 1);
  EXPECT_EQ(h.started, 1);
  EXPECT_THAT(h.state->Events(), ElementsAre("me became leader", "me stopped leading"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->holder_identity, "me");
  EXPECT_EQ(after->acquire_time, acquired) << "the slow path keeps the acquire time";
  EXPECT_EQ(after->leader_transitions, 0);
}

TEST(LeaderElector, WithoutReleaseOnCancelTheLeaseStaysHeldAfterStop) {
  Harness h;
  h.config.release_on_cancel = false;
  h.Make();
  h.Run();
  auto r = h.state->Read();
  EXPECT_EQ(r->holder_identity, "me");
  EXPECT_EQ(r->lease_duration_seconds, 15);
  EXPECT_TRUE(h.token_fired);
}

TEST(LeaderElector, StoppedBeforeAcquiringCallsOnlyOnStoppedLeading) {
  Harness h;
  h.state->Write(h.Held("other"));
  h.stop.request_stop();
  h.Make();
  h.Run();
  EXPECT_EQ(h.started, 0);
  EXPECT_TRUE(h.stopped);
  EXPECT_TRUE(h.state->Events().empty());
  EXPECT_EQ(h.state->Read()->holder_identity, "other");
}

TEST(LeaderElector, WatchdogFailsOnlyWhenTheLeaderHasNotRenewedForLeasePlusTimeout) {
  Harness h;
  std::atomic<bool> leading{false};
  h.while_leading = [&] { leading = true; };
  LeaderElector& e = h.Make();
  EXPECT_TRUE(e.Check().ok()) << "not leading: nothing to watch";
  std::thread runner([&] { h.Run(); });
  while (!leading) std::this_thread::yield();
  MonoTime last = HangRenewals(h);
  ASSERT_TRUE(e.IsLeader());
  h.clock.Advance(seconds(15) + seconds(20) - (h.clock.Now() - last));
  EXPECT_TRUE(e.Check().ok()) << "exactly lease duration + 20s is still healthy";
  h.clock.Advance(std::chrono::nanoseconds(1));
  Status s = e.Check();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "failed election to renew leadership on lease kube-scheduler");
  h.stop.request_stop();
  h.state->SetBlocked(false);
  runner.join();
}

// A leader whose renewals stall (as after SIGSTOP) no longer holds the lease by its own clock the
// moment lease_duration has passed since its last successful write began, though it still
// believes it leads and has not yet failed a renewal: this is what gates its bindings.
TEST(LeaderElector, HoldsLeaseEndsByTheLocalClockBeforeAnyRenewalFails) {
  Harness h;
  std::atomic<bool> leading{false};
  h.while_leading = [&] { leading = true; };
  LeaderElector& e = h.Make();
  EXPECT_FALSE(e.HoldsLease()) << "a candidate that never acquired holds nothing";
  std::thread runner([&] { h.Run(); });
  while (!leading) std::this_thread::yield();
  EXPECT_TRUE(e.HoldsLease());
  MonoTime last = HangRenewals(h);
  h.clock.Advance(seconds(15) - (h.clock.Now() - last) - std::chrono::nanoseconds(1));
  EXPECT_TRUE(e.HoldsLease());
  h.clock.Advance(std::chrono::nanoseconds(1));
  EXPECT_FALSE(e.HoldsLease()) << "another candidate may take over from now on";
  EXPECT_TRUE(e.IsLeader()) << "the elector itself has not noticed yet";
  h.stop.request_stop();
  h.state->SetBlocked(false);
  runner.join();
  EXPECT_FALSE(e.HoldsLease()) << "released";
}

TEST(LeaderElector, ValidateRejectsWhatUpstreamRejects) {
  Callbacks cb;
  cb.on_started_leading = [](std::stop_token) {};
  cb.on_stopped_leading = [] {};
  Config ok;
  ok.identity = "me";
  EXPECT_TRUE(LeaderElector::Validate(ok, cb).ok());

  Config c = ok;
  c.renew_deadline = c.lease_duration;
  EXPECT_THAT(std::string(LeaderElector::Validate(c, cb).message()),
              HasSubstr("lease duration (15s) must be greater than renew deadline"));
  c = ok;
  c.retry_period = seconds(9);  // 9 * 1.2 > 10
  EXPECT_THAT(std::string(LeaderElector::Validate(c, cb).message()),
              HasSubstr("renew deadline (10s) must be greater than retry period"));
  c = ok;
  c.lease_duration = std::chrono::hours(2562047);  // 1.2 * retry overflows int64 nanoseconds
  c.renew_deadline = std::chrono::hours(2562046);
  c.retry_period = std::chrono::hours(2562046);
  EXPECT_THAT(std::string(LeaderElector::Validate(c, cb).message()),
              HasSubstr("must be greater than retry period"));
  c = ok;
  c.identity = "";
  EXPECT_FALSE(LeaderElector::Validate(c, cb).ok());
  Callbacks missing = cb;
  missing.on_stopped_leading = nullptr;
  EXPECT_THAT(std::string(LeaderElector::Validate(ok, missing).message()),
              HasSubstr("on_stopped_leading"));
}

}  // namespace
}  // namespace stowage::leaderelection::leader_elector_test
