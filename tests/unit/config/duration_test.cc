// Go time.Duration parsing and printing (time.ParseDuration / Duration.String).
#include "pkg/config/duration.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>

namespace stowage::config::duration_test {
namespace {

using namespace std::chrono_literals;

TEST(DurationTest, Parse) {
  struct Case {
    const char* in;
    Duration want;
  };
  const Case cases[] = {
      {"0", 0ns},
      {"+0", 0ns},
      {"-0", 0ns},
      {"0s", 0ns},
      {"15s", 15s},
      {"10m", 10min},
      {"10m0s", 10min},
      {"1h2m3.5s", 1h + 2min + 3500ms},
      {"1.5h", 90min},
      {".5s", 500ms},
      {"5.s", 5s},
      {"300ms", 300ms},
      {"-1.5us", -1500ns},
      {"1\xC2\xB5s", 1us},  // µs, micro sign
      {"1\xCE\xBCs", 1us},  // μs, Greek mu
      {"2ns", 2ns},
      {"1h1h", 2h},
      {"9223372036854775807ns", Duration(std::numeric_limits<int64_t>::max())},
      {"-9223372036854775808ns", Duration(std::numeric_limits<int64_t>::min())},
      {"0.3333333333333333333h", 20min},
  };
  for (const Case& c : cases) {
    StatusOr<Duration> got = ParseDuration(c.in);
    ASSERT_TRUE(got.ok()) << c.in << ": " << got.status();
    EXPECT_EQ(got->count(), c.want.count()) << c.in;
  }
}

TEST(DurationTest, ParseErrors) {
  struct Case {
    const char* in;
    const char* want;
  };
  const Case cases[] = {
      {"", "time: invalid duration \"\""},
      {"15", "time: missing unit in duration \"15\""},
      {"1x", "time: unknown unit \"x\" in duration \"1x\""},
      {"s", "time: invalid duration \"s\""},
      {".s", "time: invalid duration \".s\""},
      {"-", "time: invalid duration \"-\""},
      {"1s ", "time: unknown unit \"s \" in duration \"1s \""},
      {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
      {"3000000h", "time: invalid duration \"3000000h\""},
  };
  for (const Case& c : cases) {
    StatusOr<Duration> got = ParseDuration(c.in);
    ASSERT_FALSE(got.ok()) << c.in;
    EXPECT_EQ(got.status().message(), c.want) << c.in;
  }
}

TEST(DurationTest, Format) {
  struct Case {
    Duration in;
    const char* want;
  };
  const Case cases[] = {
      {0ns, "0s"},
      {1ns, "1ns"},
      {1100ns, "1.1\xC2\xB5s"},
      {2200us, "2.2ms"},
      {300ms, "300ms"},
      {2s, "2s"},
      {15s, "15s"},
      {10min, "10m0s"},
      {1h, "1h0m0s"},
      {1h + 2min + 3500ms, "1h2m3.5s"},
      {-1500ms, "-1.5s"},
      {Duration(std::numeric_limits<int64_t>::max()), "2562047h47m16.854775807s"},
      {Duration(std::numeric_limits<int64_t>::min()), "-2562047h47m16.854775808s"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatDuration(c.in), c.want) << c.in.count();
    if (c.in.count() != std::numeric_limits<int64_t>::min()) {
      StatusOr<Duration> back = ParseDuration(FormatDuration(c.in));
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->count(), c.in.count());
    }
  }
}

}  // namespace
}  // namespace stowage::config::duration_test
