// StringMap::Get scans small maps and binary-searches large ones; both must find every key,
// keep the last of duplicate keys and miss absent keys, including ones that share a length or a
// prefix with a present key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/api/types.h"

namespace stowage::api {
namespace {

StringMap MapOf(size_t n) {
  std::vector<StringMap::Entry> entries;
  for (size_t i = 0; i < n; ++i) {
    entries.emplace_back("topology.kubernetes.io/k" + std::to_string(i), "v" + std::to_string(i));
  }
  entries.emplace_back("topology.kubernetes.io/k0", "last");  // a later duplicate wins
  return StringMap(std::move(entries));
}

TEST(StringMap, GetFindsEveryKeyOfSmallAndLargeMaps) {
  for (size_t n : {1u, 4u, 16u, 17u, 40u}) {
    const StringMap m = MapOf(n);
    ASSERT_EQ(m.size(), n);
    ASSERT_NE(m.Get("topology.kubernetes.io/k0"), nullptr) << n;
    EXPECT_EQ(*m.Get("topology.kubernetes.io/k0"), "last") << n;
    for (size_t i = 1; i < n; ++i) {
      const std::string* v = m.Get("topology.kubernetes.io/k" + std::to_string(i));
      ASSERT_NE(v, nullptr) << n << " " << i;
      EXPECT_EQ(*v, "v" + std::to_string(i));
    }
    EXPECT_EQ(m.Get("topology.kubernetes.io/kx"), nullptr) << n;  // same length as k1
    EXPECT_EQ(m.Get("topology.kubernetes.io/k"), nullptr) << n;   // a prefix
    EXPECT_EQ(m.Get(""), nullptr) << n;
  }
  EXPECT_EQ(StringMap().Get("a"), nullptr);
}

}  // namespace
}  // namespace stowage::api
