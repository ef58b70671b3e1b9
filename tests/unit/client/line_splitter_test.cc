#include "pkg/client/line_splitter.h"

#include <gtest/gtest.h>

namespace stowage::client::line_splitter_test {
namespace {

TEST(LineSplitter, JoinsLinesSplitAcrossChunks) {
  LineSplitter s(100);
  std::vector<std::string> out;
  auto on = [&](std::string_view l) {
    out.emplace_back(l);
    return true;
  };
  ASSERT_TRUE(s.Feed("{\"a\"", on).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(s.pending(), 4u);
  ASSERT_TRUE(s.Feed(":1}\n{\"b\":2}\n  \n{\"c\"", on).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], "{\"a\":1}");
  EXPECT_EQ(out[1], "{\"b\":2}");
  ASSERT_TRUE(s.Feed(":3}\n", on).ok());
  EXPECT_EQ(out.back(), "{\"c\":3}");
  EXPECT_EQ(s.pending(), 0u);
}

TEST(LineSplitter, RejectsAnUnboundedLine) {
  LineSplitter s(10);
  auto on = [](std::string_view) { return true; };
  ASSERT_TRUE(s.Feed("12345", on).ok());
  Status st = s.Feed("678901", on);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
}

TEST(LineSplitter, StopsWhenTheConsumerSaysSo) {
  LineSplitter s(100);
  int n = 0;
  ASSERT_TRUE(s.Feed("a\nb\nc\n", [&](std::string_view) { return ++n < 2; }).ok());
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(s.stopped());
}

}  // namespace
}  // namespace stowage::client::line_splitter_test
