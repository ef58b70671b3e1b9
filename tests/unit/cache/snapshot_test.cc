// The incremental snapshot against a from-scratch one: after any sequence of cache changes, a
// long-lived snapshot that copied only changed nodes must equal a fresh full copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/cache/cache.h"
#include "tests/testing/builders.h"

namespace stowage::cache::snapshot_test {
namespace {

using testing::BuildNode;
using testing::BuildPod;

struct View {
  std::vector<std::string> order;
  std::vector<std::string> with_affinity;
  std::vector<std::string> with_anti_affinity;
  std::vector<std::string> nodes;  // "name pods cpu images" per node, in list order
  bool operator==(const View&) const = default;
};

void PrintTo(const View& v, std::ostream* os) {
  for (const auto& n : v.nodes) *os << "[" << n << "] ";
  *os << "affinity:";
  for (const auto& n : v.with_affinity) *os << " " << n;
  *os << " anti-affinity:";
  for (const auto& n : v.with_anti_affinity) *os << " " << n;
}

std::string Line(const framework::NodeInfo& n) {
  return n.name() + " " + std::to_string(n.pods().size()) + " " +
         std::to_string(n.requested().milli_cpu) + " " + std::to_string(n.image_states().size()) +
         " " + std::to_string(n.allocatable().milli_cpu);
}

View Describe(const Snapshot& s) {
  View v;
  for (const auto* n : s.List()) {
    v.order.push_back(n->name());
    v.nodes.push_back(Line(*n));
    EXPECT_EQ(s.Get(n->name()), n);
  }
  for (const auto* n : s.HavePodsWithAffinityList()) v.with_affinity.push_back(n->name());
  for (const auto* n : s.HavePodsWithRequiredAntiAffinityList()) {
    v.with_anti_affinity.push_back(n->name());
  }
  // The affinity lists keep no order (nodes join and leave them in place).
  std::sort(v.with_affinity.begin(), v.with_affinity.end());
  std::sort(v.with_anti_affinity.begin(), v.with_anti_affinity.end());
  return v;
}

api::NodePtr Node(const std::string& name, int zone, int cpu, bool image) {
  auto b = BuildNode().Name(name).Capacity(
      {{"cpu", std::to_string(cpu)}, {"memory", "8Gi"}, {"pods", "110"}});
  b.Label("topology.kubernetes.io/zone", "z" + std::to_string(zone));
  if (image) b.Image({"shared:1"}, 100);
  return b.Obj();
}

api::PodPtr Pod(const std::string& name, const std::string& node, bool anti_affinity) {
  auto b = BuildPod().Name(name).UID(name).Node(node).Req({{"cpu", "100m"}});
  if (anti_affinity) {
    b.PodAntiAffinityExists("app", "kubernetes.io/hostname", testing::PodAffinityKind::kRequired);
  }
  return b.Obj();
}

// Reads the snapshot as a plugin keeping per-node results across cycles would: refreshes only
// the nodes the change log names, and every node when the log cannot say.
struct LogReader {
  int64_t generation = -1;
  int64_t list_version = -1;
  std::unordered_map<const framework::NodeInfo*, std::pair<int64_t, std::string>> seen;
  int full = 0;
  int incremental = 0;

  void Sync(const Snapshot& s) {
    std::vector<const framework::NodeInfo*> changed;
    if (s.list_version() != list_version || !s.ChangedSince(generation, changed)) {
      seen.clear();
      for (const auto* n : s.List()) seen[n] = {n->generation(), Line(*n)};
      ++full;
    } else {
      for (const auto* n : changed) seen[n] = {n->generation(), Line(*n)};
      ++incremental;
    }
    generation = s.generation();
    list_version = s.list_version();
  }

