// stowage's command line: every flag of kube-scheduler 1.37 (62, in upstream's ten groups), with
// upstream's names, types, defaults, help texts and parsing rules, and the step from flags to
// the KubeSchedulerConfiguration the scheduler runs with.
//
// main() is expected to do what kube-scheduler's command does, in this order:
//   1. ParseCommandLine. On error print ParseErrorText(status) to stderr and exit 1.
//   2. options.help: print Help() to stdout and exit 0.
//   3. Set up default (text) logging; from here on an error is logged as klog's ErrorS(err,
//      "command failed") and the exit status is 1, as component-base's cli.Run does.
//      ApplyFeatureGates; log options.warnings at info level.
//   4. options.version != kFalse: print VersionText(options) to stdout and exit 0.
//   5. Set up logging as options.logs says, then BuildConfig (which first runs ValidateOptions).
//   6. options.write_config_to set: WriteConfigFile(path, cfg), then exit 0 (upstream writes the
//      configuration as its scheduler made it, which config::WrittenConfig reproduces).
//   7. Run with the configuration plus the flag-only settings that are not part of it:
//      master, secure_serving, authentication, authorization, logs, metrics, feature_gates and
//      deprecated.pod_max_in_unschedulable_pods_duration.
//
// Flags versus --config (upstream's Options.ApplyTo):
//   * Without --config, the configuration is the defaulted empty one; then each deprecated flag
//     that was set on the command line (--profiling, --contention-profiling, --kubeconfig,
//     --kube-api-content-type, --kube-api-qps, --kube-api-burst) and each leader-election flag
//     that was set overrides it.
//   * With --config, the file is loaded and defaulted; only the leader-election flags that were
//     set override it. The six deprecated flags above are ignored.
//   * --pod-max-in-unschedulable-pods-duration and --master are not part of the configuration and
//     always apply; read them from Options.
//   * The result is validated. Upstream validates only a --config file and lets bad flag values
//     fail later (e.g. --leader-elect-lease-duration below the renew deadline fails when the
//     leader elector is built); stowage validates both, so such command lines fail earlier, with
//     the field-level message (and --write-config-to no longer writes them out first).
//
// Options is a plain value; nothing here keeps global state.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/stowage/app/flags.h"
#include "pkg/config/types.h"
#include "stowage/api/quantity.h"
#include "stowage/common/status.h"
#include "stowage/plugin_config/features.h"

