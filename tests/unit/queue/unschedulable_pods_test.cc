// UnschedulablePods alone: holding, replacing and taking pods out, and the gated count.
#include "pkg/queue/unschedulable_pods.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "pkg/metrics/metrics.h"
#include "tests/unit/queue/parts_testing.h"

namespace stowage::queue::unschedulable_pods_test {
namespace {

QueuedPodInfoPtr Held(const std::string& name, bool gated) {
  QueuedPodInfoPtr p = NewQueuedPod(name);
  if (gated) p->gating_plugin = "Gate";
  return p;
}

TEST(UnschedulablePodsTest, CountsPodsAndGatedPods) {
  struct Op {
    enum { kPut, kDelete } kind;
    std::string name;
    bool gated = false;
  };
  struct Case {
    std::string name;
    std::vector<Op> ops;
    size_t want_size, want_gated, want_arrivals;
  };
  const std::vector<Case> cases = {
      {"one of each", {{Op::kPut, "a", true}, {Op::kPut, "b"}}, 2, 1, 2},
      {"ungated in place", {{Op::kPut, "a", true}, {Op::kPut, "a", false}}, 1, 0, 1},
      {"gated in place", {{Op::kPut, "a"}, {Op::kPut, "a", true}}, 1, 1, 1},
      {"deleted", {{Op::kPut, "a", true}, {Op::kDelete, "a"}, {Op::kDelete, "a"}}, 0, 0, 1},
  };
  prometheus::Counter& arrivals =
      metrics::QueueIncomingPods(metrics::Queue::kUnschedulable, "PartTest");
  for (const Case& c : cases) {
    const double before = arrivals.Value();
    UnschedulablePods u;
    for (const Op& op : c.ops) {
      if (op.kind == Op::kPut) {
        u.Put("default/" + op.name, Held(op.name, op.gated), "PartTest");
      } else {
        u.Delete("default/" + op.name);
      }
    }
    EXPECT_EQ(u.size(), c.want_size) << c.name;
    EXPECT_EQ(u.gated(), c.want_gated) << c.name;
    EXPECT_EQ(arrivals.Value() - before, c.want_arrivals) << c.name;
  }
}

TEST(UnschedulablePodsTest, TakeWhileWalking) {
  UnschedulablePods u;
  for (const std::string name : {"a", "b", "c", "d"}) {
    u.Put("default/" + name, Held(name, name == "b" || name == "d"), "PartTest");
  }
  std::vector<std::string> taken;
  for (auto it = u.begin(); it != u.end();) {
    if (it->second->gating_plugin.empty()) {
      ++it;
      continue;
    }
    QueuedPodInfoPtr p;
    it = u.Take(it, &p);
    taken.push_back(p->pod().metadata.name);
  }
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(taken, (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(u.size(), 2u);
  EXPECT_EQ(u.gated(), 0u);
  EXPECT_TRUE(u.Has("default/a"));
  EXPECT_EQ(u.Get("default/b"), nullptr);
}

TEST(UnschedulablePodsTest, RemembersFlushedPodsUntilForgotten) {
  UnschedulablePods u;
  EXPECT_FALSE(u.WasFlushed("uid"));
  u.MarkFlushed("uid");
  EXPECT_TRUE(u.WasFlushed("uid"));
  u.ForgetFlushed("uid");
  EXPECT_FALSE(u.WasFlushed("uid"));
}

TEST(UnschedulablePodsTest, CandidatesAreThePodsUnderTheEventsKeysAndThoseNoPluginRejected) {
  UnschedulablePods u;
  // Each pod waits for the object named by its name's first letter.
  u.SetKeys([](const api::Pod& pod, std::vector<std::string>& out) {
    out.push_back(pod.metadata.name.substr(0, 1));
  });
  auto rejected = [](const std::string& name) {
    QueuedPodInfoPtr p = NewQueuedPod(name);
    p->unschedulable_plugins = {"Plugin"};
    return p;
  };
  u.Put("default/a1", rejected("a1"), "PartTest");
  u.Put("default/a2", rejected("a2"), "PartTest");
  u.Put("default/b1", rejected("b1"), "PartTest");
  u.Put("default/c1", NewQueuedPod("c1"), "PartTest");  // no plugin rejected it
  auto sorted = [&](std::vector<std::string> keys) {
    std::vector<std::string> out = u.Candidates(keys);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(sorted({"a"}), (std::vector<std::string>{"default/a1", "default/a2", "default/c1"}));
  EXPECT_EQ(sorted({"b", "a"}),
            (std::vector<std::string>{"default/a1", "default/a2", "default/b1", "default/c1"}));
  EXPECT_EQ(sorted({"z"}), (std::vector<std::string>{"default/c1"}));
  // Taken, deleted or replaced pods leave the index; a replaced one is found under its new keys.
  u.Delete("default/a1");
  QueuedPodInfoPtr out;
  for (auto it = u.begin(); it != u.end();) {
    it = it->first == "default/c1" ? u.Take(it, &out) : std::next(it);
  }
  u.Put("default/b1", rejected("a3"), "PartTest");
  EXPECT_EQ(sorted({"a"}), (std::vector<std::string>{"default/a2", "default/b1"}));
  EXPECT_EQ(sorted({"b"}), (std::vector<std::string>{}));
}

}  // namespace
}  // namespace stowage::queue::unschedulable_pods_test
