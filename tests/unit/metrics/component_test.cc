// The inherited families: what stowage's leader election, API client and startup code write
// lands under client-go's and component-base's names and label values.
#include "pkg/metrics/component.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/metrics/registry.h"

namespace stowage::metrics::component_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A label value of its own for each run, so repeated runs in one process do not add up.
std::string Unique(const std::string& base) {
  static int n = 0;
  return base + "-" + std::to_string(++n);
}

TEST(ComponentMetrics, LeaderElection) {
  const std::string lease = Unique("lease");
  SetLeader(lease, true);
  LeaderSlowpathExercised(lease);
  LeaderSlowpathExercised(lease);
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("leader_election_master_status{name=\"" + lease + "\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("leader_election_slowpath_total{name=\"" + lease + "\"} 2\n"));
  SetLeader(lease, false);
  EXPECT_THAT(Registry::Global().Render(),
              HasSubstr("leader_election_master_status{name=\"" + lease + "\"} 0\n"));
}

TEST(ComponentMetrics, RestRequestsByCodeMethodHost) {
  const std::string host = Unique("10.9.8.7:6443");
  RestRequest ok{.verb = "POST",
                 .host = host,
                 .code = 201,
                 .latency_seconds = 0.03,
                 .rate_limiter_seconds = 0.001,
                 .request_bytes = 300,
                 .response_bytes = 5000};
  ObserveRestRequest(ok);
  RestRequest lost{.verb = "GET", .host = host, .code = 0, .latency_seconds = 1, .retry = true};
  ObserveRestRequest(lost);
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("rest_client_requests_total{code=\"201\",host=\"" + host +
                             "\","
                             "method=\"POST\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("rest_client_requests_total{code=\"<error>\",host=\"" + host +
                             "\","
                             "method=\"GET\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("rest_client_request_duration_seconds_bucket{host=\"" + host +
                             "\","
                             "verb=\"POST\",le=\"0.025\"} 0\n"));
  EXPECT_THAT(out, HasSubstr("rest_client_request_duration_seconds_bucket{host=\"" + host +
                             "\","
                             "verb=\"POST\",le=\"0.1\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("rest_client_response_size_bytes_bucket{host=\"" + host +
                             "\","
                             "verb=\"POST\",le=\"4096\"} 0\n"));
  EXPECT_THAT(out, HasSubstr("rest_client_request_retries_total{code=\"<error>\",host="
                             "\"" +
                             host + "\",verb=\"GET\"} 1\n"));
  // No response: no response size.
  EXPECT_THAT(out, Not(HasSubstr("rest_client_response_size_bytes_count{host=\"" + host +
                                 "\","
                                 "verb=\"GET\"}")));
}

TEST(ComponentMetrics, VersionInfoHasOneSeriesOfTheCompatibilityVersions) {
  SetVersionInfo(VersionInfo{});
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("version_info{binary=\"1.37.2\",component=\"kube\",emulation="
                             "\"1.37\",min_compat=\"1.36\"} 1\n"));
  SetVersionInfo({.binary = "1.37.2", .emulation = "1.36", .min_compat = "1.35"});
  out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("emulation=\"1.36\",min_compat=\"1.35\"} 1\n"));
  EXPECT_THAT(out, Not(HasSubstr("emulation=\"1.37\"")));
  EXPECT_THAT(out, HasSubstr("\ncardinality_enforcement_unexpected_categorizations_total 0\n"));
}

TEST(ComponentMetrics, BuildInfoHasOneSeriesAndFeatureGatesTheirStage) {
  SetBuildInfo(BuildInfo{});
  EXPECT_THAT(Registry::Global().Render(),
              HasSubstr("kubernetes_build_info{build_date=\"1970-01-01T00:00:00Z\",compiler="
                        "\"gcc\",git_commit=\"\",git_tree_state=\"\",git_version=\"v1.37.2\","
                        "go_version=\"\",major=\"1\",minor=\"37\",platform=\"linux/amd64\"} 1\n"));
  BuildInfo info;
  info.git_version = "v1.36.3-stowage";
  SetBuildInfo(info);
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("git_version=\"v1.36.3-stowage\""));
  EXPECT_THAT(out, Not(HasSubstr("git_version=\"v1.37.2\",")));  // replaced, not added
  SetFeatureEnabled("SchedulerQueueingHints", "", true);
  SetFeatureEnabled("GangScheduling", "ALPHA", false);
  out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("kubernetes_feature_enabled{name=\"SchedulerQueueingHints\","
                             "stage=\"\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("kubernetes_feature_enabled{name=\"GangScheduling\","
                             "stage=\"ALPHA\"} 0\n"));
}

}  // namespace
}  // namespace stowage::metrics::component_test
