// EventRecorder's series aggregation, spam filter, note truncation and queue bound, over a
// recording fake transport and a FakeClock (the code under test sits above the client).
#include "pkg/scheduler/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "stowage/common/mutex.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::scheduler::event_recorder_test {
namespace {

using json = nlohmann::json;
using ::testing::EndsWith;
using ::testing::StartsWith;

struct Fixture {
  FakeClock clock;
  stowage::testing::FakeClient fake{clock};
  stowage::testing::FakeApiServer* transport = fake.api;
  std::unique_ptr<EventRecorder> recorder;

  explicit Fixture(EventRecorderOptions options = {}) {
    options.clock = &clock;
    recorder = std::make_unique<EventRecorder>(*fake.client, "host-1", options);
  }
  ~Fixture() { recorder.reset(); }

  void Failed(const api::Pod& pod, std::string note = "0/3 nodes are available") {
    recorder->Record(pod, "default-scheduler", "Warning", "FailedScheduling", "Scheduling",
                     std::move(note));
  }
  // Moves time forward and lets the recorder catch up with it.
  void Advance(Duration d) {
    clock.Advance(d);
    recorder->SyncForTest();
  }
};

api::Pod MakePod(std::string name, std::string rv = "7") {
  api::Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = "ns";
  p.metadata.uid = "uid-" + p.metadata.name;
  p.metadata.resource_version = std::move(rv);
  return p;
}

TEST(EventRecorder, PostsAnEventsV1EventAboutThePod) {
  Fixture f;
  f.recorder->Record(MakePod("p"), "default-scheduler", "Normal", "Scheduled", "Binding",
                     "Successfully assigned ns/p to n1");
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].target, "/apis/events.k8s.io/v1/namespaces/ns/events");
  json e = json::parse(posts[0].body);
  EXPECT_EQ(e["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(e["reportingController"], "default-scheduler");
  EXPECT_EQ(e["reportingInstance"], "default-scheduler-host-1");
  EXPECT_EQ(e["regarding"]["uid"], "uid-p");
  EXPECT_EQ(e["regarding"]["resourceVersion"], "7");
  EXPECT_EQ(e["note"], "Successfully assigned ns/p to n1");
  EXPECT_FALSE(e.contains("series"));
  EXPECT_FALSE(e.contains("related"));
  // client-go's name: <object>.<unix nanos in hex>.
  EXPECT_THAT(e["metadata"]["name"].get<std::string>(), StartsWith("p."));
}

// Upstream's Preempted event names the preemptor as its related object, and client-go keys
// series on it: the same victim preempted for two preemptors makes two events.
TEST(EventRecorder, RelatedObjectIsWrittenAndKeysTheSeries) {
  Fixture f;
  const api::Pod first = MakePod("high"), second = MakePod("higher");
  for (const api::Pod* preemptor : {&first, &second}) {
    f.recorder->Record(MakePod("victim"), "default-scheduler", "Normal", "Preempted", "Preempting",
                       "Preempted by pod " + preemptor->metadata.uid + " on node n1", preemptor);
  }
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_TRUE(f.transport->RequestsOf("PATCH").empty());
  json e = json::parse(posts[0].body);
  EXPECT_EQ(e["regarding"]["name"], "victim");
  EXPECT_EQ(e["related"], json({{"kind", "Pod"},
                                {"apiVersion", "v1"},
                                {"namespace", "ns"},
                                {"name", "high"},
                                {"uid", "uid-high"},
                                {"resourceVersion", "7"}}));
  EXPECT_EQ(json::parse(posts[1].body)["related"]["name"], "higher");
}

TEST(EventRecorder, IdenticalEventsBecomeOneSeries) {
  Fixture f;
  for (int i = 0; i < 5; ++i) f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  auto patches = f.transport->RequestsOf("PATCH");
  ASSERT_EQ(posts.size(), 1u);
  // The second occurrence patches at once; the rest wait for the periodic write.
  ASSERT_EQ(patches.size(), 1u);
  std::string name = json::parse(posts[0].body)["metadata"]["name"];
  EXPECT_EQ(patches[0].target, "/apis/events.k8s.io/v1/namespaces/ns/events/" + name);
  EXPECT_EQ(patches[0].content_type, client::kStrategicMergePatch);
  json patch = json::parse(patches[0].body);
  EXPECT_EQ(patch["series"]["count"], 2);
  EXPECT_TRUE(patch["series"].contains("lastObservedTime"));
  EXPECT_EQ(patch.size(), 1u);

  // Six minutes without a new occurrence end the series with a final write of the count.
  f.Advance(std::chrono::minutes(7));
  patches = f.transport->RequestsOf("PATCH");
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(json::parse(patches[1].body)["series"]["count"], 5);

  // Once forgotten, the next occurrence is a new Event.
  f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 2u);
}

