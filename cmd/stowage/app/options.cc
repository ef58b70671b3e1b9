// kube-scheduler's flags (cmd/kube-scheduler/app/options and the component-base and apiserver
// option sets it composes), parsing, --help and --version.
#include "cmd/stowage/app/options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

#include "cmd/stowage/app/option_values.h"
#include "pkg/common/macros.h"
#include "pkg/config/field_error.h"

#ifndef STOWAGE_VERSION
#define STOWAGE_VERSION "0.0.0"
#endif

namespace stowage::app {

// Defined in options_feature_gates.cc.
namespace internal {
std::string FeatureGatesUsage();
std::string VersionFlagOptions(bool emulation);
Status ResolveFeatureGates(FeatureGateOptions& fg, std::vector<std::string>& warnings);
}  // namespace internal

namespace {

// The cipher suite names cliflag knows (crypto/tls names), as its help lists them.
constexpr char kPreferredCiphers[] =
    "TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, "
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, "
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256";
constexpr char kInsecureCiphers[] =
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, TLS_ECDHE_ECDSA_WITH_RC4_128_SHA, "
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256, "
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_WITH_AES_128_CBC_SHA, "
    "TLS_RSA_WITH_AES_128_CBC_SHA256, TLS_RSA_WITH_AES_128_GCM_SHA256, "
    "TLS_RSA_WITH_AES_256_CBC_SHA, TLS_RSA_WITH_AES_256_GCM_SHA384, TLS_RSA_WITH_RC4_128_SHA";

constexpr char kDeprecatedIgnored[] =
    " This parameter is ignored if a config file is specified in --config.";

void AddSecureServingFlags(SecureServingOptions* s, FlagSet* fs) {
  fs->IP(&s->bind_address, "bind-address",
         "The IP address on which to listen for the --secure-port port. The associated "
         "interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If "
         "blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families "
         "will be used.");
  fs->Int(&s->bind_port, "secure-port",
          "The port on which to serve HTTPS with authentication and authorization. If 0, don't "
          "serve HTTPS at all.");
  fs->Bool(&s->disable_http2_serving, "disable-http2-serving",
           "If true, HTTP2 serving will be disabled [default=false]");
  fs->String(&s->cert_directory, "cert-dir",
             "The directory where the TLS certs are located. If --tls-cert-file and "
             "--tls-private-key-file are provided, this flag will be ignored.");
  fs->String(&s->tls_cert_file, "tls-cert-file",
             "File containing the default x509 Certificate for HTTPS. (CA cert, if any, "
             "concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file "
             "and --tls-private-key-file are not provided, a self-signed certificate and key are "
             "generated for the public address and saved to the directory specified by "
             "--cert-dir.");
  fs->String(&s->tls_private_key_file, "tls-private-key-file",
             "File containing the default x509 private key matching --tls-cert-file.");
  fs->StringSlice(&s->cipher_suites, "tls-cipher-suites",
                  std::string("Comma-separated list of cipher suites for the server. If omitted, "
                              "the default Go cipher suites will be used. \nPreferred values: ") +
                      kPreferredCiphers + ". \nInsecure values: " + kInsecureCiphers + ".");
  fs->Int32Slice(&s->curve_preferences, "tls-curve-preferences",
                 "Comma-separated list of numeric Go crypto/tls CurveID values, as the allowed key "
                 "exchange mechanisms for the server. The supported values depend on the Go "
                 "version used. See https://pkg.go.dev/crypto/tls#CurveID for values supported "
                 "for each Go version. The order of the list is ignored, and key exchange "
                 "mechanisms are chosen by Go from this list using an internal preference order. "
                 "If omitted, the default Go curves will be used.");
  fs->String(&s->min_tls_version, "tls-min-version",
             "Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, "
             "VersionTLS12, VersionTLS13");
  fs->Var(NamedCertKeyArrayFlag(&s->sni_cert_keys), "tls-sni-cert-key",
          "A pair of x509 certificate and private key file paths, optionally suffixed with a "
          "list of domain patterns which are fully qualified domain names, possibly with prefixed "
          "wildcard segments. The domain patterns also allow IP addresses, but IPs should only be "
          "used if the apiserver has visibility to the IP address requested by a client. If no "
          "domain patterns are provided, the names of the certificate are extracted. Non-wildcard "
          "matches trump over wildcard matches, explicit domain patterns trump over extracted "
          "names. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. "
          "Examples: \"example.crt,example.key\" or \"foo.crt,foo.key:*.foo.com,foo.com\".");
  fs->Int(&s->http2_max_streams_per_connection, "http2-max-streams-per-connection",
          "The limit that the server gives to clients for the maximum number of streams in an "
          "HTTP/2 connection. Zero means to use golang's default.");
  fs->Bool(&s->permit_port_sharing, "permit-port-sharing",
           "If true, SO_REUSEPORT will be used when binding the port, which allows more than one "
           "instance to bind on the same address and port. [default=false]");
  fs->Bool(&s->permit_address_sharing, "permit-address-sharing",
           "If true, SO_REUSEADDR will be used when binding the port. This allows binding to "
           "wildcard IPs like 0.0.0.0 and specific IPs in parallel, and it avoids waiting for the "
           "kernel to release sockets in TIME_WAIT state. [default=false]");
}

void AddAuthenticationFlags(AuthenticationOptions* a, FlagSet* fs) {
  fs->String(&a->remote_kubeconfig_file, "authentication-kubeconfig",
             "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
             "create tokenreviews.authentication.k8s.io. This is optional. If empty, all token "
             "requests are considered to be anonymous and no client CA is looked up in the "
             "cluster.");
  fs->Duration(&a->cache_ttl, "authentication-token-webhook-cache-ttl",
               "The duration to cache responses from the webhook token authenticator.");
  fs->String(&a->client_ca_file, "client-ca-file",
             "If set, any request presenting a client certificate signed by one of the "
             "authorities in the client-ca-file is authenticated with an identity corresponding "
             "to the CommonName of the client certificate.");
  fs->StringSlice(&a->requestheader_username_headers, "requestheader-username-headers",
                  "List of request headers to inspect for usernames. X-Remote-User is common.");
  fs->StringSlice(&a->requestheader_uid_headers, "requestheader-uid-headers",
                  "List of request headers to inspect for UIDs. X-Remote-Uid is suggested. "
                  "Requires the RemoteRequestHeaderUID feature to be enabled.");
  fs->StringSlice(&a->requestheader_group_headers, "requestheader-group-headers",
                  "List of request headers to inspect for groups. X-Remote-Group is suggested.");
  fs->StringSlice(&a->requestheader_extra_headers_prefix, "requestheader-extra-headers-prefix",
                  "List of request header prefixes to inspect. X-Remote-Extra- is suggested.");
  fs->String(&a->requestheader_client_ca_file, "requestheader-client-ca-file",
             "Root certificate bundle to use to verify client certificates on incoming requests "
             "before trusting usernames in headers specified by --requestheader-username-headers. "
             "WARNING: generally do not depend on authorization being already done for incoming "
             "requests.");
  fs->StringSlice(&a->requestheader_allowed_names, "requestheader-allowed-names",
                  "List of client certificate common names to allow to provide usernames in "
                  "headers specified by --requestheader-username-headers. If empty, any client "
                  "certificate validated by the authorities in --requestheader-client-ca-file is "
                  "allowed.");
  fs->Bool(&a->skip_in_cluster_lookup, "authentication-skip-lookup",
           "If false, the authentication-kubeconfig will be used to lookup missing "
           "authentication configuration from the cluster.");
  fs->Bool(&a->tolerate_in_cluster_lookup_failure, "authentication-tolerate-lookup-failure",
           "If true, failures to look up missing authentication configuration from the cluster "
           "are not considered fatal. Note that this can result in authentication that treats "
           "all requests as anonymous.");
}

void AddAuthorizationFlags(AuthorizationOptions* a, FlagSet* fs) {
  fs->String(&a->remote_kubeconfig_file, "authorization-kubeconfig",
             "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
             "create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all "
             "requests not skipped by authorization are forbidden.");
  fs->Duration(&a->allow_cache_ttl, "authorization-webhook-cache-authorized-ttl",
               "The duration to cache 'authorized' responses from the webhook authorizer.");
  fs->Duration(&a->deny_cache_ttl, "authorization-webhook-cache-unauthorized-ttl",
               "The duration to cache 'unauthorized' responses from the webhook authorizer.");
  fs->StringSlice(&a->always_allow_paths, "authorization-always-allow-paths",
                  "A list of HTTP paths to skip during authorization, i.e. these are authorized "
                  "without contacting the 'core' kubernetes server.");
}

void AddDeprecatedFlags(DeprecatedOptions* d, FlagSet* fs) {
  const std::string ignored = kDeprecatedIgnored;
  fs->Bool(&d->enable_profiling, "profiling",
           "DEPRECATED: enable profiling via web interface host:port/debug/pprof/." + ignored);
  fs->Bool(&d->enable_contention_profiling, "contention-profiling",
           "DEPRECATED: enable block profiling, if profiling is enabled." + ignored);
  fs->String(&d->kubeconfig, "kubeconfig",
             "DEPRECATED: path to kubeconfig file with authorization and master location "
             "information." +
                 ignored);
  fs->String(&d->content_type, "kube-api-content-type",
             "DEPRECATED: content type of requests sent to apiserver." + ignored);
  fs->Float32(&d->qps, "kube-api-qps",
              "DEPRECATED: QPS to use while talking with kubernetes apiserver." + ignored);
  fs->Int32(&d->burst, "kube-api-burst",
            "DEPRECATED: burst to use while talking with kubernetes apiserver." + ignored);
  fs->Duration(&d->pod_max_in_unschedulable_pods_duration, "pod-max-in-unschedulable-pods-duration",
               "DEPRECATED: the maximum time a pod can stay in unschedulablePods. If a pod stays "
               "in unschedulablePods for longer than this value, the pod will be moved from "
               "unschedulablePods to backoffQ or activeQ. This flag is deprecated and will be "
               "removed in a future version.");
}

void AddLeaderElectionFlags(LeaderElectionOptions* l, FlagSet* fs) {
  fs->Bool(&l->leader_elect, "leader-elect",
           "Start a leader election client and gain leadership before executing the main loop. "
           "Enable this when running replicated components for high availability.");
  fs->Duration(&l->lease_duration, "leader-elect-lease-duration",
               "The duration that non-leader candidates will wait after observing a leadership "
               "renewal until attempting to acquire leadership of a led but unrenewed leader "
               "slot. This is effectively the maximum duration that a leader can be stopped "
               "before it is replaced by another candidate. This is only applicable if leader "
               "election is enabled.");
  fs->Duration(&l->renew_deadline, "leader-elect-renew-deadline",
               "The interval between attempts by the acting master to renew a leadership slot "
               "before it stops leading. This must be less than the lease duration. This is only "
               "applicable if leader election is enabled.");
  fs->Duration(&l->retry_period, "leader-elect-retry-period",
               "The duration the clients should wait between attempting acquisition and renewal "
               "of a leadership. This is only applicable if leader election is enabled.");
  fs->String(&l->resource_lock, "leader-elect-resource-lock",
             "The type of resource object that is used for locking during leader election. "
             "Supported options are 'leases'.");
  fs->String(&l->resource_name, "leader-elect-resource-name",
             "The name of resource object that is used for locking during leader election.");
  fs->String(&l->resource_namespace, "leader-elect-resource-namespace",
             "The namespace of resource object that is used for locking during leader election.");
}

void AddFeatureGateFlags(FeatureGateOptions* f, FlagSet* fs) {
  fs->StringSlice(&f->emulated_version, "emulated-version",
                  "The versions different components emulate their capabilities (APIs, "
                  "features, ...) of.\nIf set, the component will emulate the behavior of this "
                  "version instead of the underlying binary version.\nVersion format could only "
                  "be major.minor, for example: '--emulated-version=wardle=1.2,kube=1.31'.\n"
                  "Options are: " +
                      internal::VersionFlagOptions(true) +
                      "\nIf the component is not specified, defaults to \"kube\"");
  fs->StringSlice(&f->min_compatibility_version, "min-compatibility-version",
                  "The min version of control plane components the server should be compatible "
                  "with.\nMust be less or equal to the emulated-version. Version format could "
                  "only be major.minor, for example: "
                  "'--min-compatibility-version=wardle=1.2,kube=1.31'.\nOptions are: " +
                      internal::VersionFlagOptions(false) +
                      "\nIf the component is not specified, defaults to \"kube\"");
  fs->Var(ColonMultimapFlag(&f->raw), "feature-gates", internal::FeatureGatesUsage());
}

void AddMetricsFlags(MetricsOptions* m, FlagSet* fs) {
  fs->String(&m->show_hidden_metrics_for_version, "show-hidden-metrics-for-version",
             "The previous version for which you want to show hidden metrics. Only the previous "
             "minor version is meaningful, other values will not be allowed. The format is "
             "<major>.<minor>, e.g.: '1.16'. The purpose of this format is make sure you have the "
             "opportunity to notice if the next release hides additional metrics, rather than "
             "being surprised when they are permanently removed in the release after that.");
  fs->StringSlice(&m->disabled_metrics, "disabled-metrics",
                  "This flag provides an escape hatch for misbehaving metrics. You must provide "
                  "the fully qualified metric name in order to disable it. Disclaimer: disabling "
                  "metrics is higher in precedence than showing hidden metrics.");
  fs->StringToString(&m->allow_metric_labels, "allow-metric-labels",
                     "The map from metric-label to value allow-list of this label. The key's "
                     "format is <MetricName>,<LabelName>. The value's format is "
                     "<allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', "
                     "metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'.");
  fs->String(&m->allow_metric_labels_manifest, "allow-metric-labels-manifest",
             "The path to the manifest file that contains the allow-list mapping. The format of "
             "the file is the same as the flag --allow-metric-labels, i.e., \nallowListMapping:\n"
             "  \"metric1,label1\": \"value11,value12\"\n  \"metric2,label2\": \"\"\nNote that "
             "the flag --allow-metric-labels will override the manifest file.");
}

void AddLogsFlags(LogsOptions* l, FlagSet* fs) {
  fs->String(&l->format, "logging-format",
             "Sets the log format. Permitted formats: \"json\" (gated by LoggingBetaOptions), "
             "\"text\".");
  fs->Duration(&l->flush_frequency, "log-flush-frequency",
               "Maximum number of seconds between log flushes");
  fs->Var(LevelFlag(&l->verbosity), "v", "number for the log level verbosity").shorthand = 'v';
  fs->Var(VModuleFlag(&l->vmodule), "vmodule",
          "comma-separated list of pattern=N settings for file-filtered logging (only works for "
          "text log format)");
  constexpr char kBuffer[] =
      " with split output streams, the info messages can be buffered for a while to increase "
      "performance. The default value of zero bytes disables buffering. The size can be "
      "specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or "
      "powers of those (3M, 4G, 5Mi, 6Gi). Enable the LoggingAlphaOptions feature gate to use "
      "this.";
  constexpr char kSplit[] =
      ", write error messages to stderr and info messages to stdout. The default is to write a "
      "single stream to stdout. Enable the LoggingAlphaOptions feature gate to use this.";
  fs->Bool(&l->text_split_stream, "log-text-split-stream",
           std::string("[Alpha] In text format") + kSplit);
  fs->Var(QuantityFlag(&l->text_info_buffer_size), "log-text-info-buffer-size",
          std::string("[Alpha] In text format") + kBuffer);
  fs->Bool(&l->json_split_stream, "log-json-split-stream",
           std::string("[Alpha] In JSON format") + kSplit);
  fs->Var(QuantityFlag(&l->json_info_buffer_size), "log-json-info-buffer-size",
          std::string("[Alpha] In JSON format") + kBuffer);
}

std::string GoQuoteList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ' ';
    out += GoQuote(items[i]);
  }
  return out + "]";
}

}  // namespace

