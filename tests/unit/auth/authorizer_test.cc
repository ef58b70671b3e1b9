// PathAuthorizer (exact paths, '*' prefixes) and SubjectAccessReviewer (the review it sends,
// decisions, separate allow/deny TTLs, errors not cached).
#include "pkg/auth/authorizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/auth/review_answers.h"

namespace stowage::auth::authorizer_test {
namespace {

using std::chrono::seconds;
using testing::BodyOf;
using testing::FakeClient;
using ::testing::HasSubstr;
using testing::SarAnswer;

TEST(PathAuthorizer, ExactPathsAndTrailingStarPrefixes) {
  auto a = PathAuthorizer::New({"/healthz", "readyz", "/debug/*", "/metrics*"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->Allows("/healthz"));
  EXPECT_TRUE(a->Allows("healthz"));
  EXPECT_TRUE(a->Allows("/readyz"));
  EXPECT_FALSE(a->Allows("/healthz/ping")) << "exact entries match exactly";
  EXPECT_FALSE(a->Allows("/livez"));
  EXPECT_TRUE(a->Allows("/debug/pprof/heap"));
  EXPECT_TRUE(a->Allows("/debug/"));
  EXPECT_FALSE(a->Allows("/debug")) << "the prefix includes its slash";
  EXPECT_TRUE(a->Allows("/metrics/resources"));
  EXPECT_TRUE(a->Allows("/metricsxyz"));
}

TEST(PathAuthorizer, StarOnlyAtTheEnd) {
  auto a = PathAuthorizer::New({"/a/*/b"});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "only trailing * allowed in \"a/*/b\"");
  auto all = PathAuthorizer::New({"*"});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Allows("/anything"));
}

struct Fixture {
  FakeClock clock;
  FakeClient fc{clock};
  SubjectAccessReviewer sar{*fc.client, seconds(10), seconds(3), clock, 100};
  size_t Reviews() const { return fc.api->Count(kSubjectAccessReviewPath); }
};

UserInfo Alice() {
  return UserInfo{"alice", "uid-1", {"devs", "system:authenticated"}, {{"scopes", {"a", "b"}}}};
}

TEST(SubjectAccessReviewer, SendsNonResourceAttributesAndTheWholeUser) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath,
                   [](const client::HttpRequest&) { return SarAnswer(true); });
  AuthzResult r = f.sar.Authorize(Alice(), "get", "/metrics");
  EXPECT_EQ(r.decision, AuthzDecision::kAllow);
  EXPECT_TRUE(r.error.ok());
  auto reqs = f.fc.api->RequestsTo(kSubjectAccessReviewPath);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  auto body = BodyOf(reqs[0]);
  EXPECT_EQ(body["kind"], "SubjectAccessReview");
  EXPECT_EQ(body["apiVersion"], "authorization.k8s.io/v1");
  auto& spec = body["spec"];
  EXPECT_EQ(spec["nonResourceAttributes"]["path"], "/metrics");
  EXPECT_EQ(spec["nonResourceAttributes"]["verb"], "get");
  EXPECT_FALSE(spec.contains("resourceAttributes"));
  EXPECT_EQ(spec["user"], "alice");
  EXPECT_EQ(spec["uid"], "uid-1");
  EXPECT_EQ(spec["groups"], nlohmann::json({"devs", "system:authenticated"}));
  EXPECT_EQ(spec["extra"]["scopes"], nlohmann::json({"a", "b"}));
}

TEST(SubjectAccessReviewer, AllowAndDenyAreCachedForTheirOwnTtl) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest& r) {
    return SarAnswer(BodyOf(r)["spec"]["nonResourceAttributes"]["path"] == "/metrics");
  });
  EXPECT_EQ(f.sar.Authorize(Alice(), "get", "/metrics").decision, AuthzDecision::kAllow);
  EXPECT_EQ(f.sar.Authorize(Alice(), "get", "/configz").decision, AuthzDecision::kNoOpinion);
  EXPECT_EQ(f.Reviews(), 2u);
  f.clock.Advance(seconds(2));
  f.sar.Authorize(Alice(), "get", "/metrics");
  f.sar.Authorize(Alice(), "get", "/configz");
  EXPECT_EQ(f.Reviews(), 2u) << "both cached";
  f.clock.Advance(seconds(1));
  f.sar.Authorize(Alice(), "get", "/metrics");
  f.sar.Authorize(Alice(), "get", "/configz");
  EXPECT_EQ(f.Reviews(), 3u) << "the denial expired after 3s, the allow did not";
  f.clock.Advance(seconds(7));
  f.sar.Authorize(Alice(), "get", "/metrics");
  EXPECT_EQ(f.Reviews(), 4u) << "the allow expired after 10s";
}

TEST(SubjectAccessReviewer, EveryAttributeIsPartOfTheCacheKey) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath,
                   [](const client::HttpRequest&) { return SarAnswer(true); });
  UserInfo a = Alice();
  f.sar.Authorize(a, "get", "/metrics");
  f.sar.Authorize(a, "post", "/metrics");
  UserInfo other_group = a;
  other_group.groups.push_back("x");
  f.sar.Authorize(other_group, "get", "/metrics");
  UserInfo other_extra = a;
  other_extra.extra["scopes"].push_back("c");
  f.sar.Authorize(other_extra, "get", "/metrics");
  EXPECT_EQ(f.Reviews(), 4u);
}

TEST(SubjectAccessReviewer, DeniedAndReasons) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest&) {
    return SarAnswer(false, "blocked by policy", /*denied=*/true);
  });
  AuthzResult r = f.sar.Authorize(Alice(), "get", "/metrics");
  EXPECT_EQ(r.decision, AuthzDecision::kDeny);
  EXPECT_EQ(r.reason, "blocked by policy");
  EXPECT_TRUE(r.error.ok());
}

TEST(SubjectAccessReviewer, AllowedAndDeniedAtOnceIsAnError) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath,
                   [](const client::HttpRequest&) { return SarAnswer(true, "", true); });
  AuthzResult r = f.sar.Authorize(Alice(), "get", "/metrics");
  EXPECT_EQ(r.decision, AuthzDecision::kDeny);
  EXPECT_THAT(r.error.message(), HasSubstr("returned both allow and deny"));
}

TEST(SubjectAccessReviewer, FailuresAreErrorsAndNotCached) {
  Fixture f;
  f.fc.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest&) {
    return client::HttpResponse{500, R"({"kind":"Status","message":"etcd down","code":500})", ""};
  });
  AuthzResult r = f.sar.Authorize(Alice(), "get", "/metrics");
  EXPECT_EQ(r.decision, AuthzDecision::kNoOpinion);
  EXPECT_EQ(r.error.message(), "etcd down");
  f.fc.api->Handle(kSubjectAccessReviewPath,
                   [](const client::HttpRequest&) { return SarAnswer(true); });
  EXPECT_EQ(f.sar.Authorize(Alice(), "get", "/metrics").decision, AuthzDecision::kAllow);
  EXPECT_EQ(f.Reviews(), 2u);
}

}  // namespace
}  // namespace stowage::auth::authorizer_test
