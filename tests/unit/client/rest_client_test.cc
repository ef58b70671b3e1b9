// RestClient's retry, Retry-After and error-mapping policy, over a scripted fake transport
// (the code under test sits above the transport; the real one is covered by integration tests).
#include "pkg/client/rest_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/client/errors.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::client::rest_client_test {
namespace {

using ::testing::HasSubstr;

using stowage::testing::Response;

struct Fixture {
  FakeClock clock;
  // Unlimited rate: these tests are about retries.
  stowage::testing::FakeClient fake;
  stowage::testing::FakeApiServer* t = fake.api;
  RestClient* c = fake.client.get();
  explicit Fixture(int max_retries = 3)
      : fake(clock, RetryPolicy{max_retries, std::chrono::milliseconds(1),
                                std::chrono::milliseconds(2), std::chrono::seconds(10)}) {}
};

TEST(RestClient, ReturnsTheBodyOfASuccess) {
  Fixture f;
  f.t->ScriptNext(Response(200, "hello"));
  auto r = f.c->Get("/api/v1/pods");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello");
  EXPECT_EQ(f.t->Requests()[0].method, "GET");
}

TEST(RestClient, RetriesGetOnServerErrors) {
  Fixture f;
  f.t->ScriptNext(Response(500));
  f.t->ScriptNext(Response(503));
  f.t->ScriptNext(Response(200, "ok"));
  auto r = f.c->Get("/x");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(f.t->Requests().size(), 3u);
}

TEST(RestClient, DoesNotRetryPostOnAPlainServerError) {
  Fixture f;
  f.t->ScriptNext(Response(500, R"({"kind":"Status","message":"boom","code":500})"));
  auto r = f.c->Post("/x", "{}");
  EXPECT_TRUE(IsServerError(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("POST /x: HTTP 500 Internal Server Error: boom"));
  EXPECT_EQ(f.t->Requests().size(), 1u);
}

TEST(RestClient, RetriesAnyVerbOn429AndHonoursRetryAfter) {
  Fixture f;
  f.t->ScriptNext(Response(429, "{}", "0"));
  f.t->ScriptNext(Response(503, "{}", "0"));
  f.t->ScriptNext(Response(201, "created"));
  auto r = f.c->Post("/x", "{}");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(f.t->Requests().size(), 3u);
}

TEST(RestClient, RetryAfterSetsTheDelayBeforeTheNextAttempt) {
  Fixture f;
  f.t->ScriptNext(Response(429, "{}", "7"));
  f.t->ScriptNext(Response(200));
  MonoTime before = f.clock.Now();
  ASSERT_TRUE(f.c->Get("/x").ok());
  EXPECT_EQ(f.clock.Now() - before, std::chrono::seconds(7));  // the fake clock slept exactly
}

TEST(RestClient, RetryAfterIsCapped) {
  Fixture f;  // max_retry_after is 10 s in this fixture
  f.t->ScriptNext(Response(503, "{}", "3600"));
  f.t->ScriptNext(Response(200));
  MonoTime before = f.clock.Now();
  ASSERT_TRUE(f.c->Get("/x").ok());
  EXPECT_EQ(f.clock.Now() - before, std::chrono::seconds(10));
}

TEST(RestClient, GivesUpAfterMaxRetries) {
  Fixture f(2);
  for (int i = 0; i < 5; ++i) f.t->ScriptNext(Response(429, "{}", "0"));
  auto r = f.c->Get("/x");
  EXPECT_TRUE(IsTooManyRequests(r.status())) << r.status();
  EXPECT_EQ(f.t->Requests().size(), 3u);
}

TEST(RestClient, RetriesRequestsThatNeverReachedTheServer) {
  Fixture f;
  f.t->ScriptNext(UnavailableError("connecting to https://x: Connection refused"));
  f.t->ScriptNext(Response(201));
  EXPECT_TRUE(f.c->Post("/x", "{}").ok());
  // But a POST whose connection broke after sending is not resent: it may have been applied.
  Fixture g;
  g.t->ScriptNext(DataLossError("connection lost before a complete answer"));
  EXPECT_EQ(g.c->Post("/x", "{}").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(g.t->Requests().size(), 1u);
}

TEST(RestClient, MapsHttpErrorsToDistinctCodes) {
  struct Case {
    int http;
    std::string reason;
    bool (*is)(const Status&);
  };
  std::vector<Case> cases = {
      {404, "NotFound", IsNotFound},           {409, "Conflict", IsConflict},
      {409, "AlreadyExists", IsAlreadyExists}, {410, "Expired", IsGone},
      {403, "Forbidden", IsForbidden},         {401, "Unauthorized", IsUnauthorized}};
  for (const auto& c : cases) {
    Fixture f;
    f.t->ScriptNext(Response(c.http, R"({"kind":"Status","reason":")" + c.reason +
                                         R"(","message":"why","code":)" + std::to_string(c.http) +
                                         "}"));
    auto r = f.c->Put("/p", "{}");
    EXPECT_TRUE(c.is(r.status())) << c.http << " " << c.reason << ": " << r.status();
    EXPECT_THAT(r.status().message(), HasSubstr("HTTP " + std::to_string(c.http)));
    EXPECT_THAT(r.status().message(), HasSubstr("why"));
  }
}

TEST(RestClient, WatchSplitsTheStreamIntoLines) {
  Fixture f;
  // Delivered in awkward pieces to exercise line reassembly.
  std::string data = "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}\n";
  for (size_t i = 0; i < data.size(); i += 7) f.t->PushRaw("/w", data.substr(i, 7));
  f.t->EndWatch("/w");
  std::vector<std::string> lines;
  Status s = f.c->Watch("/w",
                        [&](std::string_view l) {
                          lines.emplace_back(l);
                          return true;
                        },
                        {});
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "{\"a\":1}");
  EXPECT_EQ(lines[1], "{\"b\":2}\r");
  EXPECT_EQ(lines[2], "{\"c\":3}");
}

}  // namespace
}  // namespace stowage::client::rest_client_test