std::string_view StowageVersion() {
  static const auto* version = new std::string(std::string("v") + STOWAGE_VERSION);
  return *version;
}

bool Options::Changed(std::string_view flag) const {
  return std::binary_search(changed_flags.begin(), changed_flags.end(), NormalizeFlagName(flag));
}

const std::vector<std::string>& FlagGroups() {
  static const auto* groups = new std::vector<std::string>{
      "misc",       "secure serving",  "authentication", "authorization",
      "deprecated", "leader election", "feature gate",   "metrics",
      "logs",       "global"};
  return *groups;
}

namespace {

// The flags kube-scheduler does not have. Hidden from Usage, which stays upstream's; Help lists
// them in a section of their own.
void AddOwnFlags(Options* o, FlagSet* fs, bool hidden) {
  fs->Bool(&o->sandbox, "sandbox",
           "Confine the running process: seccomp allow-list, no capabilities, no_new_privs and "
           "Landlock. Set false only to debug.")
      .hidden = hidden;
  fs->StringSlice(&o->plugin_libraries, "plugin-library",
                  "Plugin shared libraries to load at start-up (repeatable, comma-separated). "
                  "Each must be root-owned, in root-owned directories writable by no one else, "
                  "and built against this stowage's SDK with the same compiler.")
      .hidden = hidden;
  fs->String(&o->cel_library, "cel-library",
             "The CEL library that evaluates DRA device selectors (default "
             "<binary's directory>/../lib/stowage/libstowage_cel.so). It must be owned by root or "
             "stowage's own user, in directories likewise, writable by no one else.")
      .hidden = hidden;
  fs->Int(&o->extender_max_response_bytes, "extender-max-response-bytes",
          "The most bytes of a scheduler extender's answer read before the call fails (or four "
          "times the request, when that is more). May only be raised.")
      .hidden = hidden;
  fs->Int(&o->random_seed, "random-seed",
          "Fix the seed of the scheduler's random choices (which of equally scored nodes, where "
          "preemption starts its search), to compare a run with `stowage simulate --seed`. 0 "
          "draws a fresh seed.")
      .hidden = hidden;
}

}  // namespace

