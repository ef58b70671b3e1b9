// kube-scheduler 1.37's command line as stowage registers it: all 62 flags with upstream's
// names, types, defaults and groups; --help; --version; parsing of the custom value types and
// positional arguments. upstream_cli_test.cc compares --help and errors with the real binary's,
// feature_gates_test.cc covers the gates and versions.
#include "cmd/stowage/app/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace stowage::app::options_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct ExpectedFlag {
  std::string group;
  std::string name;
  std::string type;  // pflag's Value.Type()
  std::string def;   // pflag's DefValue
  char shorthand = 0;
};

// Every flag of kube-scheduler v1.37.2 (tests/fixtures/cli/help.txt), in help order.
const std::vector<ExpectedFlag>& UpstreamFlags() {
  static const auto* flags = new std::vector<ExpectedFlag>{
      {"misc", "config", "string", ""},
      {"misc", "master", "string", ""},
      {"misc", "write-config-to", "string", ""},
      {"secure serving", "bind-address", "ip", "0.0.0.0"},
      {"secure serving", "cert-dir", "string", ""},
      {"secure serving", "disable-http2-serving", "bool", "false"},
      {"secure serving", "http2-max-streams-per-connection", "int", "0"},
      {"secure serving", "permit-address-sharing", "bool", "false"},
      {"secure serving", "permit-port-sharing", "bool", "false"},
      {"secure serving", "secure-port", "int", "10259"},
      {"secure serving", "tls-cert-file", "string", ""},
      {"secure serving", "tls-cipher-suites", "stringSlice", "[]"},
      {"secure serving", "tls-curve-preferences", "int32Slice", "[]"},
      {"secure serving", "tls-min-version", "string", ""},
      {"secure serving", "tls-private-key-file", "string", ""},
      {"secure serving", "tls-sni-cert-key", "namedCertKey", "[]"},
      {"authentication", "authentication-kubeconfig", "string", ""},
      {"authentication", "authentication-skip-lookup", "bool", "false"},
      {"authentication", "authentication-token-webhook-cache-ttl", "duration", "10s"},
      {"authentication", "authentication-tolerate-lookup-failure", "bool", "true"},
      {"authentication", "client-ca-file", "string", ""},
      {"authentication", "requestheader-allowed-names", "stringSlice", "[]"},
      {"authentication", "requestheader-client-ca-file", "string", ""},
      {"authentication", "requestheader-extra-headers-prefix", "stringSlice", "[x-remote-extra-]"},
      {"authentication", "requestheader-group-headers", "stringSlice", "[x-remote-group]"},
      {"authentication", "requestheader-uid-headers", "stringSlice", "[]"},
      {"authentication", "requestheader-username-headers", "stringSlice", "[x-remote-user]"},
      {"authorization", "authorization-always-allow-paths", "stringSlice",
       "[/healthz,/readyz,/livez]"},
      {"authorization", "authorization-kubeconfig", "string", ""},
      {"authorization", "authorization-webhook-cache-authorized-ttl", "duration", "10s"},
      {"authorization", "authorization-webhook-cache-unauthorized-ttl", "duration", "10s"},
      {"deprecated", "contention-profiling", "bool", "true"},
      {"deprecated", "kube-api-burst", "int32", "100"},
      {"deprecated", "kube-api-content-type", "string", "application/vnd.kubernetes.protobuf"},
      {"deprecated", "kube-api-qps", "float32", "50"},
      {"deprecated", "kubeconfig", "string", ""},
      {"deprecated", "pod-max-in-unschedulable-pods-duration", "duration", "5m0s"},
      {"deprecated", "profiling", "bool", "true"},
      {"leader election", "leader-elect", "bool", "true"},
      {"leader election", "leader-elect-lease-duration", "duration", "15s"},
      {"leader election", "leader-elect-renew-deadline", "duration", "10s"},
      {"leader election", "leader-elect-resource-lock", "string", "leases"},
      {"leader election", "leader-elect-resource-name", "string", "kube-scheduler"},
      {"leader election", "leader-elect-resource-namespace", "string", "kube-system"},
      {"leader election", "leader-elect-retry-period", "duration", "2s"},
      {"feature gate", "emulated-version", "stringSlice", "[]"},
      {"feature gate", "feature-gates", "colonSeparatedMultimapStringString", ""},
      {"feature gate", "min-compatibility-version", "stringSlice", "[]"},
      {"metrics", "allow-metric-labels", "stringToString", "[]"},
      {"metrics", "allow-metric-labels-manifest", "string", ""},
      {"metrics", "disabled-metrics", "stringSlice", "[]"},
      {"metrics", "show-hidden-metrics-for-version", "string", ""},
      {"logs", "log-flush-frequency", "duration", "5s"},
      {"logs", "log-json-info-buffer-size", "quantity", "0"},
      {"logs", "log-json-split-stream", "bool", "false"},
      {"logs", "log-text-info-buffer-size", "quantity", "0"},
      {"logs", "log-text-split-stream", "bool", "false"},
      {"logs", "logging-format", "string", "text"},
      {"logs", "v", "Level", "0", 'v'},
      {"logs", "vmodule", "pattern=N,...", ""},
      {"global", "help", "bool", "false", 'h'},
      {"global", "version", "version", "false"},
  };
  return *flags;
}

