#include "pkg/metrics/text_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace stowage::metrics::text_format_test {
namespace {

// Go's strconv.FormatFloat(v, 'g', -1, 64), as kube-scheduler's /metrics shows these values.
TEST(FormatFloat, MatchesGoShortestG) {
  EXPECT_EQ(FormatFloat(0), "0");
  EXPECT_EQ(FormatFloat(1), "1");
  EXPECT_EQ(FormatFloat(-1), "-1");
  EXPECT_EQ(FormatFloat(0.5), "0.5");
  EXPECT_EQ(FormatFloat(0.0001), "0.0001");  // exponent -4: plain
  EXPECT_EQ(FormatFloat(0.00001), "1e-05");  // exponent -5: exponent form
  EXPECT_EQ(FormatFloat(0.00001 * 1.5), "1.5000000000000002e-05");
  EXPECT_EQ(FormatFloat(16384), "16384");
  EXPECT_EQ(FormatFloat(262144), "262144");         // exponent 5: plain
  EXPECT_EQ(FormatFloat(1048576), "1.048576e+06");  // exponent 6: exponent form
  EXPECT_EQ(FormatFloat(2592000), "2.592e+06");
  EXPECT_EQ(FormatFloat(1310.72), "1310.72");
  EXPECT_EQ(FormatFloat(2147483648.0), "2.147483648e+09");
  EXPECT_EQ(FormatFloat(18446744073709551615.0), "1.8446744073709552e+19");
  EXPECT_EQ(FormatFloat(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatFloat(std::nan("")), "NaN");
}

prometheus::ClientMetric::Label L(std::string n, std::string v) { return {n, v}; }

TEST(WriteTextFormat, SortsFamiliesAndSeriesAndEscapes) {
  prometheus::MetricFamily b{
      "b_total", "[ALPHA] Second\\ line\nhere", prometheus::MetricType::Counter, {}};
  prometheus::ClientMetric m1, m2;
  m1.label = {L("k", "z")};
  m1.counter.value = 2;
  m2.label = {L("k", "a\"b\\c\nd")};
  m2.counter.value = 1;
  b.metric = {m1, m2};
  prometheus::MetricFamily a{"a", "First", prometheus::MetricType::Gauge, {}};
  prometheus::ClientMetric g;
  g.gauge.value = 0.25;
  a.metric = {g};
  prometheus::MetricFamily empty{"c", "Never observed", prometheus::MetricType::Gauge, {}};
  EXPECT_EQ(WriteTextFormat({b, empty, a}),
            "# HELP a First\n"
            "# TYPE a gauge\n"
            "a 0.25\n"
            "# HELP b_total [ALPHA] Second\\\\ line\\nhere\n"
            "# TYPE b_total counter\n"
            "b_total{k=\"a\\\"b\\\\c\\nd\"} 1\n"
            "b_total{k=\"z\"} 2\n");
}

TEST(WriteTextFormat, HistogramBucketsSumCountWithLeLast) {
  prometheus::MetricFamily h{"h_seconds", "Hist", prometheus::MetricType::Histogram, {}};
  prometheus::ClientMetric m;
  m.label = {L("a", "x"), L("b", "y")};
  m.histogram.sample_count = 3;
  m.histogram.sample_sum = 0.75;
  m.histogram.bucket = {{1, 0.0001}, {2, 1048576}, {3, std::numeric_limits<double>::infinity()}};
  h.metric = {m};
  EXPECT_EQ(WriteTextFormat({h}),
            "# HELP h_seconds Hist\n"
            "# TYPE h_seconds histogram\n"
            "h_seconds_bucket{a=\"x\",b=\"y\",le=\"0.0001\"} 1\n"
            "h_seconds_bucket{a=\"x\",b=\"y\",le=\"1.048576e+06\"} 2\n"
            "h_seconds_bucket{a=\"x\",b=\"y\",le=\"+Inf\"} 3\n"
            "h_seconds_sum{a=\"x\",b=\"y\"} 0.75\n"
            "h_seconds_count{a=\"x\",b=\"y\"} 3\n");
}

}  // namespace
}  // namespace stowage::metrics::text_format_test
