// Body layout negotiation, and the 401/403/500 answers compared byte for byte with what the real
// kube-scheduler v1.36.3 sent (captured with curl against tests/cluster/bin/kube-scheduler on the
// test cluster; the Content-Length it reported is checked too).
#include "pkg/auth/negotiation.h"

#include <gtest/gtest.h>

#include "pkg/auth/delegating_auth.h"
#include "tests/unit/auth/auth_env.h"

namespace stowage::auth::negotiation_test {
namespace {

constexpr BodyFormat kCompact = BodyFormat::kCompact;
constexpr BodyFormat kPretty = BodyFormat::kPretty;

TEST(NegotiateStatusFormat, UserAgentQueryAndAccept) {
  EXPECT_EQ(NegotiateStatusFormat("", "", ""), kCompact);
  EXPECT_EQ(NegotiateStatusFormat("", "curl/7.88.1", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("*/*", "Wget/1.21", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("", "Mozilla/5.0 (X11)", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("", "Prometheus/2.53.0", ""), kCompact);
  EXPECT_EQ(NegotiateStatusFormat("", "kubectl/v1.36.3", "pretty=true"), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("", "curl/8", "pretty=false"), kCompact) << "query wins";
  EXPECT_EQ(NegotiateStatusFormat("", "curl/8", "pretty="), kPretty) << "empty: user agent";
  EXPECT_EQ(NegotiateStatusFormat("", "", "x=1&pretty=1"), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("", "", "prettyish=1"), kCompact);
  EXPECT_EQ(NegotiateStatusFormat("application/json;pretty=1", "", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("application/json", "", ""), kCompact);
  // Prometheus' Accept: */* matches JSON.
  EXPECT_EQ(NegotiateStatusFormat("application/openmetrics-text;version=1.0.0,text/plain;"
                                  "version=0.0.4;q=0.5,*/*;q=0.1",
                                  "Prometheus/2.53.0", ""),
            kCompact);
  // Nothing acceptable: upstream writes the Status indented whatever the client.
  EXPECT_EQ(NegotiateStatusFormat("text/plain", "x", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("application/json;as=Table;v=v1;g=meta.k8s.io", "", ""), kPretty);
  // YAML and protobuf are answered with compact JSON (not produced by stowage).
  EXPECT_EQ(NegotiateStatusFormat("application/yaml", "curl/8", ""), kCompact);
  EXPECT_EQ(NegotiateStatusFormat("application/vnd.kubernetes.protobuf,application/json", "", ""),
            kCompact);
  // Ordering: higher q first, then specific before wildcard.
  EXPECT_EQ(NegotiateStatusFormat("text/html;q=0.9,application/json;pretty=1", "", ""), kPretty);
  EXPECT_EQ(NegotiateStatusFormat("*/*;q=0.1,application/json;pretty=1", "", ""), kPretty);
}

class UpstreamBodies : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.options.skip_in_cluster_lookup = true;
    env_.ScriptTokens();
    env_.ScriptAccess();
    ASSERT_TRUE(env_.Make().ok());
  }
  Decision Check(std::string method, std::string target, Headers headers) {
    return env_.auth->Check(Request{std::move(method), std::move(target), std::move(headers), {}});
  }
  testing::AuthEnv env_;
};

// curl -sk https://127.0.0.1:41259/metrics (HTTP/2 403, content-length 224)
constexpr char kCurlForbidden[] = R"({
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "forbidden: User \"system:anonymous\" cannot get path \"/metrics\"",
  "reason": "Forbidden",
  "details": {},
  "code": 403
})";

TEST_F(UpstreamBodies, ForbiddenForCurl) {
  Decision d = Check("GET", "/metrics", {{"User-Agent", "curl/7.88.1"}, {"Accept", "*/*"}});
  ASSERT_EQ(d.http_status, 403);
  EXPECT_EQ(ResponseBody(d), kCurlForbidden);
  EXPECT_EQ(ResponseBody(d).size(), 224u);
  EXPECT_EQ(ResponseContentType(d), "application/json");
  EXPECT_TRUE(ResponseNoSniff(d));
}

TEST_F(UpstreamBodies, ForbiddenForPrometheus) {
  // curl -sk -A Prometheus/2.0 https://127.0.0.1:41259/metrics
  Decision d = Check("GET", "/metrics", {{"User-Agent", "Prometheus/2.0"}});
  EXPECT_EQ(ResponseBody(d),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
            R"("forbidden: User \"system:anonymous\" cannot get path \"/metrics\"","reason":)"
            R"("Forbidden","details":{},"code":403})"
            "\n");
}

TEST_F(UpstreamBodies, UnauthorizedForCurlAndForOthers) {
  // curl -sk -H "Authorization: Bearer garbage" .../healthz (HTTP/2 401, content-length 157)
  Decision d = Check("GET", "/healthz",
                     {{"User-Agent", "curl/7.88.1"}, {"Authorization", "Bearer garbage"}});
  ASSERT_EQ(d.http_status, 401);
  EXPECT_EQ(ResponseBody(d), R"({
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "Unauthorized",
  "reason": "Unauthorized",
  "code": 401
})");
  EXPECT_EQ(ResponseBody(d).size(), 157u);
  EXPECT_FALSE(ResponseNoSniff(d)) << "upstream's 401 has no nosniff header";
  Decision other = Check("GET", "/metrics",
                         {{"User-Agent", "Prometheus/2.0"}, {"Authorization", "Bearer garbage"}});
  EXPECT_EQ(ResponseBody(other),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Unauthorized","reason":"Unauthorized","code":401})"
            "\n");
}

TEST_F(UpstreamBodies, DecodedPathIsQuotedSanitizedAndEscaped) {
  // curl -sk 'https://127.0.0.1:41259/a%3Cb%22c%20d?x=1' (content-length 235)
  Decision d = Check("GET", "/a%3Cb%22c%20d?x=1", {{"User-Agent", "curl/7.88.1"}});
  EXPECT_EQ(ResponseBody(d), R"({
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "forbidden: User \"system:anonymous\" cannot get path \"/a\u0026lt;b\\\"c d\"",
  "reason": "Forbidden",
  "details": {},
  "code": 403
})");
  EXPECT_EQ(ResponseBody(d).size(), 235u);
}

