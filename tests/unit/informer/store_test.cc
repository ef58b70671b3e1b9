// Store's change log: a reader that asks (ChangesSince) gets every write after its version, in
// order, or a clear "list again" when they are no longer all kept.
#include "pkg/informer/store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace stowage::informer::store_test {
namespace {

struct Obj {
  std::string name;
};
using ObjStore = informer::Store<Obj>;
using Change = ObjStore::Change;

std::shared_ptr<const Obj> Make(std::string name) {
  return std::make_shared<const Obj>(Obj{std::move(name)});
}

TEST(StoreChanges, WritesBeforeTheFirstQuestionAreNotKept) {
  ObjStore store;
  store.Upsert("a", Make("a1"));
  std::vector<Change> out;
  uint64_t now = 0;
  EXPECT_FALSE(store.ChangesSince(0, out, now)) << "the write came before anyone asked";
  EXPECT_EQ(now, 1u);
  EXPECT_TRUE(store.ChangesSince(1, out, now)) << "nothing since the current version";
  EXPECT_TRUE(out.empty());
}

TEST(StoreChanges, AddsReplacementsAndRemovalsComeInOrder) {
  ObjStore store;
  std::vector<Change> out;
  uint64_t now = 0;
  ASSERT_TRUE(store.ChangesSince(0, out, now));  // starts the log
  const auto a1 = Make("a1"), a2 = Make("a2"), b1 = Make("b1");
  store.Upsert("a", a1);
  store.Upsert("b", b1);
  store.Upsert("a", a2);
  store.Remove("b");
  store.Remove("missing");  // not a write
  ASSERT_TRUE(store.ChangesSince(0, out, now));
  EXPECT_EQ(now, 4u);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].before, nullptr);
  EXPECT_EQ(out[0].after, a1);
  EXPECT_EQ(out[1].after, b1);
  EXPECT_EQ(out[2].before, a1);
  EXPECT_EQ(out[2].after, a2);
  EXPECT_EQ(out[3].before, b1);
  EXPECT_EQ(out[3].after, nullptr);

  out.clear();
  ASSERT_TRUE(store.ChangesSince(2, out, now)) << "from a version in the middle";
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].after, a2);
  out.clear();
  EXPECT_FALSE(store.ChangesSince(5, out, now)) << "a version the store never had";
}

TEST(StoreChanges, AReaderTooFarBehindListsAgain) {
  ObjStore store;
  std::vector<Change> out;
  uint64_t now = 0;
  ASSERT_TRUE(store.ChangesSince(0, out, now));
  const uint64_t writes = ObjStore::kKeptChanges + 3;
  for (uint64_t i = 0; i < writes; ++i) store.Upsert("k" + std::to_string(i), Make("x"));
  EXPECT_FALSE(store.ChangesSince(0, out, now)) << "the first writes were dropped";
  EXPECT_FALSE(store.ChangesSince(2, out, now));
  ASSERT_TRUE(store.ChangesSince(3, out, now)) << "the oldest kept write is the fourth";
  EXPECT_EQ(out.size(), ObjStore::kKeptChanges);
  EXPECT_EQ(now, writes);
  EXPECT_EQ(out.back().after, store.Get("k" + std::to_string(writes - 1)));
}

}  // namespace
}  // namespace stowage::informer::store_test