namespace stowage::app {

using Duration = std::chrono::nanoseconds;

// The command name used in usage and messages.
inline constexpr std::string_view kCommandName = "stowage";
// The kube-scheduler release whose command line and behaviour stowage reproduces.
// The feature-gate table (feature_gates_generated.inc) is checked against it at compile time.
inline constexpr std::string_view kKubeSchedulerVersion = "v1.37.2";
// stowage's own version ("v0.1.0").
std::string_view StowageVersion();

// --- flag groups -------------------------------------------------------------------------------

// A --tls-sni-cert-key entry: "cert,key[:name1,name2]".
struct NamedCertKey {
  std::string cert_file;
  std::string key_file;
  std::vector<std::string> names;  // empty: taken from the certificate
  friend bool operator==(const NamedCertKey&, const NamedCertKey&) = default;
};

// "Secure serving" (apiserver SecureServingOptions with kube-scheduler's overrides).
struct SecureServingOptions {
  std::string bind_address = "0.0.0.0";          // --bind-address (canonical IP text)
  int64_t bind_port = 10259;                     // --secure-port; 0 = no HTTPS at all
  bool disable_http2_serving = false;            // --disable-http2-serving
  std::string cert_directory;                    // --cert-dir; "" = generate in memory
  std::string pair_name = "kube-scheduler";      // no flag: <cert-dir>/<pair>.{crt,key}
  std::string tls_cert_file;                     // --tls-cert-file
  std::string tls_private_key_file;              // --tls-private-key-file
  std::vector<std::string> cipher_suites;        // --tls-cipher-suites; empty = library defaults
  std::vector<int32_t> curve_preferences;        // --tls-curve-preferences (Go CurveID values)
  std::string min_tls_version;                   // --tls-min-version; "" = VersionTLS12
  std::vector<NamedCertKey> sni_cert_keys;       // --tls-sni-cert-key (repeatable)
  int64_t http2_max_streams_per_connection = 0;  // 0 = server default (100)
  bool permit_port_sharing = false;              // --permit-port-sharing (SO_REUSEPORT)
  bool permit_address_sharing = false;           // --permit-address-sharing (SO_REUSEADDR)
};

// "Authentication" (DelegatingAuthenticationOptions).
struct AuthenticationOptions {
  std::string remote_kubeconfig_file;             // --authentication-kubeconfig; optional
  Duration cache_ttl = std::chrono::seconds(10);  // --authentication-token-webhook-cache-ttl
  std::string client_ca_file;                     // --client-ca-file
  std::vector<std::string> requestheader_username_headers = {"x-remote-user"};
  std::vector<std::string> requestheader_uid_headers;
  std::vector<std::string> requestheader_group_headers = {"x-remote-group"};
  std::vector<std::string> requestheader_extra_headers_prefix = {"x-remote-extra-"};
  std::string requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;
  bool skip_in_cluster_lookup = false;             // --authentication-skip-lookup
  bool tolerate_in_cluster_lookup_failure = true;  // --authentication-tolerate-lookup-failure
  // Settings without flags.
  Duration token_request_timeout = std::chrono::seconds(10);
};

// "Authorization" (DelegatingAuthorizationOptions).
struct AuthorizationOptions {
  std::string remote_kubeconfig_file;                   // --authorization-kubeconfig; optional
  Duration allow_cache_ttl = std::chrono::seconds(10);  // ...-cache-authorized-ttl
  Duration deny_cache_ttl = std::chrono::seconds(10);   // ...-cache-unauthorized-ttl
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  // Settings without flags.
  std::vector<std::string> always_allow_groups = {"system:masters"};
  Duration client_timeout = std::chrono::seconds(10);
};

// "Deprecated" (cmd/kube-scheduler/app/options/deprecated.go).
struct DeprecatedOptions {
  bool enable_profiling = true;                                      // --profiling
  bool enable_contention_profiling = true;                           // --contention-profiling
  std::string kubeconfig;                                            // --kubeconfig
  std::string content_type = "application/vnd.kubernetes.protobuf";  // --kube-api-content-type
  float qps = 50;                                                    // --kube-api-qps
  int32_t burst = 100;                                               // --kube-api-burst
  // --pod-max-in-unschedulable-pods-duration: not in the configuration; always applies.
  Duration pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);
};

// "Leader election" (component-base BindLeaderElectionFlags, kube-scheduler's defaults).
struct LeaderElectionOptions {
  bool leader_elect = true;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::string resource_lock = "leases";
  std::string resource_name = "kube-scheduler";
  std::string resource_namespace = "kube-system";
};

// A Kubernetes "major.minor" version, as --emulated-version and --min-compatibility-version take.
struct MinorVersion {
  int major = 0;
  int minor = 0;
  std::string String() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend constexpr auto operator<=>(const MinorVersion&, const MinorVersion&) = default;
};

// The binary's version (1.37) and its default min compatibility version (1.36): what the gates
// resolve at when neither flag is given.
MinorVersion BinaryMinorVersion();
MinorVersion DefaultMinCompatibilityVersion();

// A feature gate kube-scheduler 1.37 knows (all of them, not only the scheduler's: upstream
// accepts every gate of the shared registry), as it stands at one emulation version. The table
// behind it is generated from the Kubernetes module (scripts/generate/feature-gates).
struct FeatureGateSpec {
  std::string_view name;
  std::string_view stage;  // "ALPHA", "BETA", "GA" or "DEPRECATED"
  bool default_value;
  bool locked;
};

// "Feature gate" (ComponentGlobalsRegistry.AddFlags).
struct FeatureGateOptions {
  // --feature-gates as written: component ("" when none was given) to its "Name=value" items.
  std::map<std::string, std::vector<std::string>> raw;
  std::vector<std::string> emulated_version;           // --emulated-version
  std::vector<std::string> min_compatibility_version;  // --min-compatibility-version
  // Filled by ParseFlags: the effective versions of the "kube" component (their range is
  // checked by ValidateOptions, as upstream's Validate does) and the gates given explicitly,
  // with AllAlpha/AllBeta expanded.
  MinorVersion emulation = BinaryMinorVersion();
  MinorVersion min_compatibility = DefaultMinCompatibilityVersion();
  std::map<std::string, bool, std::less<>> explicit_gates;
  // Whether a gate is on: its explicit value, else its default at the effective versions.
  // Unknown names, and gates that do not exist yet at the emulated version, are off.
  bool Enabled(std::string_view gate) const;
  // Every gate that exists at the effective versions, with its stage, default and lock there,
  // sorted by name (featuregate GetAll).
  std::vector<FeatureGateSpec> Gates() const;
};

