// LeaseLock and the LeaderElection events on the wire, over a scripted transport: what is read
// from a Lease, what goes back in a PUT (the whole object, spec replaced, version kept), and the
// core/v1 Event the legacy recorder would post. The real API server is exercised by the
// integration tests.
#include "pkg/leaderelection/lease_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/leaderelection/core_event_recorder.h"
#include "pkg/leaderelection/leader_elector.h"
#include "stowage/common/mutex.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::leaderelection::lease_lock_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;

constexpr char kLeasePath[] =
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler";

const char* kLease = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
  "metadata":{"name":"kube-scheduler","namespace":"kube-system","uid":"u-1","resourceVersion":"42",
              "labels":{"keep":"me"},"annotations":{"a":"b"}},
  "spec":{"holderIdentity":"other","leaseDurationSeconds":15,
          "acquireTime":"2026-01-02T03:04:05.123456Z","renewTime":"2026-01-02T03:04:06.654321Z",
          "leaseTransitions":2}})";

struct Fixture {
  FakeClock clock;
  stowage::testing::FakeClient fake{clock};
  stowage::testing::FakeApiServer* t = fake.api;
  client::RestClient* client = fake.client.get();
  // Scripts the answer to the next request.
  void Answer(int status, std::string body) {
    t->ScriptNext(stowage::testing::Response(status, std::move(body)));
  }
  LeaseLock Lock(CoreEventRecorder* recorder = nullptr) {
    return LeaseLock(*client, "kube-system", "kube-scheduler", "me", recorder);
  }
};

WallTime At(const char* rfc3339) { return *api::ParseTime(rfc3339); }

TEST(LeaseLock, GetReadsTheRecordFromTheSpec) {
  Fixture f;
  f.Answer(200, kLease);
  LeaseLock lock = f.Lock();
  auto got = lock.Get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->record.holder_identity, "other");
  EXPECT_EQ(got->record.lease_duration_seconds, 15);
  EXPECT_EQ(got->record.leader_transitions, 2);
  EXPECT_EQ(got->record.acquire_time, At("2026-01-02T03:04:05.123456Z"));
  EXPECT_EQ(got->record.renew_time, At("2026-01-02T03:04:06.654321Z"));
  auto reqs = f.t->Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, kLeasePath);
}

TEST(LeaseLock, TheObservedKeyIsUpstreamsRecordJsonAtSecondPrecision) {
  Fixture f;
  f.Answer(200, kLease);
  auto got = f.Lock().Get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->key, R"({"holderIdentity":"other","leaseDurationSeconds":15,)"
                      R"("acquireTime":"2026-01-02T03:04:05Z","renewTime":"2026-01-02T03:04:06Z",)"
                      R"("leaderTransitions":2,"strategy":"","preferredHolder":""})");
  // A renewal within the same second is not a change to upstream either.
  LeaderElectionRecord r = got->record;
  r.renew_time = At("2026-01-02T03:04:06.999999Z");
  EXPECT_EQ(RecordKey(r), got->key);
  r.renew_time = At("2026-01-02T03:04:07Z");
  EXPECT_NE(RecordKey(r), got->key);
}