void AddFlags(Options* o, FlagSet* fs) {
  const auto& groups = FlagGroups();
  fs->SetGroup(groups[0]);
  fs->String(&o->config_file, "config", "The path to the configuration file.");
  fs->String(&o->write_config_to, "write-config-to",
             "If set, write the configuration values to this file and exit.");
  fs->String(&o->master, "master",
             "The address of the Kubernetes API server (overrides any value in kubeconfig)");
  AddOwnFlags(o, fs, /*hidden=*/true);
  fs->SetGroup(groups[1]);
  AddSecureServingFlags(&o->secure_serving, fs);
  fs->SetGroup(groups[2]);
  AddAuthenticationFlags(&o->authentication, fs);
  fs->SetGroup(groups[3]);
  AddAuthorizationFlags(&o->authorization, fs);
  fs->SetGroup(groups[4]);
  AddDeprecatedFlags(&o->deprecated, fs);
  fs->SetGroup(groups[5]);
  AddLeaderElectionFlags(&o->leader_election, fs);
  fs->SetGroup(groups[6]);
  AddFeatureGateFlags(&o->feature_gates, fs);
  fs->SetGroup(groups[7]);
  AddMetricsFlags(&o->metrics, fs);
  fs->SetGroup(groups[8]);
  AddLogsFlags(&o->logs, fs);
  fs->SetGroup(groups[9]);
  fs->Var(VersionFlagValue(&o->version, &o->reported_version), "version",
          "--version, --version=raw prints version information and quits; --version=vX.Y.Z... "
          "sets the reported version")
      .no_opt_def_value = "true";
  fs->Bool(&o->help, "help", "help for " + std::string(kCommandName)).shorthand = 'h';
}

