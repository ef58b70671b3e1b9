// The answers' bodies and the Go-compatible quoting they are built with, and the review JSON.
#include "pkg/auth/response.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/auth/reviews.h"

namespace stowage::auth {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GoQuote, MatchesStrconvQuote) {
  EXPECT_EQ(GoQuote("/metrics"), R"("/metrics")");
  EXPECT_EQ(GoQuote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(GoQuote("tab\tnl\n"), R"("tab\tnl\n")");
  EXPECT_EQ(GoQuote(std::string("nul\x01\x7f", 5)), R"("nul\x01\x7f")");
  EXPECT_EQ(GoQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"") << "printable UTF-8 is kept";
  EXPECT_EQ(GoQuote("\xff"), R"("\xff")") << "invalid UTF-8 byte";
  EXPECT_EQ(GoQuote("nb\xc2\xa0sp"), R"("nb\u00a0sp")");
}

TEST(GoJsonString, MatchesEncodingJson) {
  EXPECT_EQ(GoJsonString("plain"), R"("plain")");
  EXPECT_EQ(GoJsonString("<a&b>"), R"("\u003ca\u0026b\u003e")");
  EXPECT_EQ(GoJsonString("q\"\\"), R"("q\"\\")");
  EXPECT_EQ(GoJsonString("\n\t\x01"), R"("\n\t\u0001")");
  EXPECT_EQ(GoJsonString("\xe2\x80\xa8"), R"("\u2028")");
  EXPECT_EQ(GoJsonString("bad\xff"), R"("bad\ufffd")");
  EXPECT_EQ(GoJsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
}

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

}  // namespace
}  // namespace stowage::auth
