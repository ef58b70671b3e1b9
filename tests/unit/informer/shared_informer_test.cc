// SharedInformer over the fake API server: the paginated first list, handler order, a handler
// added late, watch resumption from the last version seen (events and bookmarks), the relist
// and reconcile after 410 Gone (also under heavy churn), and an ERROR event that is not 410.
#include "pkg/informer/shared_informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "stowage/common/mutex.h"
#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::informer::shared_informer_test {
namespace {

using json = nlohmann::json;
using stowage::testing::Eventually;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
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

// Rebuilds name -> resourceVersion from the calls alone, as a consumer (the scheduler's cache
// and queue) does, and notes each call that would process an object twice or not at all: an add
// of an object it holds, an update or a delete of one it does not, an update from a stale state.
class Replica : public EventHandler<api::Node> {
 public:
  void OnAdd(const Ptr& n, bool) override {
    MutexLock l(mu_);
    const auto& m = n->metadata;
    if (!objects_.emplace(m.name, m.resource_version).second) errors_.push_back("add " + m.name);
    lines_.push_back("add " + m.name + " " + m.resource_version);
  }
  void OnUpdate(const Ptr& a, const Ptr& b) override {
    MutexLock l(mu_);
    const std::string& name = b->metadata.name;
    auto it = objects_.find(name);
    if (it == objects_.end() || it->second != a->metadata.resource_version) {
      errors_.push_back("update " + name);
    } else {
      it->second = b->metadata.resource_version;
    }
    lines_.push_back("update " + name + " " + a->metadata.resource_version + "->" +
                     b->metadata.resource_version);
  }
  void OnDelete(const Ptr& n, bool unknown) override {
    MutexLock l(mu_);
    if (objects_.erase(n->metadata.name) == 0) errors_.push_back("delete " + n->metadata.name);
    lines_.push_back("delete " + n->metadata.name + (unknown ? " unknown" : ""));
  }
  std::map<std::string, std::string> Objects() {
    MutexLock l(mu_);
    return objects_;
  }
  std::vector<std::string> Lines() {
    MutexLock l(mu_);
    return lines_;
  }
  std::vector<std::string> Errors() {
    MutexLock l(mu_);
    return errors_;
  }

