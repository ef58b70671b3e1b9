// CycleState: reads are checked against the type written, and clones carry every entry.
#include "stowage/framework/cycle_state.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace stowage::framework::cycle_state_test {
namespace {

struct Counter final : StateData {
  explicit Counter(int v) : value(v) {}
  int value;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<Counter>(*this); }
};

struct Other final : StateData {
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<Other>(); }
};

TEST(CycleState, ReadFindsWhatWasWritten) {
  CycleState state;
  EXPECT_EQ(state.Read<Counter>("k"), nullptr);
  state.Write("k", std::make_unique<Counter>(3));
  ASSERT_NE(state.Read<Counter>("k"), nullptr);
  EXPECT_EQ(state.Read<Counter>("k")->value, 3);
  state.ReadMutable<Counter>("k")->value = 4;
  EXPECT_EQ(state.Read<Counter>("k")->value, 4);
}

// Upstream's callers type-assert what Read returns; here a read as another type finds nothing
// instead of reinterpreting the entry.
TEST(CycleState, ReadingAsAnotherTypeFindsNothing) {
  CycleState state;
  state.Write("k", std::make_unique<Counter>(3));
  EXPECT_EQ(state.Read<Other>("k"), nullptr);
  EXPECT_EQ(state.ReadMutable<Other>("k"), nullptr);
  // Overwriting with another type retags the key.
  state.Write("k", std::make_unique<Other>());
  EXPECT_EQ(state.Read<Counter>("k"), nullptr);
  EXPECT_NE(state.Read<Other>("k"), nullptr);
}

// Entries are told apart by key when their types agree (Find compares the type first).
TEST(CycleState, KeysOfOneTypeStayApart) {
  CycleState state;
  state.Write("a", std::make_unique<Counter>(1));
  state.Write("b", std::make_unique<Counter>(2));
  state.Write("c", std::make_unique<Other>());
  EXPECT_EQ(state.Read<Counter>("a")->value, 1);
  EXPECT_EQ(state.Read<Counter>("b")->value, 2);
  EXPECT_EQ(state.Read<Counter>("c"), nullptr);
  EXPECT_EQ(state.Read<Counter>("d"), nullptr);
}

// Keys of one length that differ only in one byte, in the first word, in a later word and in the
// bytes past the last whole word, as the state keys of plugins do ("PreFilter..."/"PreScore...").
TEST(CycleState, KeysOfOneLengthDifferingInOneByteStayApart) {
  CycleState state;
  const std::string base = "PreFilterSomePluginXY";  // 21 bytes: two words and five more
  const std::vector<size_t> positions = {0, 7, 8, 15, 16, 20};
  for (size_t i = 0; i < positions.size(); ++i) {
    std::string key = base;
    key[positions[i]] = '#';
    state.Write(key, std::make_unique<Counter>(static_cast<int>(i)));
  }
  EXPECT_EQ(state.Read<Counter>(base), nullptr);
  for (size_t i = 0; i < positions.size(); ++i) {
    std::string key = base;
    key[positions[i]] = '#';
    ASSERT_NE(state.Read<Counter>(key), nullptr) << key;
    EXPECT_EQ(state.Read<Counter>(key)->value, static_cast<int>(i)) << key;
  }
  EXPECT_EQ(state.Read<Counter>(base.substr(0, 20)), nullptr);
}

TEST(CycleState, CloneIsDeepAndKeepsTypes) {
  CycleState state;
  state.Write("k", std::make_unique<Counter>(1));
  std::unique_ptr<CycleState> copy = state.Clone();
  copy->ReadMutable<Counter>("k")->value = 2;
  EXPECT_EQ(state.Read<Counter>("k")->value, 1);
  EXPECT_EQ(copy->Read<Counter>("k")->value, 2);
  EXPECT_EQ(copy->Read<Other>("k"), nullptr);
}

}  // namespace
}  // namespace stowage::framework::cycle_state_test
