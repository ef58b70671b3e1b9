// TokenAuthenticator: the TokenReview it sends, what it makes of the answers, its cache (TTL,
// negative answers, errors not cached, hashed keys) and shared concurrent lookups.
#include "pkg/auth/token_authenticator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "tests/unit/auth/review_answers.h"

namespace stowage::auth::token_authenticator_test {
namespace {

using std::chrono::seconds;
using testing::BodyOf;
using ::testing::ElementsAre;
using testing::FakeClient;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TokenReviewAnswer;

struct Fixture {
  FakeClock clock;
  FakeClient fc{clock};
  TokenAuthenticator auth{*fc.client, seconds(10), clock, 100};
  size_t Reviews() const { return fc.api->Count(kTokenReviewPath); }
};

TEST(TokenAuthenticator, SendsTheTokenInATokenReviewAndReturnsTheUser) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return TokenReviewAnswer(true, "system:serviceaccount:ns:sa", {"system:serviceaccounts"});
  });
  auto u = f.auth.Authenticate("tok-1");
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_TRUE(u->has_value());
  EXPECT_EQ((*u)->name, "system:serviceaccount:ns:sa");
  EXPECT_EQ((*u)->uid, "system:serviceaccount:ns:sa-uid");
  EXPECT_THAT((*u)->groups, ElementsAre("system:serviceaccounts"));
  auto reqs = f.fc.api->RequestsTo(kTokenReviewPath);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  auto body = BodyOf(reqs[0]);
  EXPECT_EQ(body["kind"], "TokenReview");
  EXPECT_EQ(body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(body["spec"]["token"], "tok-1");
  EXPECT_FALSE(body["spec"].contains("audiences"));
}

TEST(TokenAuthenticator, AnswersAreCachedForTheTtl) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath,
                   [](const client::HttpRequest&) { return TokenReviewAnswer(true, "u"); });
  ASSERT_TRUE(f.auth.Authenticate("t").ok());
  f.clock.Advance(seconds(9));
  ASSERT_TRUE(f.auth.Authenticate("t").ok());
  EXPECT_EQ(f.Reviews(), 1u);
  ASSERT_TRUE(f.auth.Authenticate("other").ok());
  EXPECT_EQ(f.Reviews(), 2u) << "another token is another review";
  f.clock.Advance(seconds(1));
  ASSERT_TRUE(f.auth.Authenticate("t").ok());
  EXPECT_EQ(f.Reviews(), 3u) << "expired after 10s";
}

TEST(TokenAuthenticator, RejectedTokensAreCachedToo) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath,
                   [](const client::HttpRequest&) { return TokenReviewAnswer(false); });
  for (int i = 0; i < 3; ++i) {
    auto u = f.auth.Authenticate("bad");
    ASSERT_TRUE(u.ok()) << u.status();
    EXPECT_FALSE(u->has_value());
  }
  EXPECT_EQ(f.Reviews(), 1u);
}

TEST(TokenAuthenticator, RejectionsWithAReasonAreErrorsAndNotCached) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return TokenReviewAnswer(false, "", {}, "[invalid bearer token, token has expired]");
  });
  auto u = f.auth.Authenticate("expired");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), "[invalid bearer token, token has expired]");
  ASSERT_FALSE(f.auth.Authenticate("expired").ok());
  EXPECT_EQ(f.Reviews(), 2u);
}

TEST(TokenAuthenticator, ApiErrorsAreErrorsAndNotCached) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return client::HttpResponse{
        403, R"({"kind":"Status","message":"no create tokenreviews","code":403})", ""};
  });
  auto u = f.auth.Authenticate("tok-secret");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), "no create tokenreviews") << "the server's words, as client-go";
  EXPECT_THAT(u.status().message(), Not(HasSubstr("tok-secret")));
  f.fc.api->Handle(kTokenReviewPath,
                   [](const client::HttpRequest&) { return TokenReviewAnswer(true, "u"); });
  auto again = f.auth.Authenticate("tok-secret");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->has_value());
}

TEST(TokenAuthenticator, MalformedAnswersAreErrors) {
  Fixture f;
  f.fc.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return client::HttpResponse{201, R"({"status":{"authenticated":"yes"}})", ""};
  });
  auto u = f.auth.Authenticate("t");
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), HasSubstr("status.authenticated: expected a boolean"));
}

TEST(TokenAuthenticator, CacheKeyIsAKeyedHashNotTheToken) {
  Fixture f;
  const std::string token = "eyJhbGciOiJSUzI1NiJ9.secret-token-material";
  std::string key = f.auth.CacheKey(token);
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, f.auth.CacheKey(token)) << "stable within one authenticator";
  EXPECT_NE(key, f.auth.CacheKey(token + "x"));
  EXPECT_EQ(key.find("secret"), std::string::npos);
  FakeClient other_client(f.clock);
  TokenAuthenticator other(*other_client.client, seconds(10), f.clock, 100);
  EXPECT_NE(key, other.CacheKey(token)) << "each authenticator draws its own HMAC key";
}

TEST(TokenAuthenticator, ConcurrentLookupsOfOneTokenSendOneReview) {
  Fixture f;
  std::atomic<bool> release{false};
  std::atomic<int> arrived{0};
  f.fc.api->Handle(kTokenReviewPath, [&](const client::HttpRequest&) {
    ++arrived;
    while (!release.load()) std::this_thread::yield();
    return TokenReviewAnswer(true, "u");
  });
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      auto u = f.auth.Authenticate("same");
      if (u.ok() && u->has_value() && (*u)->name == "u") ++ok;
    });
  }
  while (arrived.load() == 0) std::this_thread::yield();
  release = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 16);
  EXPECT_EQ(f.Reviews(), 1u);
  EXPECT_EQ(f.auth.reviews_sent(), 1u);
}

}  // namespace
}  // namespace stowage::auth::token_authenticator_test