TEST(LeaseLock, UpdateWritesTheWholeObjectBackWithTheNewSpecAndItsVersion) {
  Fixture f;
  f.Answer(200, kLease);
  f.Answer(200, kLease);
  LeaseLock lock = f.Lock();
  ASSERT_TRUE(lock.Get().ok());
  LeaderElectionRecord r{
      "me", 15, At("2026-01-02T03:05:00.000001Z"), At("2026-01-02T03:05:00.000001Z"), 3, "", ""};
  ASSERT_TRUE(lock.Update(r).ok());
  auto reqs = f.t->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].method, "PUT");
  EXPECT_EQ(reqs[1].target, kLeasePath);
  json body = json::parse(reqs[1].body);
  EXPECT_EQ(body["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(body["metadata"]["uid"], "u-1");
  EXPECT_EQ(body["metadata"]["labels"]["keep"], "me");
  EXPECT_EQ(body["metadata"]["annotations"]["a"], "b");
  EXPECT_EQ(body["spec"], json::parse(R"({"holderIdentity":"me","leaseDurationSeconds":15,
      "acquireTime":"2026-01-02T03:05:00.000001Z","renewTime":"2026-01-02T03:05:00.000001Z",
      "leaseTransitions":3})"));
}

TEST(LeaseLock, AReleasedRecordWritesAnEmptyHolder) {
  Fixture f;
  f.Answer(200, kLease);
  f.Answer(200, kLease);
  LeaseLock lock = f.Lock();
  ASSERT_TRUE(lock.Get().ok());
  LeaderElectionRecord r;
  r.lease_duration_seconds = 1;
  r.acquire_time = r.renew_time = At("2026-01-02T03:05:00Z");
  r.leader_transitions = 0;
  ASSERT_TRUE(lock.Update(r).ok());
  auto reqs = f.t->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  // Upstream's spec holds pointers to the holder and the transitions: "" and 0 are written.
  EXPECT_EQ(json::parse(reqs[1].body)["spec"], json::parse(R"({"holderIdentity":"",
      "leaseDurationSeconds":1,"acquireTime":"2026-01-02T03:05:00.000000Z",
      "renewTime":"2026-01-02T03:05:00.000000Z","leaseTransitions":0})"));
}

TEST(LeaseLock, UpdateBeforeAnyReadFailsWithoutARequest) {
  Fixture f;
  LeaseLock lock = f.Lock();
  Status s = lock.Update(LeaderElectionRecord{});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("kube-system/kube-scheduler"));
  EXPECT_TRUE(f.t->Requests().empty());
}

TEST(LeaseLock, CreatePostsANewLeaseAndLaterUpdatesUseWhatCameBack) {
  Fixture f;
  f.Answer(201, kLease);
  LeaseLock lock = f.Lock();
  LeaderElectionRecord r{"me", 15, At("2026-01-02T03:05:00Z"), At("2026-01-02T03:05:00Z"), 0,
                         "",   ""};
  ASSERT_TRUE(lock.Create(r).ok());
  auto reqs = f.t->Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  json body = json::parse(reqs[0].body);
  EXPECT_EQ(body["kind"], "Lease");
  EXPECT_EQ(body["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(body["metadata"],
            json::parse(R"({"name":"kube-scheduler","namespace":"kube-system"})"));
  EXPECT_EQ(body["spec"]["holderIdentity"], "me");
  EXPECT_EQ(body["spec"]["leaseTransitions"], 0);
  ASSERT_TRUE(lock.Update(r).ok());
  EXPECT_EQ(json::parse(f.t->Requests()[1].body)["metadata"]["resourceVersion"], "42");
}

TEST(LeaseLock, ApiErrorsKeepTheirClass) {
  Fixture f;
  f.Answer(404, R"({"kind":"Status","reason":"NotFound","code":404})");
  LeaseLock lock = f.Lock();
  EXPECT_TRUE(client::IsNotFound(lock.Get().status()));
  f.Answer(200, kLease);
  ASSERT_TRUE(lock.Get().ok());
  f.Answer(409, R"({"kind":"Status","reason":"Conflict","code":409})");
  EXPECT_TRUE(client::IsConflict(lock.Update(LeaderElectionRecord{})));
}

TEST(LeaseLock, AMalformedLeaseIsAnErrorNamingTheFieldAndIsNotRemembered) {
  Fixture f;
  f.Answer(200, R"({"metadata":{"name":"kube-scheduler","resourceVersion":"1"},
                      "spec":{"leaseDurationSeconds":"fifteen"}})");
  LeaseLock lock = f.Lock();
  Status s = lock.Get().status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.leaseDurationSeconds"));
  EXPECT_EQ(lock.Update(LeaderElectionRecord{}).code(), StatusCode::kFailedPrecondition);
}

TEST(LeaseLock, CoordinatedElectionFieldsAreCarriedAndABadTimeNamesItsField) {
  auto record =
      DecodeLeaseRecord(R"({"spec":{"holderIdentity":"a","strategy":"OldestEmulationVersion",
                                              "preferredHolder":"b"}})");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->strategy, "OldestEmulationVersion");
  EXPECT_EQ(record->preferred_holder, "b");
  auto bad = DecodeLeaseRecord(R"({"spec":{"renewTime":"yesterday"}})");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("spec.renewTime"));
}

