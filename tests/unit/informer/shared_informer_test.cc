// SharedInformer over the fake API server: the paginated first list, handler order, a handler
// added late, watch resumption from the last version seen (events and bookmarks), the relist
// and reconcile after 410 Gone, and an ERROR event that is not 410.
#include "pkg/informer/shared_informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "stowage/common/mutex.h"
#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::informer {
namespace {

using json = nlohmann::json;
using stowage::testing::Eventually;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNodes[] = "/api/v1/nodes";

json Node(const std::string& name, const std::string& rv) {
  return {{"metadata", {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", rv}}}};
}

// Writes every call as one line, e.g. "add n1 initial", "update n1 1->2", "delete n1 unknown".
class Recorder : public EventHandler<api::Node> {
 public:
  void OnAdd(const Ptr& n, bool initial) override {
    Log("add " + n->metadata.name + (initial ? " initial" : ""));
  }
  void OnUpdate(const Ptr& a, const Ptr& b) override {
    Log("update " + b->metadata.name + " " + a->metadata.resource_version + "->" +
        b->metadata.resource_version);
  }
  void OnDelete(const Ptr& n, bool unknown) override {
    Log("delete " + n->metadata.name + (unknown ? " unknown" : ""));
  }
  std::vector<std::string> Events() {
    MutexLock l(mu_);
    return events_;
  }
  // Waits for n calls in all; false if they do not come.
  bool WaitFor(size_t n) {
    return Eventually([&] { return Events().size() >= n; });
  }

 private:
  void Log(std::string line) {
    MutexLock l(mu_);
    events_.push_back(std::move(line));
  }
  Mutex mu_;
  std::vector<std::string> events_ GUARDED_BY(mu_);
};

struct Fixture {
  stowage::testing::FakeClient fake;
  stowage::testing::FakeApiServer& api = *fake.api;
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  std::unique_ptr<SharedInformer<api::Node>> informer;

  // Lists items at rv and starts an informer reading two objects a page.
  void Start(std::vector<json> items, const std::string& rv = "10") {
    api.SetList(kNodes, std::move(items), rv);
    informer = std::make_unique<SharedInformer<api::Node>>(*fake.client, Filter{}, 2);
    informer->AddEventHandler(recorder);
    informer->Start();
    ASSERT_TRUE(informer->WaitForSync(std::chrono::seconds(20)));
  }
  ~Fixture() {
    if (informer) informer->Stop();
  }
  // The lists (not watches) made so far.
  std::vector<client::HttpRequest> Lists() {
    std::vector<client::HttpRequest> out;
    for (auto& r : api.RequestsTo(kNodes)) {
      if (r.target.find("watch=true") == std::string::npos) out.push_back(r);
    }
    return out;
  }
  bool WaitForWatches(size_t n) {
    return Eventually([&] { return api.Watches(kNodes).size() >= n; });
  }
};

TEST(SharedInformer, ListsEveryPageThenWatchesFromTheListsVersion) {
  Fixture f;
  f.Start({Node("n1", "1"), Node("n2", "2"), Node("n3", "3"), Node("n4", "4"), Node("n5", "5")});
  EXPECT_THAT(f.recorder->Events(),
              ElementsAre("add n1 initial", "add n2 initial", "add n3 initial", "add n4 initial",
                          "add n5 initial"));
  EXPECT_EQ(f.informer->store().Size(), 5u);

  auto lists = f.Lists();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_THAT(lists[0].target, HasSubstr("limit=2"));
  EXPECT_THAT(lists[0].target, Not(HasSubstr("continue=")));
  EXPECT_THAT(lists[1].target, HasSubstr("continue=2"));
  EXPECT_THAT(lists[2].target, HasSubstr("continue=4"));

  ASSERT_TRUE(f.WaitForWatches(1));
  std::string watch = f.api.Watches(kNodes)[0].target;
  EXPECT_THAT(watch, HasSubstr("resourceVersion=10"));
  EXPECT_THAT(watch, HasSubstr("allowWatchBookmarks=true"));
  EXPECT_EQ(f.informer->ListCountForTest(), 1);
}

TEST(SharedInformer, AnExpiredContinueTokenStartsTheListOver) {
  Fixture f;
  // Two pages; the first request for the second page finds its snapshot compacted away.
  std::atomic<int> second_page_requests{0};
  f.api.Handle(kNodes, [&](const client::HttpRequest& r) {
    if (r.target.find("continue=") == std::string::npos) {
      return stowage::testing::JsonResponse(
          200, {{"metadata", {{"resourceVersion", "10"}, {"continue", "next"}}},
                {"items", {Node("n1", "1"), Node("n2", "2")}}});
    }
    if (second_page_requests++ == 0) {
      return stowage::testing::JsonResponse(
          410, {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}});
    }
    return stowage::testing::JsonResponse(
        200, {{"metadata", {{"resourceVersion", "10"}}}, {"items", {Node("n3", "3")}}});
  });
  f.Start({});
  EXPECT_THAT(f.recorder->Events(),
              ElementsAre("add n1 initial", "add n2 initial", "add n3 initial"))
      << "the pages before the expiry are not delivered twice";
  EXPECT_EQ(f.Lists().size(), 4u);
}

TEST(SharedInformer, HandlersSeeAddUpdateAndDeleteInOrder) {
  Fixture f;
  auto second = std::make_shared<Recorder>();
  f.api.Push(kNodes, "ADDED", Node("n2", "11"));
  f.api.Push(kNodes, "MODIFIED", Node("n2", "12"));
  f.api.Push(kNodes, "DELETED", Node("n1", "13"));
  f.Start({Node("n1", "1")});
  f.informer->AddEventHandler(second);
  ASSERT_TRUE(f.recorder->WaitFor(4));
  EXPECT_THAT(f.recorder->Events(),
              ElementsAre("add n1 initial", "add n2", "update n2 11->12", "delete n1"));
  EXPECT_EQ(f.informer->store().Get("n1"), nullptr);
  ASSERT_NE(f.informer->store().Get("n2"), nullptr);
  EXPECT_EQ(f.informer->store().Get("n2")->metadata.resource_version, "12");
  EXPECT_EQ(f.informer->LastResourceVersion(), "13");
}

// Issue 26: objects that come and go, by watch events or missed and found gone by a relist,
// leave the store empty.
TEST(SharedInformer, DeletedObjectsLeaveTheStoreEmpty) {
  Fixture f;
  f.Start({Node("listed", "1")});
  for (int i = 0; i < 50; ++i) {
    const std::string name = "n" + std::to_string(i);
    f.api.Push(kNodes, "ADDED", Node(name, std::to_string(100 + 2 * i)));
    f.api.Push(kNodes, "DELETED", Node(name, std::to_string(101 + 2 * i)));
  }
  f.api.Push(kNodes, "ADDED", Node("missed", "200"));
  ASSERT_TRUE(f.recorder->WaitFor(102));
  EXPECT_EQ(f.informer->store().Size(), 2u);
  // Both are deleted while the watch is down: the relist finds them gone.
  f.api.SetList(kNodes, {}, "300");
  f.api.PushError(kNodes, 410, "too old resource version");
  ASSERT_TRUE(f.recorder->WaitFor(104));
  EXPECT_EQ(f.informer->store().Size(), 0u);
}

TEST(SharedInformer, AHandlerAddedLateReceivesTheObjectsHeldOnceThenChanges) {
  Fixture f;
  f.Start({Node("n1", "1"), Node("n2", "2")});
  f.api.Push(kNodes, "ADDED", Node("n3", "11"));
  ASSERT_TRUE(f.recorder->WaitFor(3));

  auto late = std::make_shared<Recorder>();
  f.informer->AddEventHandler(late);
  std::vector<std::string> first = late->Events();
  std::sort(first.begin(), first.end());  // the store has no order
  EXPECT_THAT(first, ElementsAre("add n1 initial", "add n2 initial", "add n3 initial"));

  f.api.Push(kNodes, "MODIFIED", Node("n3", "12"));
  ASSERT_TRUE(late->WaitFor(4));
  EXPECT_EQ(late->Events().back(), "update n3 11->12");
  EXPECT_EQ(late->Events().size(), 4u);
}

TEST(SharedInformer, AnEndedWatchResumesFromTheLastVersionSeen) {
  Fixture f;
  f.api.Push(kNodes, "ADDED", Node("n2", "11"));
  f.api.EndWatch(kNodes);
  f.Start({Node("n1", "1")});
  ASSERT_TRUE(f.WaitForWatches(2));
  auto watches = f.api.Watches(kNodes);
  EXPECT_THAT(watches[0].target, HasSubstr("resourceVersion=10"));
  EXPECT_THAT(watches[1].target, HasSubstr("resourceVersion=11"));
  EXPECT_EQ(f.informer->ListCountForTest(), 1);
  EXPECT_THAT(f.recorder->Events(), ElementsAre("add n1 initial", "add n2"));
}

TEST(SharedInformer, ABookmarkMovesTheResumeVersionWithoutTellingHandlers) {
  Fixture f;
  f.api.PushBookmark(kNodes, "20");
  f.api.EndWatch(kNodes);
  f.Start({Node("n1", "1")});
  ASSERT_TRUE(f.WaitForWatches(2));
  EXPECT_THAT(f.api.Watches(kNodes)[1].target, HasSubstr("resourceVersion=20"));
  EXPECT_THAT(f.recorder->Events(), ElementsAre("add n1 initial"));
}

TEST(SharedInformer, GoneListsAgainAndReconcilesTheStore) {
  Fixture f;
  f.Start({Node("same", "1"), Node("changed", "2"), Node("missing", "3")});
  ASSERT_TRUE(f.WaitForWatches(1));
  f.api.SetList(kNodes, {Node("same", "1"), Node("changed", "5"), Node("new", "6")}, "30");
  f.api.PushError(kNodes, 410, "too old resource version: 10 (25)");
  ASSERT_TRUE(f.recorder->WaitFor(6));
  std::vector<std::string> events = f.recorder->Events();
  std::vector<std::string> relist(events.begin() + 3, events.end());
  // Deletions come first, then the list in the server's order.
  EXPECT_THAT(relist, ElementsAre("delete missing unknown", "update changed 2->5", "add new"));
  EXPECT_EQ(f.informer->ListCountForTest(), 2);
  ASSERT_TRUE(f.WaitForWatches(2));
  EXPECT_THAT(f.api.Watches(kNodes)[1].target, HasSubstr("resourceVersion=30"));
  EXPECT_EQ(f.informer->store().Size(), 3u);
  EXPECT_EQ(f.informer->store().Get("missing"), nullptr);
}

TEST(SharedInformer, AWatchAnswered410ListsAgain) {
  Fixture f;
  f.api.ScriptWatch(kNodes, stowage::testing::JsonResponse(
                                410, {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}));
  f.Start({Node("n1", "1")});
  ASSERT_TRUE(Eventually([&] { return f.informer->ListCountForTest() == 2; }));
  ASSERT_TRUE(f.WaitForWatches(2));
  EXPECT_THAT(f.recorder->Events(), ElementsAre("add n1 initial"));  // nothing changed
}

TEST(SharedInformer, AnErrorEventOtherThanGoneResumesTheWatchWithoutListing) {
  Fixture f;
  f.api.Push(kNodes, "ADDED", Node("n2", "11"));
  f.api.PushError(kNodes, 500, "internal error");
  f.Start({Node("n1", "1")});
  ASSERT_TRUE(f.WaitForWatches(2));  // after a backoff
  EXPECT_THAT(f.api.Watches(kNodes)[1].target, HasSubstr("resourceVersion=11"));
  EXPECT_EQ(f.informer->ListCountForTest(), 1);
  EXPECT_THAT(f.recorder->Events(), ElementsAre("add n1 initial", "add n2"));
}

}  // namespace
}  // namespace stowage::informer