TEST(EventRecorder, LiveSeriesAreRefreshedEveryThirtyMinutes) {
  Fixture f;
  for (int i = 0; i < 3; ++i) f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  // One more occurrence every 5 minutes keeps the series alive.
  for (int step = 0; step < 6; ++step) {
    f.clock.Advance(std::chrono::minutes(5));
    f.Failed(MakePod("p"));
    f.recorder->SyncForTest();
  }
  auto patches = f.transport->RequestsOf("PATCH");
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(json::parse(patches[0].body)["series"]["count"], 2);
  EXPECT_EQ(json::parse(patches[1].body)["series"]["count"], 9);
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 1u);
}

TEST(EventRecorder, SingleEventsAreForgottenAfterSixMinutes) {
  Fixture f;
  f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  f.Advance(std::chrono::minutes(5));
  f.Failed(MakePod("p"));  // still within the window: joins
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("PATCH").size(), 1u);

  Fixture g;
  g.Failed(MakePod("p"));
  g.recorder->SyncForTest();
  g.Advance(std::chrono::minutes(7));
  g.Failed(MakePod("p"));  // forgotten: a new event
  g.recorder->SyncForTest();
  EXPECT_EQ(g.transport->RequestsOf("POST").size(), 2u);
  EXPECT_EQ(g.transport->RequestsOf("PATCH").size(), 0u);
}

// Issue 26: a deleted pod's series and spam bucket are dropped at once instead of after 6 to 12
// minutes, a series ending with the write of its last count; other pods' are kept.
TEST(EventRecorder, ForgottenObjectsLeaveNothingBehind) {
  Fixture f;
  for (int i = 0; i < 3; ++i) f.Failed(MakePod("p"));  // a series of 3 (2 written so far)
  f.Failed(MakePod("q"));
  f.Failed(MakePod("q"));  // a series of 2, all written
  const api::Pod preemptor = MakePod("p");
  f.recorder->Record(MakePod("victim"), "default-scheduler", "Normal", "Preempted", "Preempting",
                     "Preempted by pod uid-p on node n1", &preemptor);
  f.Failed(MakePod("p2"));  // its uid begins with p's
  f.recorder->SyncForTest();
  EXPECT_EQ(f.recorder->SizesForTest().series, 4u);
  EXPECT_EQ(f.recorder->SizesForTest().spam_buckets, 4u);
  ASSERT_EQ(f.transport->RequestsOf("PATCH").size(), 2u);

  for (const char* uid : {"uid-p", "uid-q", "uid-victim", "uid-unknown", ""}) {
    f.recorder->ForgetObject(uid);
  }
  f.recorder->SyncForTest();
  EXPECT_EQ(f.recorder->SizesForTest().series, 1u);  // p2's
  EXPECT_EQ(f.recorder->SizesForTest().spam_buckets, 1u);
  auto patches = f.transport->RequestsOf("PATCH");
  ASSERT_EQ(patches.size(), 3u);  // p's final count; q's was written already
  EXPECT_EQ(json::parse(patches[2].body)["series"]["count"], 3);

  f.recorder->ForgetObject("uid-p2");
  f.recorder->SyncForTest();
  EXPECT_EQ(f.recorder->SizesForTest().series, 0u);
  EXPECT_EQ(f.recorder->SizesForTest().spam_buckets, 0u);
  EXPECT_EQ(f.transport->RequestsOf("PATCH").size(), 3u);
}