TEST_F(UpstreamBodies, PutIsVerbPut) {
  // curl -sk -X PUT .../debug/flags/v (content-length 230)
  Decision d = Check("PUT", "/debug/flags/v", {{"User-Agent", "curl/7.88.1"}});
  EXPECT_EQ(ResponseBody(d).size(), 230u);
  EXPECT_NE(ResponseBody(d).find(R"(cannot put path \"/debug/flags/v\")"), std::string::npos);
}

TEST_F(UpstreamBodies, NotAcceptableIsIndented) {
  // curl -sk -A x -H "Accept: text/plain" .../metrics (content-length 224)
  Decision d = Check("GET", "/metrics", {{"User-Agent", "x"}, {"Accept", "text/plain"}});
  EXPECT_EQ(ResponseBody(d), kCurlForbidden);
}

TEST_F(UpstreamBodies, InternalErrorQuotesTheRawTargetSanitized) {
  // With an authorization identity that may not create SubjectAccessReviews, upstream answered
  // curl -sk 'https://127.0.0.1:41260/metrics?a=<b>' with (content-length 250):
  const std::string server_message =
      "subjectaccessreviews.authorization.k8s.io is forbidden: User "
      "\"system:serviceaccount:default:nobody\" cannot create resource \"subjectaccessreviews\" "
      "in API group \"authorization.k8s.io\" at the cluster scope";
  env_.authz.api->Handle(kSubjectAccessReviewPath, [&](const client::HttpRequest&) {
    nlohmann::json st = {{"kind", "Status"},      {"apiVersion", "v1"},
                         {"status", "Failure"},   {"message", server_message},
                         {"reason", "Forbidden"}, {"code", 403}};
    return client::HttpResponse{403, st.dump(), ""};
  });
  Decision d = Check("GET", "/metrics?a=<b>", {{"User-Agent", "curl/7.88.1"}});
  ASSERT_EQ(d.http_status, 500);
  EXPECT_EQ(ResponseBody(d),
            "Internal Server Error: \"/metrics?a=&lt;b&gt;\": " + server_message + "\n");
  EXPECT_EQ(ResponseBody(d).size(), 250u);
  EXPECT_EQ(ResponseContentType(d), "text/plain; charset=utf-8");
}

}  // namespace
}  // namespace stowage::auth::negotiation_test