StatusOr<Options> ParseCommandLine(const std::vector<std::string>& args) {
  Options o;
  FlagSet fs{std::string(kCommandName)};
  AddFlags(&o, &fs);
  if (Status s = fs.Parse(args); !s.ok()) return InvalidArgumentError(std::string(s.message()));
  for (const Flag* f : fs.Flags()) {
    if (f->changed) o.changed_flags.push_back(f->name);
  }
  std::sort(o.changed_flags.begin(), o.changed_flags.end());
  if (o.help) return o;
  for (const std::string& arg : fs.args()) {
    if (!arg.empty()) {
      return FailedPreconditionError(GoQuote(kCommandName) + " does not take any arguments, got " +
                                     GoQuoteList(fs.args()));
    }
  }
  return o;
}

Status ApplyFeatureGates(Options& options) {
  return internal::ResolveFeatureGates(options.feature_gates, options.warnings);
}

StatusOr<Options> ParseArgs(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(Options o, ParseCommandLine(args));
  if (o.help) return o;
  RETURN_IF_ERROR(ApplyFeatureGates(o));
  return o;
}

StatusOr<Options> ParseFlags(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return ParseArgs(args);
}

std::string Usage(int cols) {
  Options o;
  FlagSet fs{std::string(kCommandName)};
  AddFlags(&o, &fs);
  return "Usage:\n  " + std::string(kCommandName) + " [flags]\n" + fs.Usage(cols);
}

