// Request helpers and the router: query decoding as Go's url.ParseQuery, exact and prefix
// matching with upstream's priority, and Go's 404.
#include "pkg/server/router.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/server/http.h"

namespace stowage::server::router_test {
namespace {

using ::testing::ElementsAre;

Request Req(std::string path, std::string query = "") {
  Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

Handler Says(std::string what) {
  return [what](const Request&) {
    Response r;
    r.body = what;
    return r;
  };
}

TEST(RequestTest, QueryParamsDecodeLikeGo) {
  Request r = Req("/x", "verbose&exclude=a&exclude=b%2Cc&name=x+y&bad=%zz&semi=1;2&empty=");
  EXPECT_TRUE(r.HasQueryParam("verbose"));
  EXPECT_EQ(r.QueryParam("verbose"), "");
  EXPECT_THAT(r.QueryParams("exclude"), ElementsAre("a", "b,c"));
  EXPECT_EQ(r.QueryParam("exclude"), "a");
  EXPECT_EQ(r.QueryParam("name"), "x y");
  EXPECT_FALSE(r.HasQueryParam("bad"));   // malformed escape: the pair is dropped
  EXPECT_FALSE(r.HasQueryParam("semi"));  // ';' is not a separator and spoils the pair
  EXPECT_EQ(r.QueryParam("empty"), "");
  EXPECT_FALSE(r.HasQueryParam("missing"));
}

TEST(RequestTest, HeadersAndPercentDecoding) {
  Request r;
  r.headers = {{"user-agent", "curl"}, {"x-a", "1"}, {"x-a", "2"}};
  EXPECT_EQ(r.Header("x-a"), "1");
  EXPECT_EQ(r.Header("nope"), "");
  EXPECT_EQ(PercentDecode("/a%2Fb+c", false), "/a/b+c");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("%4", false), std::nullopt);
  EXPECT_EQ(PercentDecode("%G0", false), std::nullopt);
}

TEST(RouterTest, ExactBeatsPrefixAndLongestPrefixWins) {
  Router router("test");
  ASSERT_TRUE(router.Handle("/healthz", Says("exact")).ok());
  ASSERT_TRUE(router.HandlePrefix("/debug/", Says("debug")).ok());
  ASSERT_TRUE(router.HandlePrefix("/debug/pprof/", Says("pprof")).ok());
  ASSERT_TRUE(router.HandlePrefix("/", Says("root")).ok());
  ASSERT_TRUE(router.Handle("/debug/pprof/", Says("pprof-exact")).ok());
  EXPECT_EQ(router.Serve(Req("/healthz")).body, "exact");
  EXPECT_EQ(router.Serve(Req("/healthz/x")).body, "root");
  EXPECT_EQ(router.Serve(Req("/debug/flags")).body, "debug");
  EXPECT_EQ(router.Serve(Req("/debug/pprof/heap")).body, "pprof");
  EXPECT_EQ(router.Serve(Req("/debug/pprof/")).body, "pprof-exact");
  EXPECT_THAT(router.ListedPaths(),
              ElementsAre("/", "/debug/", "/debug/pprof/", "/debug/pprof/", "/healthz"));
}

TEST(RouterTest, UnmatchedPathIsGos404) {
  Router router;
  ASSERT_TRUE(router.Handle("/metrics", Says("m")).ok());
  Response r = router.Serve(Req("/metrics/"));  // exact paths do not match sub-paths
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "404 page not found\n");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.Header("x-content-type-options"), "nosniff");

  router.SetNotFoundHandler(Says("custom"));
  EXPECT_EQ(router.Serve(Req("/nope")).body, "custom");
}

TEST(RouterTest, RegistrationErrors) {
  Router router("kube-scheduler");
  ASSERT_TRUE(router.Handle("/a", Says("1")).ok());
  Status dup = router.Handle("/a", Says("2"));
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.message(), "kube-scheduler router: path /a is registered twice");
  EXPECT_EQ(router.HandlePrefix("/nodash", Says("x")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(router.Handle("relative", Says("x")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(router.Handle("/nil", nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stowage::server::router_test
