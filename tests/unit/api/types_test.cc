// Tests for the sorted maps of stowage/api/types.h: lookups find every key and only those, whether
// the map is small enough to be scanned or large enough to be bisected.
#include "stowage/api/types.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace stowage::api::types_test {
namespace {

// A node's usual labels: keys sharing long prefixes and keys that prefix one another.
StringMap NodeLabels() {
  return StringMap({{"topology.kubernetes.io/zone", "zone-1"},
                    {"topology.kubernetes.io/region", "region-1"},
                    {"kubernetes.io/hostname", "node-1"},
                    {"kubernetes.io/os", "linux"},
                    {"kubernetes.io/o", "short"}});
}

// n labels "key-0" .. "key-(n-1)" with values "value-i", given in reverse order.
StringMap ManyLabels(int n) {
  std::vector<StringMap::Entry> entries;
  for (int i = n - 1; i >= 0; --i) {
    entries.emplace_back("key-" + std::to_string(i), "value-" + std::to_string(i));
  }
  return StringMap(std::move(entries));
}

TEST(StringMapTest, GetFindsEachKeyOfASmallMap) {
  const StringMap labels = NodeLabels();
  for (const auto& [key, value] : labels.entries()) {
    const std::string* got = labels.Get(key);
    ASSERT_NE(got, nullptr) << key;
    EXPECT_EQ(*got, value) << key;
  }
}

TEST(StringMapTest, GetMissesKeysThatOnlyShareAPrefixOrALength) {
  const StringMap labels = NodeLabels();
  for (const char* key :
       {"topology.kubernetes.io/zonE", "topology.kubernetes.io/zon", "topology.kubernetes.io/zones",
        "kubernetes.io/", "kubernetes.io/ox", "", "zone"}) {
    EXPECT_EQ(labels.Get(key), nullptr) << key;
  }
  EXPECT_EQ(StringMap().Get(""), nullptr);
}

TEST(StringMapTest, GetFindsEachKeyOfALargeMapAndMissesOthers) {
  for (int n : {8, 16, 17, 40}) {  // scanned, scanned, bisected, bisected
    const StringMap labels = ManyLabels(n);
    ASSERT_EQ(labels.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const std::string* got = labels.Get("key-" + std::to_string(i));
      ASSERT_NE(got, nullptr) << n << " " << i;
      EXPECT_EQ(*got, "value-" + std::to_string(i));
    }
    EXPECT_EQ(labels.Get("key-"), nullptr) << n;
    EXPECT_EQ(labels.Get("key-" + std::to_string(n)), nullptr) << n;
    EXPECT_EQ(labels.Get("a"), nullptr) << n;
    EXPECT_EQ(labels.Get("z"), nullptr) << n;
  }
}

TEST(StringMapTest, LaterDuplicatesWin) {
  const StringMap labels({{"app", "a"}, {"tier", "t"}, {"app", "b"}});
  EXPECT_EQ(labels.size(), 2u);
  ASSERT_NE(labels.Get("app"), nullptr);
  EXPECT_EQ(*labels.Get("app"), "b");
}

TEST(ResourceListTest, GetFindsNamesAndMissesOthers) {
  const ResourceList list({{"memory", *Quantity::Parse("1Gi")},
                           {"cpu", *Quantity::Parse("2")},
                           {"nvidia.com/gpu", *Quantity::Parse("1")}});
  ASSERT_NE(list.Get("cpu"), nullptr);
  EXPECT_EQ(list.Get("cpu")->MilliValue(), 2000);
  ASSERT_NE(list.Get("nvidia.com/gpu"), nullptr);
  EXPECT_EQ(list.Get("nvidia.com/gpu")->Value(), 1);
  EXPECT_EQ(list.Get("cpus"), nullptr);
  EXPECT_EQ(list.Get("pods"), nullptr);
}

}  // namespace
}  // namespace stowage::api::types_test
