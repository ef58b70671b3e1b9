#include "stowage/plugins/helper/normalize_score.h"

#include <gtest/gtest.h>

#include <vector>

namespace stowage::plugins::helper::normalize_score_test {
namespace {

struct Case {
  bool reverse;
  std::vector<int64_t> scores;
  std::vector<int64_t> want;
};

class DefaultNormalizeScoreTest : public ::testing::TestWithParam<Case> {};

TEST_P(DefaultNormalizeScoreTest, MatchesUpstream) {
  const Case& c = GetParam();
  framework::NodeScoreList list;
  for (int64_t s : c.scores) list.push_back({"", s});
  EXPECT_TRUE(DefaultNormalizeScore(framework::kMaxNodeScore, c.reverse, list).IsSuccess());
  std::vector<int64_t> got;
  for (const auto& s : list) got.push_back(s.score);
  EXPECT_EQ(got, c.want);
}

// The cases of upstream's normalize_score_test.go, plus an empty list.
INSTANTIATE_TEST_SUITE_P(Upstream, DefaultNormalizeScoreTest,
                         ::testing::Values(Case{false, {1, 2, 3, 4}, {25, 50, 75, 100}},
                                           Case{true, {1, 2, 3, 4}, {75, 50, 25, 0}},
                                           Case{false, {1000, 10, 20, 30}, {100, 1, 2, 3}},
                                           Case{true, {1000, 10, 20, 30}, {0, 99, 98, 97}},
                                           Case{false, {1, 1, 1, 1}, {100, 100, 100, 100}},
                                           Case{false, {1000, 1, 1, 1}, {100, 0, 0, 0}},
                                           Case{true, {0, 1, 1, 1}, {100, 0, 0, 0}},
                                           Case{false, {0, 0, 0, 0}, {0, 0, 0, 0}},
                                           Case{true, {0, 0, 0, 0}, {100, 100, 100, 100}},
                                           Case{true, {}, {}}));

TEST(DefaultNormalizeScore, OtherMaxPriority) {
  framework::NodeScoreList list = {{"a", 3}, {"b", 6}};
  DefaultNormalizeScore(10, false, list);
  EXPECT_EQ(list[0].score, 5);
  EXPECT_EQ(list[1].score, 10);
}

}  // namespace
}  // namespace stowage::plugins::helper::normalize_score_test
