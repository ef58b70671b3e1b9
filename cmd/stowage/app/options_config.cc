// From parsed flags to the effective KubeSchedulerConfiguration (upstream's Options.Validate,
// Options.ApplyTo, ApplyDeprecated, ApplyLeaderElectionTo and LogOrWriteConfig), and the
// validation of the flag-only option groups.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "cmd/stowage/app/options.h"
#include "pkg/api/decode.h"
#include "pkg/common/macros.h"
#include "pkg/config/defaults.h"
#include "pkg/config/duration.h"
#include "pkg/config/encode.h"
#include "pkg/config/field_error.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/config/written.h"

namespace stowage::app {
namespace {

using config::FieldErrors;
using config::FieldPath;

std::string JsonMap(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (out.size() > 1) out += ',';
    out += GoJsonString(k) + ":" + GoJsonString(v);
  }
  return out + "}";
}

// Go's error text for a failed system call on a path ("open /x: no such file or directory").
std::string PathError(std::string_view op, const std::string& path, int err) {
  std::string text = std::strerror(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(text[0]));
  return std::string(op) + " " + path + ": " + text;
}

// logsapi.Validate for the flag-settable fields.
FieldErrors ValidateLogs(const Options& o) {
  const LogsOptions& l = o.logs;
  FieldErrors errs;
  if (l.flush_frequency.count() <= 0) {
    errs.push_back(config::Invalid(FieldPath("flushFrequency"),
                                   GoJsonString(config::FormatDuration(l.flush_frequency)),
                                   "Must be greater than zero"));
  }
  if (l.format != "text" && l.format != "json") {
    errs.push_back(
        config::Invalid(FieldPath("format"), GoQuote(l.format), "Unsupported log format"));
  } else if (l.format == "json" && !o.feature_gates.Enabled("LoggingBetaOptions")) {
    errs.push_back(config::Forbidden(
        FieldPath("format"), "Log format json is disabled, see LoggingBetaOptions feature"));
  }
  if (!l.vmodule.empty() && !l.format.empty() && l.format != "text") {
    errs.push_back(config::Forbidden(FieldPath("vmodule"), "Only supported for text log format"));
  }
  const bool alpha = o.feature_gates.Enabled("LoggingAlphaOptions");
  const std::string disabled = "Feature LoggingAlphaOptions is disabled";
  if (l.text_split_stream && !alpha) {
    errs.push_back(config::Forbidden(FieldPath("options.text.splitStream"), disabled));
  }
  if (!l.text_info_buffer_size.IsZero() && !alpha) {
    errs.push_back(config::Forbidden(FieldPath("options.text.infoBufferSize"), disabled));
  }
  if (l.json_split_stream && !alpha) {
    errs.push_back(config::Forbidden(FieldPath("options.json.splitStream"), disabled));
  }
  if (!l.json_info_buffer_size.IsZero() && !alpha) {
    errs.push_back(config::Forbidden(FieldPath("options.json.infoBufferSize"), disabled));
  }
  return errs;
}

bool ContainsFold(const std::vector<std::string>& items, std::string_view want) {
  for (const std::string& item : items) {
    if (item.size() != want.size()) continue;
    bool same = true;
    for (size_t i = 0; i < item.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(item[i])) ==
             std::tolower(static_cast<unsigned char>(want[i]));
    }
    if (same) return true;
  }
  return false;
}

// checkForWhiteSpaceOnly.
void CheckBlank(std::string_view flag, const std::vector<std::string>& values,
                std::vector<std::string>& errs) {
  for (const std::string& v : values) {
    if (v.find_first_not_of(" \t\n\r\v\f") == std::string::npos) {
      errs.push_back("empty value in " + GoQuote(flag));
      return;
    }
  }
}

