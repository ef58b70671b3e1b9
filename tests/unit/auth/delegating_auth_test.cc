// DelegatingAuth end to end over fake API servers: anonymous access, bearer tokens, the 401 on a
// bad credential, always-allowed groups and paths, SubjectAccessReview verbs and paths, missing
// clients, and the answers' bodies.
#include "pkg/auth/delegating_auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/auth/auth_env.h"

namespace stowage::auth::delegating_auth_test {
namespace {

using testing::AuthEnv;
using testing::BodyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kForbiddenAnonymousMetrics[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"forbidden: User \"system:anonymous\" cannot get path \"/metrics\"",)"
    R"("reason":"Forbidden","details":{},"code":403})"
    "\n";
constexpr char kUnauthorized[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Unauthorized","reason":"Unauthorized","code":401})"
    "\n";

class DelegatingAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.options.skip_in_cluster_lookup = true;
    env_.ScriptTokens();
    env_.ScriptAccess();
  }
  AuthEnv env_;
};

TEST_F(DelegatingAuthTest, AnonymousMayReadHealthButNotMetrics) {
  ASSERT_TRUE(env_.Make().ok());
  for (const char* path : {"/healthz", "/readyz", "/livez"}) {
    Decision d = env_.Get(path);
    EXPECT_EQ(d.http_status, 200) << path;
    EXPECT_EQ(d.user.name, "system:anonymous");
    EXPECT_THAT(d.user.groups, ElementsAre("system:unauthenticated"));
  }
  EXPECT_EQ(env_.AccessReviews(), 0u) << "always-allowed paths need no review";
  Decision d = env_.Get("/metrics");
  EXPECT_EQ(d.http_status, 403);
  EXPECT_EQ(ResponseBody(d), kForbiddenAnonymousMetrics);
  EXPECT_EQ(ResponseContentType(d), "application/json");
  EXPECT_EQ(env_.AccessReviews(), 1u);
  EXPECT_EQ(env_.TokenReviews(), 0u);
}

TEST_F(DelegatingAuthTest, TokenOfAnAllowedUserReadsMetrics) {
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/metrics", "Bearer valid-reader");
  EXPECT_EQ(d.http_status, 200) << d.reason;
  EXPECT_EQ(d.user.name, "reader");
  EXPECT_THAT(d.user.groups, ElementsAre("g-reader", "system:authenticated"));
  auto sar = BodyOf(env_.authz.api->RequestsTo(kSubjectAccessReviewPath).at(0));
  EXPECT_EQ(sar["spec"]["user"], "reader");
  EXPECT_EQ(sar["spec"]["groups"], nlohmann::json({"g-reader", "system:authenticated"}));

  Decision configz = env_.Get("/configz", "Bearer valid-reader");
  EXPECT_EQ(configz.http_status, 403);
  EXPECT_THAT(ResponseBody(configz),
              HasSubstr(R"(forbidden: User \"reader\" cannot get path \"/configz\")"));
}

TEST_F(DelegatingAuthTest, RejectedTokenIsUnauthorizedEvenOnAlwaysAllowedPaths) {
  ASSERT_TRUE(env_.Make().ok());
  for (const char* path : {"/metrics", "/healthz"}) {
    Decision d = env_.Get(path, "Bearer garbage");
    EXPECT_EQ(d.http_status, 401) << path;
    EXPECT_EQ(d.reason, "invalid bearer token");
    EXPECT_EQ(ResponseBody(d), kUnauthorized);
    EXPECT_EQ(ResponseContentType(d), "application/json");
  }
  EXPECT_EQ(env_.TokenReviews(), 1u) << "the rejection was cached";
  EXPECT_EQ(env_.AccessReviews(), 0u);
}

TEST_F(DelegatingAuthTest, FailedTokenReviewIsUnauthorized) {
  env_.authn.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return client::HttpResponse{
        503, R"({"kind":"Status","message":"the server is shutting down","code":503})", ""};
  });
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/healthz", "Bearer valid-reader");
  EXPECT_EQ(d.http_status, 401);
  EXPECT_EQ(d.reason, "the server is shutting down");
}