StatusOr<Options> Parse(std::vector<std::string> args) { return ParseArgs(args); }

TEST(Flags, ThereAre62) { EXPECT_EQ(UpstreamFlags().size(), 62u); }

TEST(Flags, EveryUpstreamFlagExistsWithItsTypeDefaultAndGroup) {
  Options o;
  FlagSet fs("stowage");
  AddFlags(&o, &fs);
  std::set<std::string> seen;
  for (const ExpectedFlag& want : UpstreamFlags()) {
    SCOPED_TRACE(want.name);
    const Flag* f = fs.Lookup(want.name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->group, want.group);
    EXPECT_EQ(f->value->Type(), want.type);
    EXPECT_EQ(f->def_value, want.def);
    EXPECT_EQ(f->value->String(), want.def);
    EXPECT_EQ(f->shorthand, want.shorthand);
    EXPECT_TRUE(f->deprecated.empty());  // upstream marks none of them with MarkDeprecated
    seen.insert(want.name);
  }
  size_t own = 0;  // stowage's own flags, hidden so that --help stays upstream's
  for (const Flag* f : fs.Flags()) {
    if (!seen.contains(f->name)) {
      EXPECT_TRUE(f->hidden) << f->name << ": stowage's own flags are hidden";
      ++own;
    }
  }
  EXPECT_EQ(own, 5u) << "only --sandbox, --plugin-library, --cel-library, "
                        "--extender-max-response-bytes and --random-seed are stowage's own";
}

// Help lists stowage's own flags after the usage, which stays upstream's.
TEST(Help, ListsStowagesOwnFlagsApart) {
  const std::string help = Help();
  const size_t own = help.find("\nstowage's own flags (kube-scheduler has none of them):\n");
  ASSERT_NE(own, std::string::npos);
  EXPECT_GT(own, help.find(Usage()));
  EXPECT_THAT(help.substr(own), HasSubstr("--plugin-library strings"));
  EXPECT_THAT(help.substr(own), HasSubstr("--sandbox "));
  EXPECT_THAT(help.substr(own), HasSubstr("--extender-max-response-bytes int"));
}

TEST(Flags, PluginLibrariesRepeatAndSplitOnCommas) {
  auto o = ParseCommandLine(
      {"--plugin-library=/usr/lib/a.so,/usr/lib/b.so", "--plugin-library", "/usr/lib/c.so"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_THAT(o->plugin_libraries, ElementsAre("/usr/lib/a.so", "/usr/lib/b.so", "/usr/lib/c.so"));
  EXPECT_TRUE(ParseCommandLine({})->plugin_libraries.empty());
}

TEST(Flags, SandboxIsOnByDefaultAndTurnsOff) {
  auto on = ParseCommandLine({});
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->sandbox);
  auto off = ParseCommandLine({"--sandbox=false"});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->sandbox);
}

TEST(Flags, DefaultsInOptions) {
  const Options o;
  EXPECT_EQ(o.secure_serving.bind_address, "0.0.0.0");
  EXPECT_EQ(o.secure_serving.bind_port, 10259);
  EXPECT_EQ(o.secure_serving.pair_name, "kube-scheduler");
  EXPECT_EQ(o.secure_serving.cert_directory, "");
  EXPECT_TRUE(o.authentication.tolerate_in_cluster_lookup_failure);
  EXPECT_THAT(o.authorization.always_allow_paths, ElementsAre("/healthz", "/readyz", "/livez"));
  EXPECT_THAT(o.authorization.always_allow_groups, ElementsAre("system:masters"));
  EXPECT_EQ(o.deprecated.pod_max_in_unschedulable_pods_duration, std::chrono::minutes(5));
  EXPECT_FLOAT_EQ(o.deprecated.qps, 50);
  EXPECT_EQ(o.deprecated.burst, 100);
  EXPECT_TRUE(o.leader_election.leader_elect);
  EXPECT_EQ(o.leader_election.lease_duration, std::chrono::seconds(15));
  EXPECT_EQ(o.leader_election.renew_deadline, std::chrono::seconds(10));
  EXPECT_EQ(o.leader_election.retry_period, std::chrono::seconds(2));
  EXPECT_EQ(o.logs.format, "text");
  EXPECT_EQ(o.logs.flush_frequency, std::chrono::seconds(5));
  EXPECT_EQ(o.logs.verbosity, 0u);
  EXPECT_EQ(o.version, VersionFlag::kFalse);
  EXPECT_EQ(o.reported_version, "v1.37.2");
}