namespace {

// stowage's own flags, after the usage.
std::string OwnFlagsUsage(int cols) {
  Options o;
  FlagSet fs{std::string(kCommandName)};
  fs.SetGroup("stowage");
  AddOwnFlags(&o, &fs, /*hidden=*/false);
  return "\nstowage's own flags (kube-scheduler has none of them):\n\n" +
         fs.GroupUsage("stowage", cols);
}

}  // namespace

std::string Help(int cols) {
  return "stowage is a drop-in replacement for kube-scheduler " +
         std::string(kKubeSchedulerVersion) +
         ", the control plane process which assigns\n"
         "Pods to Nodes. The scheduler determines which Nodes are valid placements for\n"
         "each Pod in the scheduling queue according to constraints and available\n"
         "resources. The scheduler then ranks each valid Node and binds the Pod to a\n"
         "suitable Node. stowage takes the same flags and KubeSchedulerConfiguration\n"
         "files as kube-scheduler.\n"
         "See [scheduling](https://kubernetes.io/docs/concepts/scheduling-eviction/)\n"
         "for more information about scheduling and the kube-scheduler component.\n\n" +
         Usage(cols) + OwnFlagsUsage(cols);
}

std::string ParseErrorText(const Status& error, int cols) {
  std::string out;
  if (error.code() == StatusCode::kInvalidArgument) out = Usage(cols) + "\n";
  return out + "Error: " + std::string(error.message()) + "\n";
}