// "Metrics" (component-base metrics.Options).
struct MetricsOptions {
  std::string show_hidden_metrics_for_version;             // --show-hidden-metrics-for-version
  std::vector<std::string> disabled_metrics;               // --disabled-metrics
  std::map<std::string, std::string> allow_metric_labels;  // --allow-metric-labels
  std::string allow_metric_labels_manifest;                // --allow-metric-labels-manifest
};

// One --vmodule entry.
struct VModuleItem {
  std::string file_pattern;
  uint32_t verbosity = 0;
  friend bool operator==(const VModuleItem&, const VModuleItem&) = default;
};

// "Logs" (component-base logs/api/v1 LoggingConfiguration).
struct LogsOptions {
  std::string format = "text";                         // --logging-format: text or json
  Duration flush_frequency = std::chrono::seconds(5);  // --log-flush-frequency
  uint32_t verbosity = 0;                              // -v, --v
  std::vector<VModuleItem> vmodule;                    // --vmodule
  bool text_split_stream = false;                      // --log-text-split-stream
  api::Quantity text_info_buffer_size;                 // --log-text-info-buffer-size
  bool json_split_stream = false;                      // --log-json-split-stream
  api::Quantity json_info_buffer_size;                 // --log-json-info-buffer-size
};

// --version: not given, plain (--version, --version=true) or raw (--version=raw).
enum class VersionFlag : uint8_t { kFalse, kTrue, kRaw };

struct Options {
  // "Misc".
  std::string config_file;      // --config
  std::string write_config_to;  // --write-config-to
  std::string master;           // --master: overrides the kubeconfig's server
  // --sandbox: stowage's own (hidden from --help, which stays upstream's): seccomp, no
  // capabilities, no_new_privs and Landlock once running (pkg/sandbox, docs/security.md).
  bool sandbox = true;
  // --plugin-library: stowage's own; plugin shared libraries loaded at start-up, before the
  // sandbox closes (pkg/plugin_loader, docs/plugin-libraries.md).
  std::vector<std::string> plugin_libraries;
  // --cel-library: stowage's own; the CEL bridge of DRA device selectors, checked before the
  // sandbox (docs/cel.md). Empty: cel::Engine::DefaultLibraryPath().
  std::string cel_library;
  // --extender-max-response-bytes: stowage's own; the most bytes of an extender's answer read
  // (pkg/extender/http_extender.h, docs/extenders.md). Only values above the default are valid.
  int64_t extender_max_response_bytes = config::kDefaultExtenderMaxResponseBytes;
  // --random-seed: stowage's own; fixes the seed of the scheduler's random choices, so a run can
  // be compared with `stowage simulate --seed` (pkg/common/random.h). 0: a fresh seed.
  int64_t random_seed = 0;

  SecureServingOptions secure_serving;
  AuthenticationOptions authentication;
  AuthorizationOptions authorization;
  DeprecatedOptions deprecated;
  LeaderElectionOptions leader_election;
  FeatureGateOptions feature_gates;
  MetricsOptions metrics;
  LogsOptions logs;

  // "Global".
  bool help = false;  // -h, --help
  VersionFlag version = VersionFlag::kFalse;
  // --version=vX.Y.Z sets the reported kube-scheduler version (same major.minor.patch only).
  std::string reported_version = std::string(kKubeSchedulerVersion);

  // The names of the flags set on the command line, sorted.
  std::vector<std::string> changed_flags;
  // What upstream logs at info level while it applies the feature gates (a GA or deprecated gate
  // was set), in klog's structured text: `"Warning: ..." featureGate="Name" value=true`.
  std::vector<std::string> warnings;
  bool Changed(std::string_view flag) const;
};

// --- command line ------------------------------------------------------------------------------