// Issue 26: when writes wait (the event client's rate limit is below the events' rate), a
// series' final count goes into its count-2 PATCH still waiting rather than into a second write,
// so the backlog does not grow by one write per deleted pod.
TEST(EventRecorder, WaitingSeriesWriteTakesTheNewerCount) {
  Mutex mu;
  CondVar cv;
  bool entered = false, release = false;
  EventRecorderOptions options;
  options.writers = 1;
  Fixture f(options);
  f.transport->SetAnswer([&](const client::HttpRequest&) -> std::optional<int> {
    MutexLock l(mu);
    entered = true;
    cv.SignalAll();
    while (!release) cv.Wait(mu);
    return std::nullopt;
  });
  f.Failed(MakePod("blocker"));
  {
    MutexLock l(mu);
    while (!entered) cv.Wait(mu);  // the one writer is stuck writing "blocker"
  }
  for (int i = 0; i < 4; ++i) f.Failed(MakePod("p"));  // POST, then PATCH count 2, waiting
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto wait_for_series = [&](size_t n) {
    while (f.recorder->SizesForTest().series != n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  // "blocker" alone counts 1 too, so p must be seen before its forget is waited for.
  wait_for_series(2);
  ASSERT_EQ(f.recorder->SizesForTest().series, 2u);
  f.recorder->ForgetObject("uid-p");  // the final count, 4
  wait_for_series(1);
  ASSERT_EQ(f.recorder->SizesForTest().series, 1u);  // "blocker" only: p's forget was handled
  {
    MutexLock l(mu);
    release = true;
  }
  cv.SignalAll();
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 2u);
  auto patches = f.transport->RequestsOf("PATCH");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(json::parse(patches[0].body)["series"]["count"], 4);
}

TEST(EventRecorder, WhatMakesEventsIsomorphic) {
  Fixture f;
  // As client-go's eventKey, the note is not part of the key: another note joins the series.
  f.Failed(MakePod("p"), "0/3 nodes are available: 3 Insufficient cpu.");
  f.Failed(MakePod("p"), "0/4 nodes are available: 4 Insufficient cpu.");
  // Another reason, object or object version is another event.
  f.recorder->Record(MakePod("p"), "default-scheduler", "Normal", "Scheduled", "Binding", "x");
  f.Failed(MakePod("q"));
  f.Failed(MakePod("p", "8"));
  f.recorder->Record(MakePod("p"), "other-scheduler", "Warning", "FailedScheduling", "Scheduling",
                     "x");
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 5u);
  ASSERT_EQ(f.transport->RequestsOf("PATCH").size(), 1u);
  // The stored note stays the first one (writers may post in any order across objects).
  std::vector<std::string> notes;
  for (const auto& r : f.transport->RequestsOf("POST"))
    notes.push_back(json::parse(r.body)["note"]);
  EXPECT_THAT(notes, ::testing::Contains("0/3 nodes are available: 3 Insufficient cpu."));
  EXPECT_THAT(notes,
              ::testing::Not(::testing::Contains("0/4 nodes are available: 4 Insufficient cpu.")));
}