  std::vector<std::string> Lines(const Snapshot& s) const {
    std::vector<std::string> out;
    for (const auto* n : s.List()) {
      auto it = seen.find(n);
      if (it == seen.end()) return {"missing " + n->name()};
      if (it->second.first != n->generation()) return {"stale " + n->name()};
      out.push_back(it->second.second);
    }
    return out;
  }
};

// Each listed node's list_position() names its place in List(), which memos rely on.
bool PositionsMatchTheList(const Snapshot& s) {
  for (size_t i = 0; i < s.List().size(); ++i) {
    if (s.List()[i]->list_position() != static_cast<int32_t>(i)) return false;
  }
  return true;
}

TEST(Snapshot, IncrementalUpdatesEqualAFreshCopy) {
  std::mt19937 rng(20261123);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Cache c;
  Snapshot every_step;                  // updated after each change
  Snapshot now_and_then;                // updated after a few changes, so it skips generations
  std::vector<api::NodePtr> nodes(12);  // slot i holds node "n<i>" or null
  struct PodSlot {
    api::PodPtr pod;
    bool assumed = false;
  };
  std::vector<PodSlot> pods(60);
  LogReader every_step_reader;
  LogReader now_and_then_reader;
  for (int step = 0; step < 3000; ++step) {
    int op = pick(8);
    int ni = pick(static_cast<int>(nodes.size()));
    int pi = pick(static_cast<int>(pods.size()));
    std::string node_name = "n" + std::to_string(ni);
    auto& slot = pods[pi];
    std::string pod_name = "p" + std::to_string(pi) + "-" + std::to_string(step);
    switch (op) {
      case 0:
      case 1:  // add a node, or update it (maybe moving it to another zone)
        nodes[ni] = Node(node_name, pick(3), 2 + pick(3), pick(2) == 0);
        c.AddNode(nodes[ni]);
        break;
      case 2:
        if (nodes[ni]) {
          c.RemoveNode(*nodes[ni]);
          nodes[ni] = nullptr;
        }
        break;
      case 3:
      case 4:  // a bound pod arrives (its node may not exist yet)
        if (!slot.pod) {
          slot = {Pod(pod_name, node_name, pick(4) == 0), false};
          ASSERT_TRUE(c.AddPod(slot.pod).ok());
        }
        break;
      case 5:  // assume a pod, or confirm the assumed one
        if (!slot.pod) {
          slot = {Pod(pod_name, node_name, pick(4) == 0), true};
          ASSERT_TRUE(c.AssumePod(framework::NewPodInfo(slot.pod)).ok());
        } else if (slot.assumed) {
          ASSERT_TRUE(c.AddPod(slot.pod).ok());
          slot.assumed = false;
        }
        break;
      case 6:  // the pod goes away (an assumed one is forgotten)
        if (slot.pod) {
          ASSERT_TRUE((slot.assumed ? c.ForgetPod(*slot.pod) : c.RemovePod(*slot.pod)).ok());
          slot = {};
        }
        break;
      case 7: ASSERT_TRUE(c.UpdateSnapshot(now_and_then).ok()); break;
    }
    ASSERT_TRUE(c.UpdateSnapshot(every_step).ok()) << "step " << step;
    Snapshot fresh;
    ASSERT_TRUE(c.UpdateSnapshot(fresh).ok());
    View want = Describe(fresh);
    ASSERT_EQ(Describe(every_step), want) << "step " << step << " op " << op;
    every_step_reader.Sync(every_step);
    ASSERT_EQ(every_step_reader.Lines(every_step), want.nodes) << "step " << step << " op " << op;
    ASSERT_TRUE(PositionsMatchTheList(every_step)) << "step " << step << " op " << op;
    if (op == 7) {
      ASSERT_EQ(Describe(now_and_then), want) << "step " << step;
      now_and_then_reader.Sync(now_and_then);
      ASSERT_EQ(now_and_then_reader.Lines(now_and_then), want.nodes) << "step " << step;
      ASSERT_TRUE(PositionsMatchTheList(now_and_then)) << "step " << step;
    }
  }
  // Node adds and removals force full reads; pod changes alone must not.
  EXPECT_GT(every_step_reader.incremental, every_step_reader.full);
  EXPECT_GT(now_and_then_reader.incremental, 0);
}

TEST(Snapshot, ZoneChangeReordersTheList) {
  Cache c;
  c.AddNode(Node("a", 0, 4, false));
  c.AddNode(Node("b", 0, 4, false));
  c.AddNode(Node("c", 1, 4, false));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(Describe(s).order, (std::vector<std::string>{"a", "c", "b"}));
  c.UpdateNode(nullptr, Node("a", 1, 4, false));  // zone z0 -> z1
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_EQ(Describe(s).order, (std::vector<std::string>{"b", "c", "a"}));
}

TEST(Snapshot, AffinityListsFollowPodsAddedAndRemovedLater) {
  Cache c;
  c.AddNode(Node("a", 0, 4, false));
  c.AddNode(Node("b", 0, 4, false));
  Snapshot s;
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.HavePodsWithRequiredAntiAffinityList().empty());
  auto p = Pod("anti", "b", true);
  ASSERT_TRUE(c.AddPod(p).ok());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  ASSERT_EQ(s.HavePodsWithRequiredAntiAffinityList().size(), 1u);
  EXPECT_EQ(s.HavePodsWithRequiredAntiAffinityList()[0]->name(), "b");
  ASSERT_TRUE(c.RemovePod(*p).ok());
  ASSERT_TRUE(c.UpdateSnapshot(s).ok());
  EXPECT_TRUE(s.HavePodsWithRequiredAntiAffinityList().empty());
}

}  // namespace
}  // namespace stowage::cache::snapshot_test
