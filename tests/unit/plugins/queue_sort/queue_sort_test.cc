#include "pkg/plugins/queue_sort/queue_sort.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::queue_sort::queue_sort_test {
namespace {

framework::QueuedPodInfo Queued(std::optional<int32_t> priority, MonoTime ts) {
  auto w = testing::BuildPod().Name("p");
  if (priority) w.Priority(*priority);
  framework::QueuedPodInfo q;
  q.pod_info = framework::NewPodInfo(w.Obj());
  q.timestamp = ts;
  return q;
}

struct Case {
  std::string name;
  std::optional<int32_t> p1, p2;
  bool p1_earlier;
  bool want;
};

TEST(PrioritySort, Less) {
  const MonoTime t1 = MonoTime{} + std::chrono::seconds(100);
  const MonoTime t2 = t1 + std::chrono::seconds(1);
  const Case cases[] = {
      {"p1.priority less than p2.priority", 10, 100, true, false},
      {"p1.priority greater than p2.priority", 100, 10, false, true},
      {"equal priority, p1 added earlier", 100, 100, true, true},
      {"equal priority, p2 added earlier", 100, 100, false, false},
      {"unset priority counts as 0", std::nullopt, 1, true, false},
      {"unset priority above negative", std::nullopt, -1, false, true},
      {"both unset, earlier first", std::nullopt, std::nullopt, true, true},
  };
  PrioritySort sort;
  for (const auto& c : cases) {
    auto a = Queued(c.p1, c.p1_earlier ? t1 : t2);
    auto b = Queued(c.p2, c.p1_earlier ? t2 : t1);
    EXPECT_EQ(sort.Less(a, b), c.want) << c.name;
  }
}

TEST(PrioritySort, SameTimestampIsNotLess) {
  PrioritySort sort;
  auto a = Queued(5, MonoTime{});
  auto b = Queued(5, MonoTime{});
  EXPECT_FALSE(sort.Less(a, b));
  EXPECT_FALSE(sort.Less(b, a));
}

TEST(PrioritySort, Factory) {
  testing::FakeHandle handle;
  auto p = New({}, handle, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), names::kPrioritySort);
  EXPECT_NE(dynamic_cast<framework::QueueSortPlugin*>(p->get()), nullptr);
}

}  // namespace
}  // namespace stowage::plugins::queue_sort::queue_sort_test