TEST(EventRecorder, SpamFilterLimitsNewEventsPerObject) {
  Fixture f;
  for (int i = 0; i < 30; ++i) {
    f.recorder->Record(MakePod("p"), "default-scheduler", "Warning", "Reason" + std::to_string(i),
                       "Scheduling", "n");
  }
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 25u);
  EXPECT_EQ(f.recorder->spam_filtered(), 5u);

  // Other objects and other event types have their own budget.
  f.Failed(MakePod("q"));
  f.recorder->Record(MakePod("p"), "default-scheduler", "Normal", "Scheduled", "Binding", "n");
  // Repeats of an event already written join its series for free.
  f.recorder->Record(MakePod("p"), "default-scheduler", "Warning", "Reason0", "Scheduling", "n");
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 27u);
  EXPECT_EQ(f.transport->RequestsOf("PATCH").size(), 1u);
  EXPECT_EQ(f.recorder->spam_filtered(), 5u);

  // One token comes back every 5 minutes.
  f.clock.Advance(std::chrono::minutes(5));
  f.recorder->Record(MakePod("p"), "default-scheduler", "Warning", "New1", "Scheduling", "n");
  f.recorder->Record(MakePod("p"), "default-scheduler", "Warning", "New2", "Scheduling", "n");
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 28u);
  EXPECT_EQ(f.recorder->spam_filtered(), 6u);
}

TEST(EventRecorder, LongNotesAreCutToTheApiLimit) {
  Fixture f;
  f.Failed(MakePod("p"), std::string(3000, 'x'));
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 1u);
  std::string note = json::parse(posts[0].body)["note"];
  EXPECT_EQ(note.size(), 1024u);
  EXPECT_THAT(note, EndsWith("x ..."));
}

TEST(TruncateNote, KeepsShortNotesAndCutsOnCharacterBoundaries) {
  EXPECT_EQ(TruncateNote("short"), "short");
  EXPECT_EQ(TruncateNote(std::string(1024, 'a')), std::string(1024, 'a'));
  EXPECT_EQ(TruncateNote(std::string(1025, 'a')), std::string(1020, 'a') + " ...");
  // "é" is two bytes; one that would straddle byte 1020 is dropped whole.
  std::string s = std::string(1019, 'a') + "é" + std::string(10, 'b');
  EXPECT_EQ(TruncateNote(s), std::string(1019, 'a') + " ...");
}

TEST(EventRecorder, ExpiredSeriesEventIsCreatedAgain) {
  Fixture f;
  f.transport->SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    return r.method == "PATCH" ? 404 : 201;
  });
  f.Failed(MakePod("p"));
  f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 2u);
  json second = json::parse(posts[1].body);
  EXPECT_EQ(second["series"]["count"], 2);
  EXPECT_EQ(second["metadata"]["name"], json::parse(posts[0].body)["metadata"]["name"]);
  EXPECT_EQ(f.recorder->failed_writes(), 0u);
}

// A series keeps only what its key does not hold of the event; the event it creates again is
// the first one whole, every field of both objects included, with the series added.
TEST(EventRecorder, ExpiredSeriesEventIsTheFirstEventWithItsSeries) {
  Fixture f;
  f.transport->SetAnswer([](const client::HttpRequest& r) -> std::optional<int> {
    return r.method == "PATCH" ? 404 : 201;
  });
  api::Pod victim = MakePod("victim"), preemptor = MakePod("high", "12");
  victim.metadata.namespace_.clear();  // the event goes to "default"
  for (int i = 0; i < 2; ++i) {
    f.recorder->Record(victim, "my-scheduler", "Normal", "Preempted", "Preempting",
                       "Preempted by pod uid-high on node n1", &preemptor);
    f.clock.Advance(std::chrono::seconds(3));
  }
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_THAT(posts[1].target, StartsWith("/apis/events.k8s.io/v1/namespaces/default/events"));
  json first = json::parse(posts[0].body), again = json::parse(posts[1].body);
  EXPECT_EQ(again["series"]["count"], 2);
  EXPECT_NE(again["series"]["lastObservedTime"], first["eventTime"]);
  again.erase("series");
  EXPECT_EQ(again, first);
  EXPECT_EQ(first["related"]["resourceVersion"], "12");
  EXPECT_EQ(first["reportingInstance"], "my-scheduler-host-1");
}

TEST(EventRecorder, RejectedWritesAreCountedNotRetried) {
  Fixture f;
  f.transport->SetAnswer([](const client::HttpRequest&) -> std::optional<int> { return 422; });
  f.Failed(MakePod("p"));
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->Requests().size(), 1u);
  EXPECT_EQ(f.recorder->failed_writes(), 1u);
}