// metrics v1.Validate, at the binary's version.
FieldErrors ValidateMetrics(const MetricsOptions& m) {
  FieldErrors errs;
  const FieldPath root("metrics");
  const MinorVersion binary = BinaryMinorVersion();
  const std::string previous = MinorVersion{binary.major, binary.minor - 1}.String();
  if (!m.show_hidden_metrics_for_version.empty() && m.show_hidden_metrics_for_version != previous) {
    errs.push_back(config::Invalid(root.Child("showHiddenMetricsForVersion"),
                                   GoQuote(m.show_hidden_metrics_for_version),
                                   "must be omitted or have the value '" + previous +
                                       "'; only the previous minor version is allowed"));
  }
  static const auto* kMetricName = new std::regex("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
  for (const std::string& name : m.disabled_metrics) {
    if (!std::regex_match(name, *kMetricName)) {
      errs.push_back(config::Invalid(
          root.Child("disabledMetrics"), config::JsonList(m.disabled_metrics),
          "must be fully qualified metric names matching \"^[a-zA-Z_:][a-zA-Z0-9_:]*$\", got " +
              GoQuote(name)));
      break;
    }
  }
  static const auto* kKey = new std::regex("^[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*$");
  for (const auto& [key, value] : m.allow_metric_labels) {
    if (!std::regex_match(key, *kKey)) {
      errs.push_back(config::Invalid(
          root.Child("allowListMapping"), JsonMap(m.allow_metric_labels),
          "must have keys with format `metricName,labelName` where metricName matches "
          "\"[a-zA-Z_:][a-zA-Z0-9_:]*\" and labelName matches \"[a-zA-Z_][a-zA-Z0-9_]*\""));
      break;
    }
  }
  if (!m.allow_metric_labels_manifest.empty()) {
    const int fd = ::open(m.allow_metric_labels_manifest.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      errs.push_back(config::Invalid(root.Child("allowListMappingManifest"),
                                     GoQuote(m.allow_metric_labels_manifest),
                                     "failed to read allow list manifest: " +
                                         PathError("open", m.allow_metric_labels_manifest, errno)));
    } else {
      ::close(fd);
    }
    if (!m.allow_metric_labels.empty()) {
      errs.push_back(config::Invalid(
          root,
          "{\"allowListMapping\":" + JsonMap(m.allow_metric_labels) +
              ",\"allowListMappingManifest\":" + GoJsonString(m.allow_metric_labels_manifest) + "}",
          "cannot specify both allowListMapping and allowListMappingManifest"));
    }
  }
  return errs;
}

}  // namespace

Status ValidateOptions(const Options& o) {
  // logsapi.ValidateAndApply runs first upstream, and fails on its own.
  if (FieldErrors logs = ValidateLogs(o); !logs.empty()) {
    return InvalidArgumentError(config::AggregateMessage(logs));
  }
  // The component registry's version checks come first upstream.
  std::vector<std::string> errs = ValidateVersions(o.feature_gates);
  const int64_t port = o.secure_serving.bind_port;
  // upstream's condition is `Required && port < 1 || port > 65535`, so a port above the range
  // gets the "cannot be turned off" wording even though kube-scheduler's port is optional.
  if (port > 65535) {
    errs.push_back("--secure-port " + std::to_string(port) +
                   " must be between 1 and 65535, inclusive. It cannot be turned off with 0");
  } else if (port < 0) {
    errs.push_back("--secure-port " + std::to_string(port) +
                   " must be between 0 and 65535, inclusive. 0 for turning off secure port");
  }
  const AuthenticationOptions& a = o.authentication;
  CheckBlank("requestheader-username-headers", a.requestheader_username_headers, errs);
  CheckBlank("requestheader-group-headers", a.requestheader_group_headers, errs);
  CheckBlank("requestheader-extra-headers-prefix", a.requestheader_extra_headers_prefix, errs);
  CheckBlank("requestheader-allowed-names", a.requestheader_allowed_names, errs);
  if (!o.feature_gates.Enabled("RemoteRequestHeaderUID")) {
    if (!a.requestheader_uid_headers.empty()) {
      errs.push_back(
          "--requestheader-uid-headers requires the \"RemoteRequestHeaderUID\" feature to be "
          "enabled");
    }
  } else {
    CheckBlank("requestheader-uid-headers", a.requestheader_uid_headers, errs);
    if (!a.requestheader_uid_headers.empty() &&
        !ContainsFold(a.requestheader_uid_headers, "X-Remote-Uid")) {
      errs.push_back(
          "--requestheader-uid-headers is set without specifying the standard X-Remote-Uid "
          "header - API aggregation will not work");
    }
  }
  for (const config::FieldError& e : ValidateMetrics(o.metrics)) errs.push_back(e.ToString());
  // Lowering the limit could break an extender that works with upstream, which has none.
  const int64_t ext_max = o.extender_max_response_bytes;
  if (ext_max < config::kDefaultExtenderMaxResponseBytes ||
      ext_max > static_cast<int64_t>(api::kMaxListBytes)) {
    errs.push_back("--extender-max-response-bytes " + std::to_string(ext_max) +
                   " must be between the default of " +
                   std::to_string(config::kDefaultExtenderMaxResponseBytes) + " and " +
                   std::to_string(api::kMaxListBytes) +
                   " (an API list page): it may only be raised");
  }
  if (errs.empty()) return OkStatus();
  if (errs.size() == 1) return InvalidArgumentError(errs[0]);
  std::string joined = "[";
  for (size_t i = 0; i < errs.size(); ++i) joined += (i > 0 ? ", " : "") + errs[i];
  return InvalidArgumentError(joined + "]");
}

