// From flags to the effective KubeSchedulerConfiguration: upstream's precedence between --config,
// the deprecated flags and the leader-election flags; validation of flag-only options;
// --write-config-to output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cmd/stowage/app/options.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/written.h"

namespace stowage::app::options_config_test {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A file under the test's temporary directory, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& contents = "") {
    path_ = ::testing::TempDir() + "stowage_app_XXXXXX";
    const int fd = ::mkstemp(path_.data());
    EXPECT_GE(fd, 0);
    if (fd >= 0) ::close(fd);
    std::ofstream(path_) << contents;
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Options MustParse(std::vector<std::string> args) {
  auto o = ParseArgs(args);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : Options{};
}

constexpr char kConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /from/file
  qps: 77
enableProfiling: false
leaderElection:
  leaseDuration: 20s
  resourceName: from-file
profiles:
- schedulerName: a
- schedulerName: b
)";

TEST(BuildConfig, NoFlagsGivesTheDefaults) {
  auto cfg = BuildConfig(MustParse({}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  config::KubeSchedulerConfiguration want;
  config::SetDefaults(want);
  EXPECT_EQ(*cfg, want);
  EXPECT_EQ(cfg->client_connection.qps, 50);
  EXPECT_EQ(cfg->client_connection.burst, 100);
  EXPECT_EQ(cfg->client_connection.kubeconfig, "");
  EXPECT_EQ(cfg->leader_election.leader_elect, true);
  EXPECT_EQ(cfg->leader_election.lease_duration, 15s);
  ASSERT_EQ(cfg->profiles.size(), 1u);
  EXPECT_EQ(cfg->profiles[0].scheduler_name, "default-scheduler");
}

TEST(BuildConfig, WithoutConfigDeprecatedFlagsApply) {
  auto cfg = BuildConfig(MustParse({"--kubeconfig=/k", "--kube-api-qps=10", "--kube-api-burst=20",
                                    "--kube-api-content-type=application/json", "--profiling=false",
                                    "--contention-profiling=false"}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->client_connection.kubeconfig, "/k");
  EXPECT_EQ(cfg->client_connection.qps, 10);
  EXPECT_EQ(cfg->client_connection.burst, 20);
  EXPECT_EQ(cfg->client_connection.content_type, "application/json");
  EXPECT_EQ(cfg->debugging.enable_profiling, false);
  EXPECT_EQ(cfg->debugging.enable_contention_profiling, false);
}

TEST(BuildConfig, WithoutConfigFlagsOverrideDefaultsEvenWithZero) {
  // Flags are applied after defaulting, so an explicit 0 is kept (defaulting would turn it
  // into 50).
  auto cfg = BuildConfig(MustParse({"--kube-api-qps=0"}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->client_connection.qps, 0);
}

TEST(BuildConfig, WithoutConfigLeaderElectionFlagsApply) {
  auto cfg = BuildConfig(
      MustParse({"--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
                 "--leader-elect-retry-period=5s", "--leader-elect-resource-name=n",
                 "--leader-elect-resource-namespace=ns"}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  const auto& le = cfg->leader_election;
  EXPECT_EQ(le.lease_duration, 30s);
  EXPECT_EQ(le.renew_deadline, 20s);
  EXPECT_EQ(le.retry_period, 5s);
  EXPECT_EQ(le.resource_name, "n");
  EXPECT_EQ(le.resource_namespace, "ns");
  EXPECT_EQ(le.resource_lock, "leases");
}

TEST(BuildConfig, WithConfigDeprecatedFlagsAreIgnored) {
  TempFile file(kConfig);
  auto cfg = BuildConfig(
      MustParse({"--config=" + file.path(), "--kubeconfig=/flag", "--kube-api-qps=10",
                 "--kube-api-burst=5", "--profiling=true", "--kube-api-content-type=x/y"}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->client_connection.kubeconfig, "/from/file");
  EXPECT_EQ(cfg->client_connection.qps, 77);
  EXPECT_EQ(cfg->client_connection.burst, 100);  // file default, not the flag
  EXPECT_EQ(cfg->client_connection.content_type, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(cfg->debugging.enable_profiling, false);
  ASSERT_EQ(cfg->profiles.size(), 2u);
}

TEST(BuildConfig, WithConfigLeaderElectionFlagsOverrideTheFile) {
  TempFile file(kConfig);
  auto cfg = BuildConfig(MustParse(
      {"--config=" + file.path(), "--leader-elect=false", "--leader-elect-resource-namespace=ns"}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  const auto& le = cfg->leader_election;
  EXPECT_EQ(le.leader_elect, false);
  EXPECT_EQ(le.resource_namespace, "ns");
  // Not set on the command line: the file's values (or their defaults) stay.
  EXPECT_EQ(le.lease_duration, 20s);
  EXPECT_EQ(le.resource_name, "from-file");
  EXPECT_EQ(le.renew_deadline, 10s);
}

TEST(BuildConfig, UnsetLeaderElectionFlagsDoNotOverrideTheFile) {
  TempFile file(kConfig);
  auto cfg = BuildConfig(MustParse({"--config=" + file.path()}));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->leader_election.lease_duration, 20s);
  EXPECT_EQ(cfg->leader_election.resource_name, "from-file");
}

TEST(BuildConfig, PodMaxInUnschedulableAppliesWithConfigToo) {
  TempFile file(kConfig);
  const Options o =
      MustParse({"--config=" + file.path(), "--pod-max-in-unschedulable-pods-duration=1m"});
  ASSERT_TRUE(BuildConfig(o).ok());
  EXPECT_EQ(o.deprecated.pod_max_in_unschedulable_pods_duration, 1min);
}

TEST(BuildConfig, ValidatesTheResult) {
  auto no_config = BuildConfig(MustParse({"--leader-elect-lease-duration=5s"}));
  ASSERT_FALSE(no_config.ok());
  EXPECT_THAT(std::string(no_config.status().message()), HasSubstr("leaderElection.leaseDuration"));
  auto lock = BuildConfig(MustParse({"--leader-elect-resource-lock=endpoints"}));
  EXPECT_FALSE(lock.ok());
  // With leader election off its timings are not checked.
  EXPECT_TRUE(
      BuildConfig(MustParse({"--leader-elect=false", "--leader-elect-lease-duration=1s"})).ok());

  TempFile bad(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\nparallelism: 0\n");
  auto file = BuildConfig(MustParse({"--config=" + bad.path()}));
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(std::string(file.status().message()), HasSubstr("parallelism"));
}

TEST(BuildConfig, MissingConfigFile) {
  auto cfg = BuildConfig(MustParse({"--config=/nonexistent/stowage.yaml"}));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(), "open /nonexistent/stowage.yaml: no such file or directory");
}

TEST(BuildConfig, FeatureGatesReachDefaulting) {
  auto off = BuildConfig(MustParse({"--feature-gates=StorageCapacityScoring=false"}));
  auto on = BuildConfig(MustParse({}));
  ASSERT_TRUE(off.ok() && on.ok());
  EXPECT_NE(*off, *on);  // VolumeBindingArgs.shape is defaulted only with the gate (on in 1.37)
  const config::Features f = ConfigFeatures(MustParse({}));
  EXPECT_TRUE(f.storage_capacity_scoring);
  EXPECT_FALSE(ConfigFeatures(MustParse({"--emulated-version=1.36"})).storage_capacity_scoring);
  EXPECT_TRUE(f.node_declared_features);
  EXPECT_FALSE(f.generic_workload);
  EXPECT_FALSE(f.in_place_pod_vertical_scaling_scheduler_preemption);
  EXPECT_TRUE(f.dynamic_resource_allocation);
  EXPECT_TRUE(f.volume_limit_scaling);  // beta, on in 1.37
  EXPECT_FALSE(
      ConfigFeatures(MustParse({"--feature-gates=VolumeLimitScaling=false"})).volume_limit_scaling);
}

TEST(BuildConfig, RunsOptionValidationFirst) {
  auto cfg = BuildConfig(MustParse({"--secure-port=70000"}));
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.status().message(),
            "--secure-port 70000 must be between 1 and 65535, inclusive. It cannot be turned off "
            "with 0");
}

TEST(WriteConfig, OutputLoadsBack) {
  const Options o = MustParse({"--kubeconfig=/k", "--kube-api-qps=12", "--leader-elect=false"});
  auto cfg = BuildConfig(o);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  TempFile out;
  ASSERT_TRUE(WriteConfigFile(out.path(), *cfg).ok());
  const std::string text = ReadAll(out.path());
  EXPECT_THAT(text, HasSubstr("apiVersion: kubescheduler.config.k8s.io/v1"));
  EXPECT_THAT(text, HasSubstr("kind: KubeSchedulerConfiguration"));
  auto written = config::WrittenConfig(*cfg);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(text, EncodeConfig(*written));

  auto loaded = config::LoadConfigFile(out.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  config::SetDefaults(*loaded);
  EXPECT_EQ(*loaded, *written);

  // And it is accepted as --config.
  auto again = BuildConfig(MustParse({"--config=" + out.path()}));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *written);
}

TEST(WriteConfig, TruncatesAndReportsErrors) {
  TempFile out(std::string(100000, 'x'));
  auto cfg = BuildConfig(MustParse({}));
  ASSERT_TRUE(cfg.ok());
  ASSERT_TRUE(WriteConfigFile(out.path(), *cfg).ok());
  EXPECT_EQ(ReadAll(out.path()), EncodeConfig(*config::WrittenConfig(*cfg)));
  EXPECT_EQ(WriteConfigFile("/nonexistent/dir/x.yaml", *cfg).message(),
            "open /nonexistent/dir/x.yaml: no such file or directory");
}

TEST(ApplyFlags, OnlyChangedFlagsApply) {
  config::KubeSchedulerConfiguration cfg;
  cfg.client_connection.qps = 1;
  cfg.leader_election.resource_name = "keep";
  // Parsed values equal to the defaults but not set: nothing changes.
  ApplyDeprecatedFlags(MustParse({}), cfg);
  ApplyLeaderElectionFlags(MustParse({}), cfg);
  EXPECT_EQ(cfg.client_connection.qps, 1);
  EXPECT_EQ(cfg.leader_election.resource_name, "keep");
  // Set to the default value explicitly: applied.
  ApplyDeprecatedFlags(MustParse({"--kube-api-qps=50"}), cfg);
  ApplyLeaderElectionFlags(MustParse({"--leader-elect-resource-name=kube-scheduler"}), cfg);
  EXPECT_EQ(cfg.client_connection.qps, 50);
  EXPECT_EQ(cfg.leader_election.resource_name, "kube-scheduler");
}

TEST(ValidateOptions, DefaultsAreValid) { EXPECT_TRUE(ValidateOptions(MustParse({})).ok()); }

TEST(ValidateOptions, UpstreamMessages) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--secure-port=-1"},
       "--secure-port -1 must be between 0 and 65535, inclusive. 0 for turning off secure port"},
      {{"--requestheader-username-headers=,"}, "empty value in \"requestheader-username-headers\""},
      {{"--requestheader-uid-headers=foo"},
       "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - "
       "API aggregation will not work"},
      {{"--requestheader-uid-headers=foo", "--feature-gates=RemoteRequestHeaderUID=false"},
       "--requestheader-uid-headers requires the \"RemoteRequestHeaderUID\" feature to be "
       "enabled"},
      {{"--show-hidden-metrics-for-version=1.30"},
       "metrics.showHiddenMetricsForVersion: Invalid value: \"1.30\": must be omitted or have the "
       "value '1.36'; only the previous minor version is allowed"},
      {{"--disabled-metrics=a-b"},
       "metrics.disabledMetrics: Invalid value: [\"a-b\"]: must be fully qualified metric names "
       "matching \"^[a-zA-Z_:][a-zA-Z0-9_:]*$\", got \"a-b\""},
      {{"--allow-metric-labels=a=b"},
       "metrics.allowListMapping: Invalid value: {\"a\":\"b\"}: must have keys with format "
       "`metricName,labelName` where metricName matches \"[a-zA-Z_:][a-zA-Z0-9_:]*\" and "
       "labelName matches \"[a-zA-Z_][a-zA-Z0-9_]*\""},
      {{"--allow-metric-labels-manifest=/nonexistent"},
       "metrics.allowListMappingManifest: Invalid value: \"/nonexistent\": failed to read allow "
       "list manifest: open /nonexistent: no such file or directory"},
      {{"--log-flush-frequency=0s"},
       "flushFrequency: Invalid value: \"0s\": Must be greater than zero"},
      {{"--logging-format=xml"}, "format: Invalid value: \"xml\": Unsupported log format"},
      {{"--logging-format=json", "--feature-gates=LoggingBetaOptions=false"},
       "format: Forbidden: Log format json is disabled, see LoggingBetaOptions feature"},
      {{"--logging-format=json", "--vmodule=a=1"},
       "vmodule: Forbidden: Only supported for text log format"},
      {{"--log-text-split-stream"},
       "options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled"},
      {{"--log-json-info-buffer-size=1Ki"},
       "options.json.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ValidateOptions(MustParse(c.args)).message(), c.message) << c.args[0];
  }
}

TEST(ValidateOptions, GatedOptionsPassWithTheirGate) {
  EXPECT_TRUE(ValidateOptions(MustParse({"--logging-format=json"})).ok());
  EXPECT_TRUE(ValidateOptions(MustParse({"--log-text-split-stream",
                                         "--feature-gates=LoggingAlphaOptions=true"}))
                  .ok());
  EXPECT_TRUE(ValidateOptions(MustParse({"--requestheader-uid-headers=X-Remote-Uid"})).ok());
  EXPECT_TRUE(ValidateOptions(MustParse({"--secure-port=0"})).ok());
  EXPECT_TRUE(ValidateOptions(MustParse({"--allow-metric-labels=metric_a,label=v1,v2"})).ok());
}

// stowage's own limit on an extender's answer may be raised, never lowered.
TEST(ValidateOptions, TheExtenderResponseLimitMayOnlyBeRaised) {
  EXPECT_EQ(MustParse({}).extender_max_response_bytes, 16 << 20);
  EXPECT_TRUE(ValidateOptions(MustParse({"--extender-max-response-bytes=67108864"})).ok());
  EXPECT_EQ(ValidateOptions(MustParse({"--extender-max-response-bytes=1048576"})).message(),
            "--extender-max-response-bytes 1048576 must be between the default of 16777216 and "
            "536870912 (an API list page): it may only be raised");
  EXPECT_FALSE(ValidateOptions(MustParse({"--extender-max-response-bytes=1073741824"})).ok());
}

TEST(ValidateOptions, SeveralErrorsAreAggregated) {
  EXPECT_EQ(ValidateOptions(MustParse({"--secure-port=-1", "--disabled-metrics=a-b"})).message(),
            "[--secure-port -1 must be between 0 and 65535, inclusive. 0 for turning off secure "
            "port, metrics.disabledMetrics: Invalid value: [\"a-b\"]: must be fully qualified "
            "metric names matching \"^[a-zA-Z_:][a-zA-Z0-9_:]*$\", got \"a-b\"]");
}

}  // namespace
}  // namespace stowage::app::options_config_test