TEST(Help, GroupsInUpstreamOrder) {
  const std::string help = Help();
  size_t last = 0;
  for (const char* heading :
       {"\nMisc flags:\n", "\nSecure serving flags:\n", "\nAuthentication flags:\n",
        "\nAuthorization flags:\n", "\nDeprecated flags:\n", "\nLeader election flags:\n",
        "\nFeature gate flags:\n", "\nMetrics flags:\n", "\nLogs flags:\n", "\nGlobal flags:\n"}) {
    const size_t at = help.find(heading);
    ASSERT_NE(at, std::string::npos) << heading;
    EXPECT_GT(at, last) << heading;
    last = at;
  }
}

TEST(Help, ListsEveryFlag) {
  const std::string usage = Usage();
  EXPECT_THAT(usage, StartsWith("Usage:\n  stowage [flags]\n\nMisc flags:\n\n"));
  for (const ExpectedFlag& f : UpstreamFlags()) {
    EXPECT_THAT(usage, HasSubstr("--" + f.name + " ")) << f.name;
  }
  EXPECT_THAT(Help(), HasSubstr(usage));
}

TEST(Parse, DefaultsWithNoArguments) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->changed_flags.empty());
  EXPECT_FALSE(o->help);
}

TEST(Parse, Misc) {
  auto o = Parse({"--config=/etc/s.yaml", "--master", "https://k:6443", "--write-config-to=/t"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->config_file, "/etc/s.yaml");
  EXPECT_EQ(o->master, "https://k:6443");
  EXPECT_EQ(o->write_config_to, "/t");
  EXPECT_THAT(o->changed_flags, ElementsAre("config", "master", "write-config-to"));
  EXPECT_TRUE(o->Changed("master"));
  EXPECT_FALSE(o->Changed("kubeconfig"));
}

TEST(Parse, SecureServing) {
  auto o = Parse({"--bind-address=::1", "--secure-port=0", "--tls-cipher-suites=A,B",
                  "--tls-curve-preferences=29,23", "--tls-sni-cert-key=a.crt,a.key",
                  "--tls-sni-cert-key", "b.crt, b.key:*.b.com, b.com", "--permit-port-sharing",
                  "--http2-max-streams-per-connection=250"});
  ASSERT_TRUE(o.ok()) << o.status();
  const SecureServingOptions& s = o->secure_serving;
  EXPECT_EQ(s.bind_address, "::1");
  EXPECT_EQ(s.bind_port, 0);
  EXPECT_THAT(s.cipher_suites, ElementsAre("A", "B"));
  EXPECT_THAT(s.curve_preferences, ElementsAre(29, 23));
  EXPECT_THAT(s.sni_cert_keys, ElementsAre(NamedCertKey{"a.crt", "a.key", {}},
                                           NamedCertKey{"b.crt", "b.key", {"*.b.com", "b.com"}}));
  EXPECT_TRUE(s.permit_port_sharing);
  EXPECT_EQ(s.http2_max_streams_per_connection, 250);
}

TEST(Parse, NamedCertKeyErrors) {
  EXPECT_EQ(Parse({"--tls-sni-cert-key=abc"}).status().message(),
            "invalid argument \"abc\" for \"--tls-sni-cert-key\" flag: expected comma separated "
            "certificate and key file paths");
  EXPECT_EQ(Parse({"--tls-sni-cert-key=a,b:"}).status().message(),
            "invalid argument \"a,b:\" for \"--tls-sni-cert-key\" flag: empty names list is not "
            "allowed");
}

TEST(Parse, AuthenticationAndAuthorization) {
  auto o = Parse({"--authentication-kubeconfig=/a", "--authentication-token-webhook-cache-ttl=1m",
                  "--requestheader-username-headers=X-User", "--authentication-skip-lookup",
                  "--authentication-tolerate-lookup-failure=false",
                  "--authorization-always-allow-paths=/healthz",
                  "--authorization-webhook-cache-unauthorized-ttl=30s"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->authentication.remote_kubeconfig_file, "/a");
  EXPECT_EQ(o->authentication.cache_ttl, std::chrono::minutes(1));
  EXPECT_THAT(o->authentication.requestheader_username_headers, ElementsAre("X-User"));
  EXPECT_THAT(o->authentication.requestheader_group_headers, ElementsAre("x-remote-group"));
  EXPECT_TRUE(o->authentication.skip_in_cluster_lookup);
  EXPECT_FALSE(o->authentication.tolerate_in_cluster_lookup_failure);
  EXPECT_THAT(o->authorization.always_allow_paths, ElementsAre("/healthz"));
  EXPECT_EQ(o->authorization.deny_cache_ttl, std::chrono::seconds(30));
  EXPECT_EQ(o->authorization.allow_cache_ttl, std::chrono::seconds(10));
}

TEST(Parse, DeprecatedAndLeaderElection) {
  auto o =
      Parse({"--kubeconfig=/k", "--kube-api-qps=7.5", "--kube-api-burst=9", "--profiling=false",
             "--pod-max-in-unschedulable-pods-duration=90s", "--leader-elect=false",
             "--leader-elect-lease-duration=30s", "--leader-elect-resource-namespace=ns"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->deprecated.kubeconfig, "/k");
  EXPECT_FLOAT_EQ(o->deprecated.qps, 7.5);
  EXPECT_EQ(o->deprecated.burst, 9);
  EXPECT_FALSE(o->deprecated.enable_profiling);
  EXPECT_EQ(o->deprecated.pod_max_in_unschedulable_pods_duration, std::chrono::seconds(90));
  EXPECT_FALSE(o->leader_election.leader_elect);
  EXPECT_EQ(o->leader_election.lease_duration, std::chrono::seconds(30));
  EXPECT_EQ(o->leader_election.resource_namespace, "ns");
  EXPECT_EQ(o->leader_election.resource_name, "kube-scheduler");
}

TEST(Parse, Metrics) {
  auto o = Parse({"--disabled-metrics=a_total,b", "--allow-metric-labels=m,l=v1,v2",
                  "--show-hidden-metrics-for-version=1.36"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_THAT(o->metrics.disabled_metrics, ElementsAre("a_total", "b"));
  EXPECT_EQ(o->metrics.allow_metric_labels, (std::map<std::string, std::string>{{"m,l", "v1,v2"}}));
  EXPECT_EQ(o->metrics.show_hidden_metrics_for_version, "1.36");
}

TEST(Parse, Verbosity) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-v4"}, {"-v=4"}, {"-v", "4"}, {"--v=4"}, {"--v", "4"}, {"-v2", "-v4"}}) {
    auto o = Parse(args);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_EQ(o->logs.verbosity, 4u) << args[0];
  }
  EXPECT_EQ(Parse({"-v=abc"}).status().message(),
            "invalid argument \"abc\" for \"-v, --v\" flag: strconv.ParseUint: parsing \"abc\": "
            "invalid syntax");
  EXPECT_EQ(Parse({"--v=-1"}).status().message(),
            "invalid argument \"-1\" for \"-v, --v\" flag: strconv.ParseUint: parsing \"-1\": "
            "invalid syntax");
  EXPECT_EQ(Parse({"-v", "2147483648"}).status().message(),
            "invalid argument \"2147483648\" for \"-v, --v\" flag: strconv.ParseUint: parsing "
            "\"2147483648\": value out of range");
}

TEST(Parse, Logs) {
  auto o = Parse({"--logging-format=json", "--log-flush-frequency=1s", "--vmodule=a=1,b*=3",
                  "--vmodule=c=2", "--log-json-split-stream", "--log-json-info-buffer-size=2Ki"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->logs.format, "json");
  EXPECT_EQ(o->logs.flush_frequency, std::chrono::seconds(1));
  EXPECT_THAT(o->logs.vmodule,
              ElementsAre(VModuleItem{"a", 1}, VModuleItem{"b*", 3}, VModuleItem{"c", 2}));
  EXPECT_TRUE(o->logs.json_split_stream);
  EXPECT_EQ(o->logs.json_info_buffer_size.Value(), 2048);
  EXPECT_TRUE(o->logs.text_info_buffer_size.IsZero());
}

TEST(Parse, LogsErrors) {
  EXPECT_EQ(Parse({"--vmodule=abc"}).status().message(),
            "invalid argument \"abc\" for \"--vmodule\" flag: \"abc\" does not have the "
            "pattern=N format");
  EXPECT_EQ(Parse({"--vmodule=a=x"}).status().message(),
            "invalid argument \"a=x\" for \"--vmodule\" flag: parsing verbosity in \"a=x\": "
            "strconv.ParseUint: parsing \"x\": invalid syntax");
  EXPECT_EQ(Parse({"--log-text-info-buffer-size=abc"}).status().message(),
            "invalid argument \"abc\" for \"--log-text-info-buffer-size\" flag: quantities must "
            "match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST(Parse, UnknownFlag) {
  auto o = Parse({"--nope"});
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(o.status().message(), "unknown flag: --nope");
}

TEST(Parse, ErrorsNameTheFlag) {
  EXPECT_EQ(Parse({"--secure-port=abc"}).status().message(),
            "invalid argument \"abc\" for \"--secure-port\" flag: strconv.ParseInt: parsing "
            "\"abc\": invalid syntax");
  EXPECT_EQ(Parse({"--kube-api-burst=99999999999"}).status().message(),
            "invalid argument \"99999999999\" for \"--kube-api-burst\" flag: strconv.ParseInt: "
            "parsing \"99999999999\": value out of range");
  EXPECT_EQ(Parse({"--leader-elect-lease-duration=15"}).status().message(),
            "invalid argument \"15\" for \"--leader-elect-lease-duration\" flag: time: missing "
            "unit in duration \"15\"");
  EXPECT_EQ(Parse({"--secure-port"}).status().message(), "flag needs an argument: --secure-port");
}

TEST(Parse, PositionalArgumentsAreRejected) {
  auto o = Parse({"--master=x", "pos", "more"});
  EXPECT_EQ(o.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(o.status().message(),
            "\"stowage\" does not take any arguments, got [\"pos\" \"more\"]");
  // Empty positional arguments are tolerated, as cobra's Args check does.
  EXPECT_TRUE(Parse({""}).ok());
}

TEST(Parse, HelpStopsBeforeOtherChecks) {
  auto o = Parse({"--help", "pos", "--feature-gates=Nope=true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->help);
  EXPECT_TRUE(Parse({"-h"})->help);
  // A malformed flag still wins over --help, as in cobra.
  EXPECT_FALSE(Parse({"--help", "--nope"}).ok());
}

TEST(Parse, ErrorText) {
  const Status flag_error = Parse({"--nope"}).status();
  EXPECT_EQ(ParseErrorText(flag_error), Usage() + "\nError: unknown flag: --nope\n");
  const Status other = Parse({"pos"}).status();
  EXPECT_EQ(ParseErrorText(other),
            "Error: \"stowage\" does not take any arguments, got [\"pos\"]\n");
}

TEST(Version, Forms) {
  EXPECT_EQ(Parse({"--version"})->version, VersionFlag::kTrue);
  EXPECT_EQ(Parse({"--version=true"})->version, VersionFlag::kTrue);
  EXPECT_EQ(Parse({"--version=false"})->version, VersionFlag::kFalse);
  EXPECT_EQ(Parse({"--version=raw"})->version, VersionFlag::kRaw);
  auto o = Parse({"--version=v1.37.2-custom.1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->version, VersionFlag::kFalse);
  EXPECT_EQ(o->reported_version, "v1.37.2-custom.1");
  EXPECT_EQ(Parse({"--version=v1.2.3"}).status().message(),
            "invalid argument \"v1.2.3\" for \"--version\" flag: version \"v1.2.3\" must match "
            "major/minor/patch of default version \"v1.37.2\"");
  EXPECT_FALSE(Parse({"--version=maybe"}).ok());
}

TEST(Version, Text) {
  Options o;
  o.version = VersionFlag::kTrue;
  EXPECT_EQ(VersionText(o),
            "stowage " + std::string(StowageVersion()) + " (kube-scheduler v1.37.2 compatible)\n");
  EXPECT_THAT(std::string(StowageVersion()), StartsWith("v"));
  o.version = VersionFlag::kRaw;
  EXPECT_THAT(VersionText(o), StartsWith("version.Info{Major:\"1\", Minor:\"37\", "));
  EXPECT_THAT(VersionText(o), HasSubstr("GitVersion:\"v1.37.2\""));
}

TEST(Version, FeatureGateErrorsComeFirst) {
  // Upstream resolves feature gates (PersistentPreRunE) before printing the version.
  EXPECT_EQ(Parse({"--version", "--feature-gates=Nope=true"}).status().message(),
            "unrecognized feature gate: Nope");
}

}  // namespace
}  // namespace stowage::app::options_test