TEST(EventRecorder, UnsupportedTypesAreDropped) {
  Fixture f;
  f.recorder->Record(MakePod("p"), "default-scheduler", "Error", "R", "A", "n");
  f.recorder->SyncForTest();
  EXPECT_TRUE(f.transport->Requests().empty());
}

TEST(EventRecorder, FullQueueDropsWithoutBlocking) {
  Mutex mu;
  CondVar cv;
  bool entered = false, release = false;
  EventRecorderOptions options;
  options.queue_capacity = 1;
  options.writers = 1;
  Fixture f(options);
  f.transport->SetAnswer([&](const client::HttpRequest&) -> std::optional<int> {
    MutexLock l(mu);
    entered = true;
    cv.SignalAll();
    while (!release) cv.Wait(mu);
    return std::nullopt;
  });
  f.recorder->Record(MakePod("a"), "s", "Normal", "R", "A", "n");
  {
    MutexLock l(mu);
    while (!entered) cv.Wait(mu);  // the writer is stuck writing "a"
  }
  // "b" waits (in the recorder's queue or the writer's); "c" finds no room in either.
  f.recorder->Record(MakePod("b"), "s", "Normal", "R", "A", "n");
  f.recorder->Record(MakePod("c"), "s", "Normal", "R", "A", "n");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (f.recorder->dropped() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    MutexLock l(mu);
    release = true;
  }
  cv.SignalAll();
  f.recorder->SyncForTest();
  EXPECT_EQ(f.recorder->dropped(), 1u);
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 2u);
}

TEST(EventRecorder, SlowWritesForOneObjectDoNotHoldUpOthers) {
  Mutex mu;
  CondVar cv;
  bool release = false;
  EventRecorderOptions options;
  options.writers = 4;
  Fixture f(options);
  std::atomic<bool> first{true};
  f.transport->SetAnswer([&](const client::HttpRequest&) -> std::optional<int> {
    // The first write (about "slow") blocks until the test releases it.
    if (!first.exchange(false)) return std::nullopt;
    MutexLock l(mu);
    while (!release) cv.Wait(mu);
    return std::nullopt;
  });
  f.recorder->Record(MakePod("slow"), "s", "Normal", "R", "A", "n");
  // Pods whose series hash to other writers are written while "slow" is stuck.
  for (int i = 0; i < 20; ++i) {
    f.recorder->Record(MakePod("p" + std::to_string(i)), "s", "Normal", "R", "A", "n");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (f.transport->RequestsOf("POST").size() < 6 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(f.transport->RequestsOf("POST").size(), 6u);
  {
    MutexLock l(mu);
    release = true;
  }
  cv.SignalAll();
  f.recorder->SyncForTest();
  EXPECT_EQ(f.transport->RequestsOf("POST").size(), 21u);
  EXPECT_EQ(f.recorder->dropped(), 0u);
}

TEST(EventRecorder, EventNamesAreUniqueAndFallBackForLongObjectNames) {
  Fixture f;
  f.recorder->Record(MakePod("p"), "s", "Normal", "R1", "A", "n");
  f.recorder->Record(MakePod("p"), "s", "Normal", "R2", "A", "n");  // same nanosecond
  f.recorder->Record(MakePod(std::string(250, 'a')), "s", "Normal", "R", "A", "n");
  f.recorder->SyncForTest();
  auto posts = f.transport->RequestsOf("POST");
  ASSERT_EQ(posts.size(), 3u);
  std::map<std::string, std::string> name_by_reason;  // writers may post in any order
  for (const auto& p : posts) {
    json e = json::parse(p.body);
    name_by_reason[e["reason"]] = e["metadata"]["name"];
  }
  EXPECT_NE(name_by_reason["R1"], name_by_reason["R2"]);
  const std::string& uuid = name_by_reason["R"];
  EXPECT_EQ(uuid.size(), 36u);
  EXPECT_EQ(uuid[14], '4');
}

}  // namespace
}  // namespace stowage::scheduler::event_recorder_test
