// BindingPool: the scheduling loop waits while the queue of bindings is full or max_prebind
// PreBind threads run, a pod waiting at Permit takes neither a worker nor room, Drain reports
// what is left, Shutdown runs every queued binding before it returns, and PreBind threads take
// the next cycle instead of a thread each, without one cycle ever waiting behind another.
#include "pkg/scheduler/binding_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/testing/eventually.h"
#include "tests/testing/gate.h"

namespace stowage::scheduler::binding_pool_test {
namespace {

using stowage::testing::Eventually;
using stowage::testing::Gate;

TEST(BindingPoolTest, LoopWaitsWhileQueueIsFullAndResumesWhenAWorkerTakesOne) {
  Gate gate;  // declared first: the pool's workers wait on it until they are joined
  BindingPool pool(/*workers=*/1, /*max_queued=*/2);
  pool.Submit([&] { gate.Wait(); });
  ASSERT_TRUE(Eventually([&] { return gate.waiting() == 1; }));  // the worker is busy
  pool.Submit([&] { gate.Wait(); });
  pool.Submit([&] { gate.Wait(); });  // two queued: full
  std::atomic<bool> room{false};
  std::jthread loop([&](std::stop_token stop) {
    pool.WaitForRoom(stop);
    room = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(room) << "the loop went on while two bindings waited for the only worker";
  gate.Open();
  EXPECT_TRUE(Eventually([&] { return room.load(); }));
}

TEST(BindingPoolTest, StopRequestEndsTheWaitForRoom) {
  Gate gate;
  BindingPool pool(1, 1);
  pool.Submit([&] { gate.Wait(); });
  ASSERT_TRUE(Eventually([&] { return gate.waiting() == 1; }));
  pool.Submit([] {});
  std::atomic<bool> returned{false};
  std::jthread loop([&](std::stop_token stop) {
    pool.WaitForRoom(stop);
    returned = true;
  });
  loop.request_stop();
  EXPECT_TRUE(Eventually([&] { return returned.load(); }));
  gate.Open();
}

TEST(BindingPoolTest, PodWaitingAtPermitTakesNeitherWorkerNorRoom) {
  Gate permit;
  BindingPool pool(1, 1);
  pool.SubmitWaiting([&] { permit.Wait(); });
  ASSERT_TRUE(Eventually([&] { return permit.waiting() == 1; }));
  std::atomic<bool> bound{false};
  pool.Submit([&] { bound = true; });
  EXPECT_TRUE(Eventually([&] { return bound.load(); }));
  std::stop_source never;
  pool.WaitForRoom(never.get_token());                      // returns: nothing is queued
  EXPECT_EQ(pool.Drain(std::chrono::milliseconds(0)), 1u);  // the waiting pod
  pool.Shutdown([&] { permit.Open(); });
}

TEST(BindingPoolTest, LoopWaitsWhileMaxPrebindPreBindThreadsRun) {
  Gate prebind;
  Gate permit;
  BindingPool pool(/*workers=*/1, /*max_queued=*/4, /*max_prebind=*/2);
  // Pods held at Permit never count: their group may need the loop to go on.
  for (int i = 0; i < 3; ++i) pool.SubmitWaiting([&] { permit.Wait(); });
  std::stop_source never;
  pool.WaitForRoom(never.get_token());  // returns at once
  pool.SubmitWaiting([&] { prebind.Wait(); }, /*prebind=*/true);
  pool.WaitForRoom(never.get_token());  // one of two: still room
  pool.SubmitWaiting([&] { prebind.Wait(); }, /*prebind=*/true);
  ASSERT_TRUE(Eventually([&] { return prebind.waiting() == 2; }));
  std::atomic<bool> room{false};
  std::jthread loop([&](std::stop_token stop) {
    pool.WaitForRoom(stop);
    room = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(room) << "the loop went on while two PreBinds ran, the most allowed";
  prebind.Open();
  EXPECT_TRUE(Eventually([&] { return room.load(); }));
  pool.Shutdown([&] { permit.Open(); });
}

TEST(BindingPoolTest, APreBindThreadTakesTheNextCycleAndEndsWhenIdle) {
  BindingPool pool(/*workers=*/1, /*max_queued=*/4, /*max_prebind=*/8,
                   /*prebind_idle=*/std::chrono::milliseconds(300));
  std::atomic<int> ran{0};
  for (int i = 0; i < 5; ++i) {
    pool.SubmitWaiting([&] { ++ran; }, /*prebind=*/true);
    ASSERT_EQ(pool.Drain(std::chrono::seconds(20)), 0u);
    EXPECT_EQ(pool.ThreadsForTest(), 1u) << "cycle " << i << " started a thread of its own";
  }
  EXPECT_EQ(ran, 5);
  EXPECT_TRUE(Eventually([&] { return pool.ThreadsForTest() == 0; }))
      << "an idle PreBind thread outlived its idle time";
  pool.SubmitWaiting([&] { ++ran; }, /*prebind=*/true);  // a thread again
  EXPECT_EQ(pool.Drain(std::chrono::seconds(20)), 0u);
  EXPECT_EQ(ran, 6);
}

TEST(BindingPoolTest, PreBindCyclesHandedOnNeverWaitForEachOther) {
  Gate gate;
  BindingPool pool(/*workers=*/1, /*max_queued=*/4, /*max_prebind=*/8);
  // Two idle PreBind threads, then four cycles that all block: each must run at once, on an
  // idle thread or a new one, since a PreBind may wait minutes for a controller.
  Gate first;
  pool.SubmitWaiting([&] { first.Wait(); }, /*prebind=*/true);
  pool.SubmitWaiting([&] { first.Wait(); }, /*prebind=*/true);
  ASSERT_TRUE(Eventually([&] { return first.waiting() == 2; }));
  first.Open();
  ASSERT_EQ(pool.Drain(std::chrono::seconds(20)), 0u);
  ASSERT_EQ(pool.ThreadsForTest(), 2u);
  for (int i = 0; i < 4; ++i) pool.SubmitWaiting([&] { gate.Wait(); }, /*prebind=*/true);
  EXPECT_TRUE(Eventually([&] { return gate.waiting() == 4; }))
      << gate.waiting() << " of 4 PreBind cycles run; the others wait behind them";
  EXPECT_EQ(pool.ThreadsForTest(), 4u);
  gate.Open();
  EXPECT_EQ(pool.Drain(std::chrono::seconds(20)), 0u);
  pool.Shutdown({});
  EXPECT_EQ(pool.ThreadsForTest(), 0u) << "Shutdown returned before idle PreBind threads ended";
}

TEST(BindingPoolTest, DrainCountsWhatIsLeftAndReturnsZeroOnceAllRan) {
  Gate gate;
  BindingPool pool(1, 4);
  std::atomic<int> ran{0};
  pool.Submit([&] { gate.Wait(); });
  for (int i = 0; i < 3; ++i) pool.Submit([&] { ++ran; });
  EXPECT_EQ(pool.Drain(std::chrono::milliseconds(0)), 4u);
  gate.Open();
  EXPECT_EQ(pool.Drain(std::chrono::seconds(20)), 0u);
  EXPECT_EQ(ran, 3);
}

TEST(BindingPoolTest, ShutdownRunsEveryQueuedBindingThenReleasesWaiters) {
  std::atomic<int> ran{0};
  Gate permit;
  bool released = false;
  {
    BindingPool pool(2, 8);
    Gate gate;
    pool.Submit([&] { gate.Wait(); });
    for (int i = 0; i < 6; ++i) pool.Submit([&] { ++ran; });
    pool.SubmitWaiting([&] { permit.Wait(); });
    std::jthread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gate.Open();
    });
    pool.Shutdown([&] {
      // Every queued binding has run by the time waiters are released.
      EXPECT_EQ(ran, 6);
      released = true;
      permit.Open();
    });
  }
  EXPECT_TRUE(released);
  EXPECT_EQ(ran, 6);
}

}  // namespace
}  // namespace stowage::scheduler::binding_pool_test