TEST_F(DelegatingAuthTest, WithoutAnAuthenticationClientTokensAreIgnored) {
  ASSERT_TRUE(env_.Make(/*with_authn=*/false).ok());
  Decision d = env_.Get("/healthz", "Bearer garbage");
  EXPECT_EQ(d.http_status, 200);
  EXPECT_EQ(d.user.name, "system:anonymous");
  EXPECT_EQ(env_.Get("/metrics", "Bearer valid-reader").http_status, 403);
  EXPECT_EQ(env_.TokenReviews(), 0u);
}

TEST_F(DelegatingAuthTest, WithoutAnAuthorizationClientOnlyAlwaysAllowedPathsPass) {
  ASSERT_TRUE(env_.Make(/*with_authn=*/true, /*with_authz=*/false).ok());
  EXPECT_EQ(env_.Get("/healthz").http_status, 200);
  Decision d = env_.Get("/metrics", "Bearer valid-reader");
  EXPECT_EQ(d.http_status, 403);
  EXPECT_EQ(d.reason, "");
  EXPECT_EQ(env_.Get("/metrics", "Bearer master").http_status, 200) << "system:masters";
  EXPECT_EQ(env_.AccessReviews(), 0u);
}

TEST_F(DelegatingAuthTest, AlwaysAllowedGroupsSkipTheReview) {
  env_.options.always_allow_groups = {"system:masters", "g-ops"};
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(env_.Get("/configz", "Bearer master").http_status, 200);
  EXPECT_EQ(env_.Get("/debug/pprof/", "Bearer valid-ops").http_status, 200);
  EXPECT_EQ(env_.AccessReviews(), 0u);
  EXPECT_EQ(env_.Get("/configz", "Bearer valid-dev").http_status, 403);
  EXPECT_EQ(env_.AccessReviews(), 1u);
}

TEST_F(DelegatingAuthTest, AlwaysAllowedPathPrefixes) {
  env_.options.always_allow_paths = {"/healthz", "/debug/*"};
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(env_.Get("/debug/pprof/heap").http_status, 200);
  EXPECT_EQ(env_.Get("/debug").http_status, 403);
  EXPECT_EQ(env_.Get("/readyz").http_status, 403) << "no longer in the list";
}

TEST_F(DelegatingAuthTest, BadAlwaysAllowPathFailsConstruction) {
  env_.options.always_allow_paths = {"/a*b"};
  Status s = env_.Make();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("only trailing * allowed"));
}

TEST_F(DelegatingAuthTest, VerbIsTheLowerCasedMethod) {
  ASSERT_TRUE(env_.Make().ok());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GET", "get"}, {"HEAD", "head"},   {"POST", "post"},
      {"PUT", "put"}, {"PATCH", "patch"}, {"DELETE", "delete"}};
  for (const auto& [method, verb] : cases) {
    Decision d = env_.auth->Check(method, "/debug/flags/v", "Bearer valid-dev", {});
    EXPECT_EQ(d.verb, verb);
    auto reqs = env_.authz.api->RequestsTo(kSubjectAccessReviewPath);
    EXPECT_EQ(BodyOf(reqs.back())["spec"]["nonResourceAttributes"]["verb"], verb) << method;
    EXPECT_THAT(ResponseBody(d), HasSubstr("cannot " + verb + " path"));
  }
}

TEST_F(DelegatingAuthTest, PathIsDecodedAndStrippedOfItsQuery) {
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(env_.Get("/metrics?format=text", "Bearer valid-reader").http_status, 200);
  EXPECT_EQ(env_.Get("/%6detrics", "Bearer valid-reader").http_status, 200);
  EXPECT_EQ(env_.Get("/healthz?verbose").http_status, 200);
  Decision bad = env_.Get("/metrics%zz");
  EXPECT_EQ(bad.http_status, 400);
  EXPECT_EQ(ResponseBody(bad), "400 Bad Request");
}

