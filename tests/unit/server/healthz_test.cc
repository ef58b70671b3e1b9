// Health endpoints byte for byte as k8s.io/apiserver's healthz package, and the SLI metrics.
#include "pkg/server/healthz.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "pkg/server/slis.h"

namespace stowage::server::healthz_test {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

Request Get(std::string path, std::string query = "") {
  Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

class HealthzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallHealthChecks(router_, "/healthz", {}, &metrics_).ok());
    ASSERT_TRUE(InstallHealthChecks(router_, "/livez", {PingHealthCheck()}, &metrics_).ok());
    ASSERT_TRUE(InstallHealthChecks(router_, "/readyz",
                                    {PingHealthCheck(),
                                     NamedHealthCheck("sched-handler-sync",
                                                      [this] {
                                                        return synced_
                                                                   ? OkStatus()
                                                                   : InternalError(
                                                                         "handlers are not fully "
                                                                         "synchronized");
                                                      }),
                                     ShutdownHealthCheck([this] { return stopping_.load(); }),
                                     {"etcd", [] { return OkStatus(); }, "storage"}},
                                    &metrics_)
                    .ok());
    ASSERT_TRUE(InstallSliMetricsHandler(router_, metrics_).ok());
  }
  Router router_{"kube-scheduler"};
  HealthCheckMetrics metrics_;
  std::atomic<bool> synced_{true};
  std::atomic<bool> stopping_{false};
};

TEST_F(HealthzTest, PlainOkAndVerbose) {
  Response r = router_.Serve(Get("/healthz"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(r.Header("X-Content-Type-Options"), "nosniff");

  r = router_.Serve(Get("/healthz", "verbose"));
  EXPECT_EQ(r.body, "[+]ping ok\nhealthz check passed\n");
  r = router_.Serve(Get("/readyz", "verbose=1"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]sched-handler-sync ok\n[+]shutdown ok\n[+]etcd ok\n"
            "readyz check passed\n");
}

TEST_F(HealthzTest, FailureIsAlwaysVerboseWithTheReasonWithheld) {
  synced_ = false;
  Response r = router_.Serve(Get("/readyz"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[-]sched-handler-sync failed: reason withheld\n[+]shutdown ok\n"
            "[+]etcd ok\nreadyz check failed\n");
  stopping_ = true;
  r = router_.Serve(Get("/readyz"));
  EXPECT_THAT(r.body, HasSubstr("[-]shutdown failed: reason withheld\n"));
  // /livez does not include readiness checks.
  EXPECT_EQ(router_.Serve(Get("/livez")).status, 200);
}

TEST_F(HealthzTest, ExcludeByNameAndGroupAndWarnAboutUnknownNames) {
  synced_ = false;
  Response r = router_.Serve(Get("/readyz",
                                 "exclude=sched-handler-sync&exclude=storage&exclude=zz"
                                 "&exclude=aa&verbose"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]sched-handler-sync excluded: ok\n[+]shutdown ok\n"
            "[+]etcd excluded with storage: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"aa\",\"zz\"\n"
            "readyz check passed\n");
  // Without ?verbose a pass stays terse even with exclusions.
  EXPECT_EQ(router_.Serve(Get("/readyz", "exclude=sched-handler-sync")).body, "ok");
}

TEST_F(HealthzTest, SubPathsRunOneCheckAndShowTheReason) {
  Response r = router_.Serve(Get("/readyz/ping"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  synced_ = false;
  r = router_.Serve(Get("/readyz/sched-handler-sync"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: handlers are not fully synchronized\n");
  EXPECT_EQ(router_.Serve(Get("/healthz/ping")).body, "ok");
  EXPECT_EQ(router_.Serve(Get("/livez/ping")).status, 200);
  EXPECT_EQ(router_.Serve(Get("/healthz/nope")).status, 404);
  EXPECT_EQ(router_.Serve(Get("/healthz/")).status, 404);
}

TEST_F(HealthzTest, InstallingTheSamePathTwiceFails) {
  EXPECT_EQ(InstallHealthChecks(router_, "/healthz", {}, nullptr).code(),
            StatusCode::kAlreadyExists);
  Router r2;
  EXPECT_EQ(InstallHealthChecks(r2, "/x", {PingHealthCheck(), PingHealthCheck()}, nullptr).code(),
            StatusCode::kAlreadyExists);
}

TEST_F(HealthzTest, SliMetricsRecordEachRootCheckRun) {
  Response empty = router_.Serve(Get("/metrics/slis"));
  EXPECT_EQ(empty.content_type, "text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
  EXPECT_THAT(empty.body, StartsWith("# HELP process_start_time_seconds [ALPHA] Start time of the "
                                     "process since unix epoch in seconds.\n"
                                     "# TYPE process_start_time_seconds gauge\n"));
  EXPECT_THAT(empty.body, MatchesRegex("(.|\n)*process_start_time_seconds [0-9.]+e\\+09\n"));

  router_.Serve(Get("/healthz"));
  router_.Serve(Get("/healthz"));
  synced_ = false;
  router_.Serve(Get("/readyz", "exclude=etcd"));
  router_.Serve(Get("/readyz/ping"));  // sub-paths are not recorded
  std::string body = router_.Serve(Get("/metrics/slis")).body;
  std::string expected_prefix =
      "# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single "
      "healthcheck.\n"
      "# TYPE kubernetes_healthcheck gauge\n"
      "kubernetes_healthcheck{name=\"ping\",type=\"healthz\"} 1\n"
      "kubernetes_healthcheck{name=\"ping\",type=\"readyz\"} 1\n"
      "kubernetes_healthcheck{name=\"sched-handler-sync\",type=\"readyz\"} 0\n"
      "kubernetes_healthcheck{name=\"shutdown\",type=\"readyz\"} 1\n"
      "# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all "
      "healthcheck.\n"
      "# TYPE kubernetes_healthchecks_total counter\n"
      "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"healthz\"} 2\n"
      "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"readyz\"} 1\n"
      "kubernetes_healthchecks_total{name=\"sched-handler-sync\",status=\"error\",type=\"readyz\"} "
      "1\n"
      "kubernetes_healthchecks_total{name=\"shutdown\",status=\"success\",type=\"readyz\"} 1\n"
      "# HELP process_start_time_seconds";
  EXPECT_THAT(body, StartsWith(expected_prefix));

  Request del = Get("/metrics/slis");
  del.method = "DELETE";
  EXPECT_EQ(router_.Serve(del).body, "metrics reset\n");
  EXPECT_EQ(router_.Serve(Get("/metrics/slis")).body, "");  // as upstream's registry Reset
}

TEST(PrometheusFloatTest, FormatsLikeGo) {
  EXPECT_EQ(FormatPrometheusFloat(0), "0");
  EXPECT_EQ(FormatPrometheusFloat(1), "1");
  EXPECT_EQ(FormatPrometheusFloat(-1), "-1");
  EXPECT_EQ(FormatPrometheusFloat(2), "2");
  EXPECT_EQ(FormatPrometheusFloat(123456), "123456");
  EXPECT_EQ(FormatPrometheusFloat(1234567), "1.234567e+06");
  EXPECT_EQ(FormatPrometheusFloat(1712345678.89), "1.71234567889e+09");
  EXPECT_EQ(FormatPrometheusFloat(0.5), "0.5");
  EXPECT_EQ(FormatPrometheusFloat(0.0001), "0.0001");
  EXPECT_EQ(FormatPrometheusFloat(0.00001), "1e-05");
  EXPECT_EQ(FormatPrometheusFloat(1.0 / 0.0), "+Inf");
}

}  // namespace
}  // namespace stowage::server::healthz_test