config::Features ConfigFeatures(const Options& o) {
  const FeatureGateOptions& fg = o.feature_gates;
  config::Features f;
  f.node_declared_features = fg.Enabled("NodeDeclaredFeatures");
  f.in_place_pod_vertical_scaling_scheduler_preemption =
      fg.Enabled("InPlacePodVerticalScalingSchedulerPreemption");
  f.dynamic_resource_allocation = fg.Enabled("DynamicResourceAllocation");
  f.generic_workload = fg.Enabled("GenericWorkload");
  f.topology_aware_workload_scheduling = fg.Enabled("TopologyAwareWorkloadScheduling");
  f.storage_capacity_scoring = fg.Enabled("StorageCapacityScoring");
  f.dra_scheduler_filter_timeout = fg.Enabled("DRASchedulerFilterTimeout");
  f.dra_device_binding_conditions = fg.Enabled("DRADeviceBindingConditions");
  f.dra_resource_claim_device_status = fg.Enabled("DRAResourceClaimDeviceStatus");
  f.taint_toleration_comparison_operators = fg.Enabled("TaintTolerationComparisonOperators");
  f.scheduler_async_preemption = fg.Enabled("SchedulerAsyncPreemption");
  f.volume_limit_scaling = fg.Enabled("VolumeLimitScaling");
  return f;
}

void ApplyDeprecatedFlags(const Options& o, config::KubeSchedulerConfiguration& cfg) {
  const DeprecatedOptions& d = o.deprecated;
  if (o.Changed("profiling")) cfg.debugging.enable_profiling = d.enable_profiling;
  if (o.Changed("contention-profiling")) {
    cfg.debugging.enable_contention_profiling = d.enable_contention_profiling;
  }
  if (o.Changed("kubeconfig")) cfg.client_connection.kubeconfig = d.kubeconfig;
  if (o.Changed("kube-api-content-type")) cfg.client_connection.content_type = d.content_type;
  if (o.Changed("kube-api-qps")) cfg.client_connection.qps = d.qps;
  if (o.Changed("kube-api-burst")) cfg.client_connection.burst = d.burst;
}

void ApplyLeaderElectionFlags(const Options& o, config::KubeSchedulerConfiguration& cfg) {
  const LeaderElectionOptions& l = o.leader_election;
  config::LeaderElectionConfiguration& le = cfg.leader_election;
  if (o.Changed("leader-elect")) le.leader_elect = l.leader_elect;
  if (o.Changed("leader-elect-lease-duration")) le.lease_duration = l.lease_duration;
  if (o.Changed("leader-elect-renew-deadline")) le.renew_deadline = l.renew_deadline;
  if (o.Changed("leader-elect-retry-period")) le.retry_period = l.retry_period;
  if (o.Changed("leader-elect-resource-lock")) le.resource_lock = l.resource_lock;
  if (o.Changed("leader-elect-resource-name")) le.resource_name = l.resource_name;
  if (o.Changed("leader-elect-resource-namespace")) le.resource_namespace = l.resource_namespace;
}

StatusOr<config::KubeSchedulerConfiguration> BuildConfig(const Options& o) {
  RETURN_IF_ERROR(ValidateOptions(o));
  const config::Features features = ConfigFeatures(o);
  config::KubeSchedulerConfiguration cfg;
  if (o.config_file.empty()) {
    // latest.Default(), then the deprecated and leader-election flags that were set.
    config::SetDefaults(cfg, features);
    ApplyDeprecatedFlags(o, cfg);
    ApplyLeaderElectionFlags(o, cfg);
  } else {
    // The file (decoded and defaulted); only the leader-election flags override it. An
    // unreadable file is reported as upstream's os.ReadFile reports it; O_NONBLOCK so a FIFO
    // cannot block here (ReadFile refuses it with a clear error).
    if (const int fd = ::open(o.config_file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK); fd < 0) {
      return FailedPreconditionError(PathError("open", o.config_file, errno));
    } else {
      ::close(fd);
    }
    auto loaded = config::LoadConfigFile(o.config_file);
    if (!loaded.ok()) return loaded.status().WithPrefix("--config");
    cfg = std::move(*loaded);
    config::SetDefaults(cfg, features);
    ApplyLeaderElectionFlags(o, cfg);
  }
  RETURN_IF_ERROR(config::Validate(cfg, features));
  return cfg;
}

std::string EncodeConfig(const config::KubeSchedulerConfiguration& cfg) {
  return config::EncodeYaml(cfg);
}

Status WriteConfigFile(const std::string& path, const config::KubeSchedulerConfiguration& cfg) {
  ASSIGN_OR_RETURN(const config::KubeSchedulerConfiguration written, config::WrittenConfig(cfg));
  const std::string text = EncodeConfig(written);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return FailedPreconditionError(PathError("open", path, errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return FailedPreconditionError(PathError("write", path, err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return FailedPreconditionError(PathError("close", path, errno));
  return OkStatus();
}

}  // namespace stowage::app