TEST_F(DelegatingAuthTest, ReviewFailureIsAnInternalError) {
  env_.authz.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest&) {
    return client::HttpResponse{500, R"({"kind":"Status","message":"boom <x>","code":500})", ""};
  });
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/metrics?x=1", "Bearer valid-reader");
  EXPECT_EQ(d.http_status, 500);
  std::string body = ResponseBody(d);
  EXPECT_THAT(body, ::testing::StartsWith("Internal Server Error: \"/metrics?x=1\": "));
  EXPECT_THAT(body, HasSubstr("boom &lt;x&gt;"));
  EXPECT_EQ(body.back(), '\n');
  EXPECT_EQ(ResponseContentType(d), "text/plain; charset=utf-8");
  EXPECT_TRUE(ResponseNoSniff(d));
}

// The review had no opinion: the reason comes prefixed with the authorizer's name, as 1.37's
// union authorizer writes it.
TEST_F(DelegatingAuthTest, ReviewReasonIsAppendedToTheForbiddenMessage) {
  env_.authz.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest&) {
    return testing::SarAnswer(false, "no RBAC policy matched");
  });
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/metrics", "Bearer valid-dev");
  EXPECT_EQ(d.http_status, 403);
  EXPECT_THAT(ResponseBody(d),
              HasSubstr(R"("message":"forbidden: User \"dev\" cannot get path \"/metrics\": )"
                        R"(kubernetes.io/webhook: no RBAC policy matched")"));
}

// An explicit deny ends the chain and its reason is shown as the reviewer wrote it.
TEST_F(DelegatingAuthTest, DenyReasonIsShownUnprefixed) {
  env_.authz.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest&) {
    return testing::SarAnswer(false, "blocked by policy", /*denied=*/true);
  });
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/metrics", "Bearer valid-dev");
  EXPECT_EQ(d.http_status, 403);
  EXPECT_THAT(ResponseBody(d), HasSubstr(R"(cannot get path \"/metrics\": blocked by policy")"));
}

TEST_F(DelegatingAuthTest, AuthorizationHeaderParsing) {
  ASSERT_TRUE(env_.Make().ok());
  EXPECT_EQ(env_.Get("/metrics", "bearer valid-reader").http_status, 200) << "scheme any case";
  EXPECT_EQ(env_.Get("/metrics", "  Bearer valid-reader  ").http_status, 200) << "trimmed";
  EXPECT_EQ(env_.Get("/metrics", "Bearer valid-reader extra").http_status, 200);
  // Not a bearer token at all: anonymous.
  for (const char* h : {"Basic dXNlcjpwdw==", "Bearer", "Bearer  valid-reader", "Token x"}) {
    Decision d = env_.Get("/metrics", h);
    EXPECT_EQ(d.http_status, 403) << h;
    EXPECT_EQ(d.user.name, "system:anonymous") << h;
  }
}

TEST_F(DelegatingAuthTest, AuthenticatedGroupIsNotAddedTwice) {
  env_.authn.api->Handle(kTokenReviewPath, [](const client::HttpRequest&) {
    return testing::TokenReviewAnswer(true, "sa", {"system:authenticated", "x"});
  });
  ASSERT_TRUE(env_.Make().ok());
  Decision d = env_.Get("/healthz", "Bearer t");
  EXPECT_THAT(d.user.groups, ElementsAre("system:authenticated", "x"));
}

TEST_F(DelegatingAuthTest, RequestFormWithHeaders) {
  ASSERT_TRUE(env_.Make().ok());
  Request r;
  r.method = "GET";
  r.target = "/metrics";
  r.headers = {{"Accept", "*/*"}, {"authorization", "Bearer valid-reader"}};
  EXPECT_EQ(env_.auth->Check(r).http_status, 200);
}

}  // namespace
}  // namespace stowage::auth::delegating_auth_test
