// BackoffQueue alone: the backoff arithmetic, its order, and what leaves it when.
#include "pkg/queue/backoff_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/stub_plugins.h"
#include "tests/unit/queue/parts_testing.h"

namespace stowage::queue::backoff_queue_test {
namespace {

using namespace std::chrono_literals;

// A failed pod: rejected `rejections` times, then failed with an error `errors` times in a row.
QueuedPodInfoPtr Failed(const std::string& name, int rejections, int errors, MonoTime at) {
  QueuedPodInfoPtr p = NewQueuedPod(name, 0, at);
  p->unschedulable_count = rejections;
  p->consecutive_errors_count = errors;
  if (errors == 0 && rejections > 0) p->unschedulable_plugins = {"Plugin"};
  return p;
}

TEST(BackoffQueueTest, ExpiryDoublesUpToTheMaxAlignedToSeconds) {
  struct Case {
    std::string name;
    int rejections, errors;
    Duration after_second;  // the failure's time past a whole second
    Duration max_backoff;
    Duration want;  // the expiry past that whole second
  };
  const std::vector<Case> cases = {
      {"never failed", 0, 0, 0ms, 10s, 0s},
      {"first rejection", 1, 0, 0ms, 10s, 1s},
      {"third rejection", 3, 0, 0ms, 10s, 4s},
      {"capped", 9, 0, 0ms, 10s, 10s},
      {"errors count, not rejections", 5, 2, 0ms, 10s, 2s},
      {"aligned down to the second", 1, 0, 700ms, 10s, 1s},
      {"no max: no backoff", 3, 0, 700ms, 0s, 0s},
  };
  FakeClock clock;
  testing::StubPrioritySort sort;
  const MonoTime second = MonoTime(1h);
  for (const Case& c : cases) {
    BackoffQueue q(sort, 1s, c.max_backoff, clock);
    auto p = Failed("p", c.rejections, c.errors, second + c.after_second);
    EXPECT_EQ(q.Expiry(*p) - second, c.want) << c.name;
  }
}

TEST(BackoffQueueTest, BacksOffUntilTheClockPassesTheExpirySecond) {
  FakeClock clock;  // starts at a whole hour
  testing::StubPrioritySort sort;
  BackoffQueue q(sort, 1s, 10s, clock);
  auto p = Failed("p", 2, 0, clock.Now());  // expires 2 s from now
  EXPECT_FALSE(q.IsBackingOff(*Failed("fresh", 0, 0, clock.Now()))) << "never failed";
  clock.Advance(2s + 999ms);
  EXPECT_TRUE(q.IsBackingOff(*p)) << "still within the expiry's second";
  clock.Advance(1ms);
  EXPECT_FALSE(q.IsBackingOff(*p));
}

TEST(BackoffQueueTest, PopsCompletedPodsInExpiryOrder) {
  FakeClock clock;
  testing::StubPrioritySort sort;
  BackoffQueue q(sort, 1s, 10s, clock);
  q.Add(Failed("long", 3, 0, clock.Now()), "Test");   // 4 s
  q.Add(Failed("short", 1, 0, clock.Now()), "Test");  // 1 s
  q.Add(Failed("mid", 2, 0, clock.Now()), "Test");    // 2 s
  EXPECT_EQ(q.PopCompleted(), nullptr);
  clock.Advance(3s);
  std::vector<std::string> done;
  while (QueuedPodInfoPtr p = q.PopCompleted()) done.push_back(p->pod().metadata.name);
  EXPECT_EQ(done, (std::vector<std::string>{"short", "mid"}));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_TRUE(q.Has("default/long"));
  EXPECT_FALSE(q.Has("default/short"));
}

// PopFromBackoffQ takes the first pod plugins rejected, backing off or not, and never one that
// failed with an error.
TEST(BackoffQueueTest, PopRejectedSkipsPodsThatFailedWithAnError) {
  FakeClock clock;
  testing::StubPrioritySort sort;
  BackoffQueue q(sort, 1s, 10s, clock);
  q.Add(Failed("error", 0, 1, clock.Now()), "Test");
  EXPECT_FALSE(q.HasRejected());
  EXPECT_EQ(q.PopRejected(), nullptr);
  q.Add(Failed("rejected", 3, 0, clock.Now()), "Test");
  ASSERT_TRUE(q.HasRejected());
  EXPECT_EQ(q.PopRejected()->pod().metadata.name, "rejected");
  EXPECT_EQ(q.size(), 1u);
}

TEST(BackoffQueueTest, UpdateAndDeleteByKey) {
  FakeClock clock;
  testing::StubPrioritySort sort;
  BackoffQueue q(sort, 1s, 10s, clock);
  q.Add(Failed("p", 1, 0, clock.Now()), "Test");
  auto relabelled = NewQueuedPod("p", 7)->pod_info;
  EXPECT_TRUE(q.Update("default/p", relabelled));
  EXPECT_EQ(q.Get("default/p")->pod_info, relabelled);
  EXPECT_FALSE(q.Update("default/q", relabelled));
  EXPECT_NE(q.Delete("default/p"), nullptr);
  EXPECT_EQ(q.Delete("default/p"), nullptr);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace stowage::queue::backoff_queue_test
