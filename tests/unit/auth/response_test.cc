// The answers' bodies (built with Go-compatible quoting) and the review JSON.
#include "pkg/auth/response.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/auth/reviews.h"

namespace stowage::auth::response_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ResponseBody, ForbiddenSanitizesTheMessageButNotTheReason) {
  Decision d;
  d.http_status = 403;
  d.user.name = "<script>";
  d.verb = "get";
  d.path = "/a&b";
  d.reason = "x<y";
  EXPECT_EQ(ResponseBody(d),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"forbidden: User \"\u0026lt;script\u0026gt;\" cannot get path )"
            R"(\"/a\u0026amp;b\": x\u003cy","reason":"Forbidden","details":{},"code":403})"
            "\n");
}

TEST(ResponseBody, AllowedHasNoBody) {
  Decision d;
  EXPECT_TRUE(d.allowed());
  EXPECT_EQ(ResponseBody(d), "");
}

TEST(Reviews, DecodeTokenReviewUser) {
  auto r = DecodeTokenReview(
      R"({"status":{"authenticated":true,"user":{"username":"u","uid":"1","groups":["a"],)"
      R"("extra":{"k":["v1","v2"]}}}})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->authenticated);
  EXPECT_EQ(r->user.name, "u");
  EXPECT_EQ(r->user.uid, "1");
  EXPECT_THAT(r->user.groups, ElementsAre("a"));
  EXPECT_THAT(r->user.extra.at("k"), ElementsAre("v1", "v2"));
  auto empty = DecodeTokenReview(R"({"kind":"TokenReview"})");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->authenticated);
  EXPECT_FALSE(DecodeTokenReview("[1]").ok());
  auto bad = DecodeTokenReview(R"({"status":{"authenticated":true,"user":{"groups":"a"}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("status.user.groups: expected an array"));
}

TEST(Reviews, DecodeSubjectAccessReviewAndConfigMap) {
  auto s = DecodeSubjectAccessReview(R"({"status":{"allowed":false,"denied":true,"reason":"r"}})");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->denied);
  EXPECT_EQ(s->reason, "r");
  EXPECT_FALSE(DecodeSubjectAccessReview("not json").ok());
  auto cm = DecodeConfigMapData(R"({"data":{"client-ca-file":"pem"}})");
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(cm->at("client-ca-file"), "pem");
  auto list = DecodeStringList(R"(["a","b"])");
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(*list, ElementsAre("a", "b"));
  EXPECT_TRUE(DecodeStringList("")->empty());
  EXPECT_FALSE(DecodeStringList("[1]").ok());
}

TEST(Reviews, EncodingSurvivesInvalidUtf8) {
  std::string body = EncodeTokenReview("tok\xff");
  EXPECT_THAT(body, HasSubstr(R"("spec":{"token":"tok)"));
  std::string sar = EncodeSubjectAccessReview(UserInfo{"u\xfe", "", {}, {}}, "get", "/m");
  EXPECT_THAT(sar, HasSubstr(R"("nonResourceAttributes":{"path":"/m","verb":"get"})"));
}

// What the API server is asked is upstream's SubjectAccessReview for the user, extra included.
TEST(Reviews, SubjectAccessReviewCarriesTheWholeUser) {
  UserInfo user{"alice", "u-1", {"g1", "g2"}, {{"scopes", {"a", "b"}}, {"x", {}}}};
  EXPECT_EQ(EncodeSubjectAccessReview(user, "get", "/metrics"),
            R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",)"
            R"("spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"},"user":"alice",)"
            R"("groups":["g1","g2"],"extra":{"scopes":["a","b"],"x":[]},"uid":"u-1"}})");
  EXPECT_EQ(EncodeTokenReview("t"),
            R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
            R"("spec":{"token":"t"}})");
}

}  // namespace
}  // namespace stowage::auth::response_test
