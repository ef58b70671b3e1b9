// goautoneg's Accept parsing and responsewriters' pretty-print rule, shared by the auth answers
// and the z-pages.
#include "pkg/common/http_negotiation.h"

#include <gtest/gtest.h>

namespace stowage::http_negotiation_test {
namespace {

TEST(ParseAccept, OrdersByQualityThenConcreteBeforeWildcard) {
  auto c = ParseAccept("*/*;q=0.5, text/*, application/json;as=Flagz;v=v1beta1, bad/x/y, json");
  ASSERT_EQ(c.size(), 3u) << "bad/x/y and a type without subtype are skipped";
  EXPECT_EQ(c[0].type + "/" + c[0].subtype, "application/json");
  EXPECT_EQ(c[0].params.at("as"), "Flagz");
  EXPECT_EQ(c[1].type + "/" + c[1].subtype, "text/*");
  EXPECT_EQ(c[2].type + "/" + c[2].subtype, "*/*");
  EXPECT_DOUBLE_EQ(c[2].q, 0.5);
}

TEST(ParseAccept, MalformedQualityIsZero) {
  auto c = ParseAccept("text/plain;q=high");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_DOUBLE_EQ(c[0].q, 0.0);
}

TEST(IsPrettyPrint, QueryWinsOverUserAgent) {
  EXPECT_TRUE(IsPrettyPrint("curl/8.5", ""));
  EXPECT_TRUE(IsPrettyPrint("Mozilla/5.0 (X11)", ""));
  EXPECT_FALSE(IsPrettyPrint("Prometheus/2.53", ""));
  EXPECT_FALSE(IsPrettyPrint("curl/8.5", "pretty=false"));
  EXPECT_TRUE(IsPrettyPrint("Prometheus/2.53", "a=1&pretty=%74rue"));
  EXPECT_TRUE(IsPrettyPrint("curl/8.5", "pretty="));  // no value: the User-Agent decides
}

}  // namespace
}  // namespace stowage::http_negotiation_test