std::string VersionText(const Options& options) {
  if (options.version != VersionFlag::kRaw) {
    return std::string(kCommandName) + " " + std::string(StowageVersion()) + " (kube-scheduler " +
           options.reported_version + " compatible)\n";
  }
#if defined(__x86_64__)
  const char* platform = "linux/amd64";
#elif defined(__aarch64__)
  const char* platform = "linux/arm64";
#else
  const char* platform = "linux/unknown";
#endif
  // upstream prints its version.Info with %#v; the same shape, with stowage's build details.
  const MinorVersion binary = BinaryMinorVersion();
  return "version.Info{Major:\"" + std::to_string(binary.major) + "\", Minor:\"" +
         std::to_string(binary.minor) +
         "\", EmulationMajor:\"\", EmulationMinor:\"\", "
         "MinCompatibilityMajor:\"\", MinCompatibilityMinor:\"\", GitVersion:\"" +
         options.reported_version + "\", GitCommit:\"\", GitTreeState:\"\", BuildDate:\"\", " +
         "GoVersion:\"\", Compiler:\"" + std::string(kCommandName) + " " +
         std::string(StowageVersion()) + " gcc " + __VERSION__ + "\", Platform:\"" + platform +
         "\"}\n";
}

int TerminalColumns(int fd) {
  if (!isatty(fd)) return 0;
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

}  // namespace stowage::app