// Registers every flag on fs, bound to o's members, grouped and ordered as upstream: misc,
// secure serving, authentication, authorization, deprecated, leader election, feature gate,
// metrics, logs, global.
void AddFlags(Options* o, FlagSet* fs);

// The group names, in --help order.
const std::vector<std::string>& FlagGroups();

// Parses argv[1..argc) into Options, as kube-scheduler's command does: flag errors first, then
// --help (returned as options.help; nothing else is checked), then positional arguments
// (rejected), then --emulated-version/--min-compatibility-version and --feature-gates. Errors:
// StatusCode::kInvalidArgument for a malformed command line (upstream prints the usage with
// it), kFailedPrecondition for everything else.
StatusOr<Options> ParseFlags(int argc, char** argv);
StatusOr<Options> ParseArgs(const std::vector<std::string>& args);

// The two steps of ParseArgs, apart for main(). ParseCommandLine is cobra's part (flag syntax,
// --help, positional arguments): upstream prints its errors as ParseErrorText does.
// ApplyFeatureGates is ComponentGlobalsRegistry.Set (versions and gates; fills
// options.feature_gates and options.warnings): upstream runs it once logging is set up, so its
// error is logged (`"command failed" err="..."`), and so are the warnings.
StatusOr<Options> ParseCommandLine(const std::vector<std::string>& args);
Status ApplyFeatureGates(Options& options);

// What kube-scheduler prints for a command-line error: for kInvalidArgument the usage, a blank
// line and "Error: <message>"; otherwise "Error: <message>". Ends with a newline.
// For cols, pass TerminalColumns(STDOUT_FILENO) (upstream sizes the usage by stdout even when it
// writes it to stderr); 0 disables wrapping.
std::string ParseErrorText(const Status& error, int cols = 0);

// "Usage:\n  stowage [flags]\n" and every flag group (what a flag error prints).
std::string Usage(int cols = 0);
// The description followed by Usage() (what --help prints).
std::string Help(int cols = 0);
// What --version prints: "stowage v0.1.0 (kube-scheduler v1.37.2 compatible)", or for
// --version=raw upstream's version.Info dump with stowage's build details.
std::string VersionText(const Options& options);
// The width of the terminal on fd, or 0 when it is not a terminal (help is then not wrapped).
int TerminalColumns(int fd);

// --- validation and configuration ------------------------------------------------------------

// The checks upstream runs on the flag-only options (Options.Validate without the component
// configuration, and logsapi.ValidateAndApply): port range, request-header names, metrics
// flags, log format and gated log options. All problems, joined as upstream's aggregate.
Status ValidateOptions(const Options& options);

// The feature gates that change configuration defaults and validation.
config::Features ConfigFeatures(const Options& options);

// The effective KubeSchedulerConfiguration: ValidateOptions, then --config or the defaults,
// the flag overrides described at the top of this file, defaulting and validation.
StatusOr<config::KubeSchedulerConfiguration> BuildConfig(const Options& options);

// Applies the deprecated flags that were set (only meaningful without --config) and the
// leader-election flags that were set to cfg. Exposed for tests and for callers that load the
// configuration themselves.
void ApplyDeprecatedFlags(const Options& options, config::KubeSchedulerConfiguration& cfg);
void ApplyLeaderElectionFlags(const Options& options, config::KubeSchedulerConfiguration& cfg);

// The YAML --write-config-to writes (kubescheduler.config.k8s.io/v1).
std::string EncodeConfig(const config::KubeSchedulerConfiguration& cfg);
// Writes EncodeConfig(config::WrittenConfig(cfg)) to path (created or truncated), what
// kube-scheduler writes once its scheduler is built. Errors name the path.
Status WriteConfigFile(const std::string& path, const config::KubeSchedulerConfiguration& cfg);

// --- feature gates -----------------------------------------------------------------------------

// Every known gate at the binary's default versions, sorted by name.
const std::vector<FeatureGateSpec>& KnownFeatureGates();
// nullptr when unknown.
const FeatureGateSpec* FindFeatureGate(std::string_view name);
// EffectiveVersion.Validate: the emulation version must lie between the floor (1.34) and the
// binary's version, the min compatibility version between its floor and the emulation version.
// ValidateOptions reports these first, as upstream's Options.Validate does.
std::vector<std::string> ValidateVersions(const FeatureGateOptions& fg);

}  // namespace stowage::app