 private:
  Mutex mu_;
  std::map<std::string, std::string> objects_ GUARDED_BY(mu_);
  std::vector<std::string> lines_ GUARDED_BY(mu_);
  std::vector<std::string> errors_ GUARDED_BY(mu_);
};

// The server's side of the churn: name -> resourceVersion, the last version it gave, and the
// Replica line its last change makes.
struct Churn {
  std::map<std::string, int> objects;
  int rv = 0;
  std::string last;
  int added = 0;
  std::mt19937 rng{27};
  // One random add (40%), change (35%) or delete (25%), so the objects grow; pushed as a watch
  // event unless the watch is down.
  void Step(stowage::testing::FakeApiServer* watch, bool add_only = false) {
    int op = static_cast<int>(rng() % 20);
    op = add_only || op < 8 ? 0 : op < 15 ? 1 : 2;
    if (op == 0 || objects.empty()) {
      std::string name = "c" + std::to_string(added++);
      objects[name] = ++rv;
      if (watch) watch->Push(kNodes, "ADDED", Node(name, std::to_string(rv)));
      last = "add " + name + " " + std::to_string(rv);
      return;
    }
    auto it = std::next(objects.begin(), static_cast<long>(rng() % objects.size()));
    const std::string name = it->first;
    if (op == 1) {
      last = "update " + name + " " + std::to_string(it->second) + "->" + std::to_string(rv + 1);
      it->second = ++rv;
      if (watch) watch->Push(kNodes, "MODIFIED", Node(name, std::to_string(rv)));
    } else {
      last = "delete " + name;
      objects.erase(it);
      if (watch) watch->Push(kNodes, "DELETED", Node(name, std::to_string(++rv)));
    }
  }
  std::vector<json> List() const {
    std::vector<json> items;
    for (const auto& [name, v] : objects) items.push_back(Node(name, std::to_string(v)));
    return items;
  }
};

std::map<std::string, std::string> Versions(
    const std::vector<std::shared_ptr<const api::Node>>& v) {
  std::map<std::string, std::string> out;
  for (const auto& n : v) out[n->metadata.name] = n->metadata.resource_version;
  return out;
}

// Issue 27: hundreds of watched changes, a 410, a relist that differs from the store in every
// way (objects added, changed and deleted in the gap), and changes queued right behind the 410.
TEST(SharedInformer, ARelistDuringHeavyChurnLosesNoObjectAndDeliversNoneTwice) {
  Fixture f;
  auto replica = std::make_shared<Replica>();
  f.informer = std::make_unique<SharedInformer<api::Node>>(*f.fake.client, Filter{}, 50);
  f.informer->AddEventHandler(replica);
  Churn server;
  for (int i = 0; i < 300; ++i) server.Step(nullptr, /*add_only=*/true);
  f.api.SetList(kNodes, server.List(), std::to_string(server.rv));
  f.informer->Start();
  ASSERT_TRUE(f.informer->WaitForSync(std::chrono::seconds(20)));
  size_t calls = server.objects.size();

  for (int i = 0; i < 600; ++i) server.Step(&f.api);  // each a call: no event is a no-op
  calls += 600;
  const std::map<std::string, int> held = server.objects;  // the informer's before the 410
  for (int i = 0; i < 300; ++i) server.Step(nullptr);      // the gap
  f.api.SetList(kNodes, server.List(), std::to_string(server.rv));
  f.api.PushError(kNodes, 410, "too old resource version");
  // What the relist must deliver: deletions first (of objects missing from the list, their
  // final state unknown), then the new and changed objects; unchanged ones not at all.
  std::vector<std::string> deletes, rest;
  for (const auto& [name, v] : held) {
    auto it = server.objects.find(name);
    if (it == server.objects.end()) {
      deletes.push_back("delete " + name + " unknown");
    } else if (it->second != v) {
      rest.push_back("update " + name + " " + std::to_string(v) + "->" +
                     std::to_string(it->second));
    }
  }
  for (const auto& [name, v] : server.objects) {
    if (!held.count(name)) rest.push_back("add " + name + " " + std::to_string(v));
  }
  ASSERT_GT(deletes.size(), 20u);
  ASSERT_GT(rest.size(), 100u);
  const size_t relist_begin = calls;
  calls += deletes.size() + rest.size();
  for (int i = 0; i < 300; ++i) server.Step(&f.api);  // the new watch's
  calls += 300;

  ASSERT_TRUE(Eventually(
      [&] {
        auto lines = replica->Lines();
        return !lines.empty() && lines.back() == server.last;
      },
      std::chrono::seconds(60)))
      << "the last event is not delivered; " << replica->Lines().size() << " of " << calls
      << " calls";
  EXPECT_EQ(f.informer->ListCountForTest(), 2);
  EXPECT_EQ(f.informer->LastResourceVersion(), std::to_string(server.rv));
  std::map<std::string, std::string> want;
  for (const auto& [name, v] : server.objects) want[name] = std::to_string(v);
  EXPECT_EQ(Versions(f.informer->store().List()), want) << "the store is the server's state";
  EXPECT_EQ(replica->Objects(), want) << "the calls rebuild the server's state";
  EXPECT_THAT(replica->Errors(), IsEmpty()) << "calls that lose or double an object";

  std::vector<std::string> lines = replica->Lines();
  EXPECT_EQ(lines.size(), calls) << "one call per change";
  ASSERT_GE(lines.size(), relist_begin + deletes.size() + rest.size());
  auto at = lines.begin() + static_cast<long>(relist_begin);
  std::vector<std::string> got_deletes(at, at + static_cast<long>(deletes.size()));
  std::vector<std::string> got_rest(at + static_cast<long>(deletes.size()),
                                    at + static_cast<long>(deletes.size() + rest.size()));
  std::sort(got_deletes.begin(), got_deletes.end());  // the store has no order
  EXPECT_EQ(got_deletes, deletes);
  std::sort(got_rest.begin(), got_rest.end());
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(got_rest, rest);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i < relist_begin || i >= relist_begin + deletes.size()) {
      EXPECT_THAT(lines[i], Not(HasSubstr("unknown"))) << "only the relist infers deletions";
    }
  }
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
}  // namespace stowage::informer::shared_informer_test
