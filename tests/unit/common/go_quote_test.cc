// Go's string quoting, checked against what strconv.Quote and encoding/json produce.
#include "pkg/common/go_quote.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/common/yaml_text.h"

namespace stowage::go_quote_test {
namespace {

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

TEST(HtmlEscape, EscapesWhatGoEscapes) {
  EXPECT_EQ(HtmlEscape(R"(<a href="x">Tom & Jerry's</a>)"),
            "&lt;a href=&#34;x&#34;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain"), "plain");
}

}  // namespace
TEST(FromYamlCpp, RewritesOnlyTheTwoEscapeBytes) {
  EXPECT_EQ(FromYamlCpp("plain ünïcødé"), "plain ünïcødé");
  EXPECT_EQ(FromYamlCpp("a\xA0"
                        "b\x85"),
            "a\u00a0b\u0085");
  // Already UTF-8 (U+00A0, U+0085) and other invalid bytes are left as they are.
  EXPECT_EQ(FromYamlCpp("\u00a0\u0085"), "\u00a0\u0085");
  EXPECT_EQ(FromYamlCpp("x\xFFy\xA0"), "x\xFFy\u00a0");
}

}  // namespace stowage::go_quote_test