TEST(LeaseLock, RecordEventPostsACoreEventAboutTheLease) {
  Fixture f;
  f.Answer(200, kLease);
  CoreEventRecorder recorder(*f.client, "my-scheduler", f.clock);
  LeaseLock lock = f.Lock(&recorder);
  ASSERT_TRUE(lock.Get().ok());
  lock.RecordEvent("became leader");
  ASSERT_TRUE(recorder.Flush(std::chrono::seconds(30)));
  EXPECT_EQ(recorder.written(), 1u);
  auto reqs = f.t->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].method, "POST");
  EXPECT_EQ(reqs[1].target, "/api/v1/namespaces/kube-system/events");
  json e = json::parse(reqs[1].body);
  EXPECT_EQ(e["kind"], "Event");
  EXPECT_EQ(e["apiVersion"], "v1");
  EXPECT_THAT(e["metadata"]["name"].get<std::string>(), StartsWith("kube-scheduler."));
  EXPECT_EQ(e["metadata"]["namespace"], "kube-system");
  EXPECT_EQ(e["involvedObject"],
            json::parse(R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
      "namespace":"kube-system","name":"kube-scheduler","uid":"u-1","resourceVersion":"42"})"));
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["reason"], "LeaderElection");
  EXPECT_EQ(e["message"], "me became leader");
  EXPECT_EQ(e["source"]["component"], "my-scheduler");
  EXPECT_EQ(e["reportingComponent"], "my-scheduler");
  EXPECT_EQ(e["count"], 1);
  std::string ts = api::FormatTime(f.clock.WallNow());
  EXPECT_EQ(e["firstTimestamp"], ts);
  EXPECT_EQ(e["lastTimestamp"], ts);
}

TEST(CoreEventRecorder, AFailedWriteIsCountedAndNotRetried) {
  Fixture f;
  f.Answer(403, R"({"kind":"Status","reason":"Forbidden","code":403})");
  CoreEventRecorder recorder(*f.client, "default-scheduler", f.clock);
  recorder.Event({"Lease", "coordination.k8s.io/v1", "kube-system", "l", "", ""}, "Normal",
                 "LeaderElection", "x stopped leading");
  ASSERT_TRUE(recorder.Flush(std::chrono::seconds(30)));
  EXPECT_EQ(recorder.failed(), 1u);
  EXPECT_EQ(recorder.written(), 0u);
  EXPECT_EQ(f.t->Requests().size(), 1u);
}

TEST(CoreEventRecorder, EventsAreNamedAfterTheObjectAndTheTimeInHexNanoseconds) {
  CoreEvent e;
  e.involved_object.name = "kube-scheduler";
  e.timestamp = WallTime(std::chrono::nanoseconds(0x1234abcdef));
  EXPECT_EQ(CoreEventName(e), "kube-scheduler.1234abcdef");
}

TEST(LeaderElector, NewIdentityIsTheHostnameAndARandomUuid) {
  std::string a = LeaderElector::NewIdentity();
  std::string b = LeaderElector::NewIdentity();
  EXPECT_NE(a, b);
  std::regex shape("^.+_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  EXPECT_TRUE(std::regex_match(a, shape)) << a;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  EXPECT_THAT(a, StartsWith(std::string(host) + "_"));
}

TEST(LeaderElector, TheElectionClientTimesOutWithinTheRenewDeadline) {
  client::RestConfig base;
  base.user_agent = "stowage/v1";
  base.max_retries = 5;
  auto c = LeaderElectionRestConfig(base, std::chrono::seconds(10));
  EXPECT_EQ(c.timeout, std::chrono::seconds(5));
  EXPECT_EQ(c.user_agent, "stowage/v1/leader-election");
  EXPECT_EQ(c.max_retries, 0);
  EXPECT_EQ(LeaderElectionRestConfig(base, std::chrono::milliseconds(1500)).timeout,
            std::chrono::seconds(1));
}

}  // namespace
}  // namespace stowage::leaderelection::lease_lock_test
