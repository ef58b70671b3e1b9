// The handler pool: threads start on demand up to the cap, queued work waits, and Stop returns
// even when a task never finishes.
#include "pkg/server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

namespace stowage::server::worker_pool_test {
namespace {

TEST(WorkerPoolTest, StartsThreadsOnDemandUpToTheCap) {
  WorkerPool pool("test", 3);
  EXPECT_EQ(pool.ThreadCountForTest(), 0u);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::latch started(3);
  std::atomic<int> starts{0};
  std::atomic<int> done{0};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(pool.Submit([&, gate] {
      if (starts.fetch_add(1) < 3) started.count_down();  // a latch must not go below zero
      gate.wait();
      ++done;
    }));
  }
  started.wait();  // three run at once...
  EXPECT_EQ(pool.ThreadCountForTest(), 3u);
  EXPECT_EQ(pool.BusyCountForTest(), 3u);
  release.set_value();  // ...and the other two run after them
  // Stop drops queued tasks, so wait for all five before stopping.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done.load() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(done.load(), 5);
  EXPECT_EQ(pool.ThreadCountForTest(), 3u);
  pool.Stop(std::chrono::seconds(30));
  EXPECT_FALSE(pool.Submit([] {}));
}

TEST(WorkerPoolTest, StopLeavesAStuckTaskBehind) {
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> gate = release->get_future().share();
  std::latch started(1);
  {
    WorkerPool pool("test", 1);
    ASSERT_TRUE(pool.Submit([&started, gate] {
      started.count_down();
      gate.wait();
    }));
    started.wait();
    pool.Stop(std::chrono::milliseconds(10));  // returns although the task still runs
  }
  release->set_value();  // the detached thread finishes on its own
}

}  // namespace
}  // namespace stowage::server::worker_pool_test
