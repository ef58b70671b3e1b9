// TopologyCounts is a hash table whose pairs depend on the order they were added in: equality,
// lookups and the dropping of pairs that Update brings to zero must not.
#include "pkg/plugins/inter_pod_affinity/topology_counts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stowage::plugins::inter_pod_affinity::topology_counts_test {
namespace {

api::StringMap Labels(std::string host, std::string zone) {
  return api::StringMap({{"kubernetes.io/hostname", std::move(host)}, {"zone", std::move(zone)}});
}

// Counts (hostname host-i, 1) for i in [0, n) in the order given, plus (zone, z) with n.
TopologyCounts Hosts(const std::vector<int>& order) {
  std::vector<TopologyCounts::NodeRecords> nodes(order.size());
  std::vector<std::string> hosts;
  hosts.reserve(order.size());
  for (int i : order) hosts.push_back("scheduler-perf-host-" + std::to_string(i));
  for (size_t i = 0; i < order.size(); ++i) {
    nodes[i].Add("kubernetes.io/hostname", hosts[i], 1);
    nodes[i].Add("zone", "z", 1);
  }
  return TopologyCounts::Build(nodes);
}

TEST(TopologyCounts, BuildSumsPairsWhateverTheOrder) {
  std::vector<int> up, down;
  for (int i = 0; i < 300; ++i) up.push_back(i);
  for (int i = 299; i >= 0; --i) down.push_back(i);
  const TopologyCounts a = Hosts(up);
  const TopologyCounts b = Hosts(down);
  EXPECT_EQ(a.size(), 301u);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.Get("zone", "z"), 300);
  EXPECT_EQ(a.Get("kubernetes.io/hostname", "scheduler-perf-host-7"), 1);
  EXPECT_EQ(a.Get("kubernetes.io/hostname", "z"), 0);  // a value of another key
  EXPECT_EQ(a.Sum(Labels("scheduler-perf-host-7", "z")), 301);
  EXPECT_FALSE(a == Hosts(std::vector<int>(up.begin(), up.end() - 1)));
}

TEST(TopologyCounts, UpdateDropsPairsAtZeroAndAddKeepsThem) {
  TopologyCounts counts;
  const api::StringMap node = Labels("h1", "z1");
  counts.Update(node, "zone", 1);
  EXPECT_TRUE(counts.AnyPositive(node));
  counts.Update(node, "zone", -1);
  EXPECT_TRUE(counts.empty());
  EXPECT_FALSE(counts.AnyPositive(node));
  EXPECT_TRUE(counts == TopologyCounts());
  counts.Update(node, "zone", 2);  // the dropped pair comes back
  EXPECT_EQ(counts.Get("zone", "z1"), 2);
  EXPECT_EQ(counts.size(), 1u);

  TopologyCounts kept;
  kept.Add("zone", "z1", 1);
  kept.Add("zone", "z1", -1);
  EXPECT_FALSE(kept.empty());  // upstream's map += keeps a pair at zero
  EXPECT_FALSE(kept == TopologyCounts());
  // Growing the table past its first size keeps every count (the pairs are rehashed).
  for (int i = 0; i < 100; ++i) kept.Add("kubernetes.io/hostname", "h" + std::to_string(i), i);
  EXPECT_EQ(kept.Get("kubernetes.io/hostname", "h99"), 99);
  EXPECT_EQ(kept.Get("zone", "z1"), 0);
  EXPECT_EQ(kept.size(), 101u);
}

}  // namespace
}  // namespace stowage::plugins::inter_pod_affinity::topology_counts_test
