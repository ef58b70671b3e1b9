#include "pkg/metrics/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stowage::metrics::registry_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ExponentialBuckets, RepeatedMultiplicationAsComponentBase) {
  EXPECT_EQ(ExponentialBuckets(0.001, 2, 4), (std::vector<double>{0.001, 0.002, 0.004, 0.008}));
  auto b = ExponentialBuckets(0.00001, 1.5, 3);
  EXPECT_EQ(b[1], 0.00001 * 1.5);
  EXPECT_EQ(b[2], 0.00001 * 1.5 * 1.5);
}

TEST(Registry, RendersStabilityPrefixAndOnlyFamiliesWithSeries) {
  Registry r;
  auto& c =
      r.AddCounter({"x_total", "Counts x.", Type::kCounter, Stability::kStable, {"kind"}, {}});
  r.AddGauge({"unused", "Never set.", Type::kGauge, Stability::kAlpha, {"a"}, {}});
  c.Add({{"kind", "k"}}).Increment(3);
  std::string out = r.Render();
  EXPECT_THAT(out, HasSubstr("# HELP x_total [STABLE] Counts x.\n# TYPE x_total counter\n"
                             "x_total{kind=\"k\"} 3\n"));
  EXPECT_THAT(out, Not(HasSubstr("unused")));
}

TEST(Registry, CountsRegisteredFamiliesByStability) {
  Registry r;
  r.AddCounter({"a_total", "A.", Type::kCounter, Stability::kAlpha, {}, {}});
  r.AddCounter({"b_total", "B.", Type::kCounter, Stability::kAlpha, {}, {}});
  r.AddGauge({"s", "S.", Type::kGauge, Stability::kStable, {}, {}});
  std::string out = r.Render();
  // Three of its own families (registered, disabled, hidden) are BETA.
  EXPECT_THAT(out, HasSubstr("registered_metrics_total{deprecated_version=\"\",stability_level="
                             "\"ALPHA\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("registered_metrics_total{deprecated_version=\"\",stability_level="
                             "\"BETA\"} 3\n"));
  EXPECT_THAT(out, HasSubstr("registered_metrics_total{deprecated_version=\"\",stability_level="
                             "\"STABLE\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("disabled_metrics_total 0\n"));
  EXPECT_THAT(out, HasSubstr("hidden_metrics_total 0\n"));
}

TEST(Registry, DisabledMetricsAreNotServed) {
  Registry r;
  r.AddGauge({"keep", "K.", Type::kGauge, Stability::kAlpha, {}, {}}).Add({}).Set(1);
  r.AddGauge({"drop", "D.", Type::kGauge, Stability::kAlpha, {}, {}}).Add({}).Set(1);
  r.SetDisabled({"drop", "not_a_metric"});
  std::string out = r.Render();
  EXPECT_THAT(out, HasSubstr("keep 1\n"));
  EXPECT_THAT(out, Not(HasSubstr("drop")));
  EXPECT_THAT(out, HasSubstr("disabled_metrics_total 1\n"));  // unknown names are not counted
  r.SetDisabled({});
  EXPECT_THAT(r.Render(), HasSubstr("drop 1\n"));
}

// component-base hides a deprecated family once its deprecation period (0 minor versions for
// ALPHA, 1 for BETA, 3 for STABLE) has run out at the current version, 1.37.
TEST(Registry, DeprecatedFamiliesHideWhenTheirPeriodEnds) {
  auto desc = [](Stability s, std::string deprecated) {
    return FamilyDesc{"f", "F.", Type::kGauge, s, {}, {}, std::move(deprecated)};
  };
  EXPECT_TRUE(desc(Stability::kAlpha, "1.37.0").Hidden());
  EXPECT_FALSE(desc(Stability::kAlpha, "1.38.0").Hidden());
  EXPECT_FALSE(desc(Stability::kBeta, "1.37.0").Hidden());
  EXPECT_TRUE(desc(Stability::kBeta, "1.36.0").Hidden());
  EXPECT_FALSE(desc(Stability::kStable, "1.35.0").Hidden());
  EXPECT_TRUE(desc(Stability::kStable, "1.34.0").Hidden());
  EXPECT_FALSE(desc(Stability::kAlpha, "").Hidden());
  EXPECT_EQ(desc(Stability::kBeta, "1.37.0").ExposedHelp(), "[BETA] (Deprecated since 1.37.0) F.");
}

TEST(Registry, HiddenFamiliesAreServedOnlyWhenShown) {
  Registry r;
  r.AddGauge({"old", "Old.", Type::kGauge, Stability::kAlpha, {}, {}, "1.37.0"}).Add({}).Set(1);
  std::string out = r.Render();
  EXPECT_THAT(out, Not(HasSubstr("old")));
  EXPECT_THAT(out, HasSubstr("hidden_metrics_total 1\n"));
  EXPECT_THAT(out, Not(HasSubstr("stability_level=\"ALPHA\"")));  // hidden is not registered
  r.SetShowHidden(true);
  out = r.Render();
  EXPECT_THAT(out, HasSubstr("# HELP old [ALPHA] (Deprecated since 1.37.0) Old.\n"));
  EXPECT_THAT(out, HasSubstr("old 1\n"));
  EXPECT_THAT(out, HasSubstr("hidden_metrics_total 0\n"));
  EXPECT_THAT(out, HasSubstr("registered_metrics_total{deprecated_version=\"1.37.0\","
                             "stability_level=\"ALPHA\"} 1\n"));
}

TEST(Registry, GlobalServesProcessMetricsFromProc) {
  std::string out = Registry::Global().Render();
  for (const char* name :
       {"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
        "process_max_fds ", "process_start_time_seconds ", "process_virtual_memory_bytes "}) {
    EXPECT_THAT(out, HasSubstr(std::string("\n") + name)) << name;
  }
  EXPECT_THAT(out, HasSubstr("# HELP process_open_fds Number of open file descriptors.\n"));
  EXPECT_THAT(out, Not(HasSubstr("# TYPE go_")));  // stowage is not a Go program
  // The start time is a plausible epoch time (after 2020), not a tick count.
  auto pos = out.find("\nprocess_start_time_seconds ");
  ASSERT_NE(pos, std::string::npos);
  double start = std::stod(out.substr(pos + 28));
  EXPECT_GT(start, 1.5e9);
}

}  // namespace
}  // namespace stowage::metrics::registry_test
