#include "pkg/config/load.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>

#include "pkg/common/error_list.h"
#include "pkg/common/file.h"
#include "pkg/common/go_quote.h"
#include "pkg/config/yaml_decoder.h"

namespace stowage::config {
namespace {

using internal::Decoder;

// Work and depth bounds for one document. Real configurations have a few hundred values.
constexpr size_t kMaxNodes = 200000;
constexpr size_t kMaxRawArgsDepth = 100;
constexpr size_t kMaxReportedErrors = 20;

#define STOWAGE_FIELD(json_name, member) \
  if (k == json_name) {                  \
    d.Get(v, p, member);                 \
    return true;                         \
  }

void DecodePluginSet(Decoder& d, const YAML::Node& n, const FieldPath& path, PluginSet& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    std::vector<Plugin>* list = k == "enabled"    ? &out.enabled
                                : k == "disabled" ? &out.disabled
                                                  : nullptr;
    if (list == nullptr) return false;
    list->clear();
    d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
      Plugin& plugin = list->emplace_back();
      d.Fields(item, ip, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("name", plugin.name);
        STOWAGE_FIELD("weight", plugin.weight);
        return false;
      });
    });
    return true;
  });
}

void DecodePlugins(Decoder& d, const YAML::Node& n, const FieldPath& path, Plugins& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    if (k == "multiPoint") return DecodePluginSet(d, v, p, out.multi_point), true;
    for (ExtensionPoint point : kAllExtensionPoints) {
      if (k == ExtensionPointName(point)) return DecodePluginSet(d, v, p, out.Set(point)), true;
    }
    return false;
  });
}

void DecodeProfile(Decoder& d, const YAML::Node& n, const FieldPath& path,
                   KubeSchedulerProfile& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("schedulerName", out.scheduler_name);
    STOWAGE_FIELD("percentageOfNodesToScore", out.percentage_of_nodes_to_score);
    if (k == "plugins") {
      out.plugins.reset();
      if (!v.IsNull()) DecodePlugins(d, v, p, out.plugins.emplace());
      return true;
    }
    if (k != "pluginConfig") return false;
    d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
      PluginConfig& pc = out.plugin_config.emplace_back();
      // args are typed by the plugin's name, which may come after them.
      YAML::Node args;
      FieldPath args_path = ip.Child("args");
      d.Fields(item, ip, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("name", pc.name);
        if (k != "args") return false;
        args = v;
        return true;
      });
      internal::DecodeArgs(d, args, args_path, pc.name, pc.args);
    });
    return true;
  });
}

void DecodeExtender(Decoder& d, const YAML::Node& n, const FieldPath& path, Extender& out) {
  d.Fields(n, path, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    STOWAGE_FIELD("urlPrefix", out.url_prefix);
    STOWAGE_FIELD("filterVerb", out.filter_verb);
    STOWAGE_FIELD("preemptVerb", out.preempt_verb);
    STOWAGE_FIELD("prioritizeVerb", out.prioritize_verb);
    STOWAGE_FIELD("weight", out.weight);
    STOWAGE_FIELD("bindVerb", out.bind_verb);
    STOWAGE_FIELD("enableHTTPS", out.enable_https);
    STOWAGE_FIELD("httpTimeout", out.http_timeout);
    STOWAGE_FIELD("nodeCacheCapable", out.node_cache_capable);
    STOWAGE_FIELD("ignorable", out.ignorable);
    if (k == "tlsConfig") {
      out.tls_config.reset();
      if (v.IsNull()) return true;
      ExtenderTLSConfig& tls = out.tls_config.emplace();
      d.Fields(v, p, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("insecure", tls.insecure);
        STOWAGE_FIELD("serverName", tls.server_name);
        STOWAGE_FIELD("certFile", tls.cert_file);
        STOWAGE_FIELD("keyFile", tls.key_file);
        STOWAGE_FIELD("caFile", tls.ca_file);
        if (k == "certData") return d.GetBytes(v, p, tls.cert_data), true;
        if (k == "keyData") return d.GetBytes(v, p, tls.key_data), true;
        if (k == "caData") return d.GetBytes(v, p, tls.ca_data), true;
        return false;
      });
      return true;
    }
    if (k != "managedResources") return false;
    d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
      ExtenderManagedResource& r = out.managed_resources.emplace_back();
      d.Fields(item, ip, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("name", r.name);
        STOWAGE_FIELD("ignoredByScheduler", r.ignored_by_scheduler);
        return false;
      });
    });
    return true;
  });
}

void DecodeConfiguration(Decoder& d, const YAML::Node& root, KubeSchedulerConfiguration& out) {
  d.Fields(root, FieldPath(), [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
    if (k == "apiVersion" || k == "kind") return true;  // checked before decoding
    STOWAGE_FIELD("parallelism", out.parallelism);
    STOWAGE_FIELD("enableProfiling", out.debugging.enable_profiling);
    STOWAGE_FIELD("enableContentionProfiling", out.debugging.enable_contention_profiling);
    STOWAGE_FIELD("percentageOfNodesToScore", out.percentage_of_nodes_to_score);
    STOWAGE_FIELD("podInitialBackoffSeconds", out.pod_initial_backoff_seconds);
    STOWAGE_FIELD("podMaxBackoffSeconds", out.pod_max_backoff_seconds);
    STOWAGE_FIELD("delayCacheUntilActive", out.delay_cache_until_active);
    if (k == "leaderElection") {
      LeaderElectionConfiguration& le = out.leader_election;
      d.Fields(v, p, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("leaderElect", le.leader_elect);
        STOWAGE_FIELD("leaseDuration", le.lease_duration);
        STOWAGE_FIELD("renewDeadline", le.renew_deadline);
        STOWAGE_FIELD("retryPeriod", le.retry_period);
        STOWAGE_FIELD("resourceLock", le.resource_lock);
        STOWAGE_FIELD("resourceName", le.resource_name);
        STOWAGE_FIELD("resourceNamespace", le.resource_namespace);
        return false;
      });
      return true;
    }
    if (k == "clientConnection") {
      ClientConnectionConfiguration& cc = out.client_connection;
      d.Fields(v, p, [&](const std::string& k, const YAML::Node& v, const FieldPath& p) {
        STOWAGE_FIELD("kubeconfig", cc.kubeconfig);
        STOWAGE_FIELD("acceptContentTypes", cc.accept_content_types);
        STOWAGE_FIELD("contentType", cc.content_type);
        STOWAGE_FIELD("qps", cc.qps);
        STOWAGE_FIELD("burst", cc.burst);
        return false;
      });
      return true;
    }
    if (k == "profiles") {
      d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
        DecodeProfile(d, item, ip, out.profiles.emplace_back());
      });
      return true;
    }
    if (k == "extenders") {
      d.Items(v, p, [&](const YAML::Node& item, const FieldPath& ip) {
        DecodeExtender(d, item, ip, out.extenders.emplace_back());
      });
      return true;
    }
    if (k == "healthzBindAddress" || k == "metricsBindAddress") {
      d.Fail(p,
             "unknown field (removed from kubescheduler.config.k8s.io/v1; use --bind-address "
             "and --secure-port)");
      return true;
    }
    return false;
  });
}

#undef STOWAGE_FIELD

// A TypeMeta field, read leniently: only its presence and string value matter here.
std::string TypeMetaValue(const YAML::Node& root, const char* key) {
  const YAML::Node v = root[key];
  if (!v.IsDefined() || !v.IsScalar()) return "";
  return v.Scalar();
}

Status CheckTypeMeta(const YAML::Node& root, const std::string& source) {
  const std::string api_version = TypeMetaValue(root, "apiVersion");
  const std::string kind = TypeMetaValue(root, "kind");
  if (api_version.empty()) {
    return InvalidArgumentError(source + ": apiVersion is missing: want " +
                                std::string(kGroupVersion));
  }
  if (kind.empty()) {
    return InvalidArgumentError(source + ": kind is missing: want " + std::string(kKind));
  }
  if (api_version != kGroupVersion) {
    if (api_version.rfind("kubescheduler.config.k8s.io/", 0) == 0) {
      return InvalidArgumentError(source + ": apiVersion \"" + api_version +
                                  "\" is no longer served: kube-scheduler " + "1.37 reads only " +
                                  std::string(kGroupVersion) +
                                  " (v1beta2 was removed in 1.28, v1beta3 in 1.29)");
    }
    return InvalidArgumentError(source + ": apiVersion \"" + api_version + "\" is not " +
                                std::string(kGroupVersion));
  }
  if (kind != kKind) {
    return InvalidArgumentError(source + ": kind \"" + kind + "\" is not " + std::string(kKind));
  }
  return OkStatus();
}

StatusOr<KubeSchedulerConfiguration> Decode(const YAML::Node& root, const std::string& source) {
  if (!root.IsDefined() || root.IsNull()) {
    return InvalidArgumentError(source + ": empty document: apiVersion and kind are required");
  }
  if (!root.IsMap()) {
    return InvalidArgumentError(source + ": not a KubeSchedulerConfiguration (expected a map)");
  }
  if (Status s = CheckTypeMeta(root, source); !s.ok()) return s;
  Decoder d(kMaxNodes, kMaxRawArgsDepth);
  KubeSchedulerConfiguration cfg;
  DecodeConfiguration(d, root, cfg);
  if (d.errors().empty()) return cfg;
  const std::vector<std::string>& all = d.errors();
  std::vector<std::string> shown(all.begin(),
                                 all.begin() + std::min(all.size(), kMaxReportedErrors));
  if (all.size() > kMaxReportedErrors) {
    shown.push_back("and " + std::to_string(all.size() - kMaxReportedErrors) + " more errors");
  }
  return InvalidArgumentError(source + ": " + Join(shown, "; "));
}

// Upstream reads YAML with go-yaml, which refuses a document that is not UTF-8; yaml-cpp passes
// such bytes through, and the JSON encoder (/configz) would then write them out altered.
Status CheckUtf8(std::string_view text, const std::string& source) {
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    if (static_cast<unsigned char>(text[i]) >= 0x80 && DecodeRune(text, i, len) < 0) {
      return InvalidArgumentError(source + ": invalid YAML: line " + std::to_string(line) +
                                  ": invalid UTF-8");
    }
    if (text[i] == '\n') ++line;
    i += len;
  }
  return OkStatus();
}

}  // namespace

StatusOr<KubeSchedulerConfiguration> ParseConfig(std::string_view text,
                                                 std::string_view source_name) {
  const std::string source(source_name);
  if (text.size() > kMaxConfigBytes) {
    return InvalidArgumentError(source + ": larger than " + std::to_string(kMaxConfigBytes) +
                                " bytes");
  }
  // yaml-cpp reports every problem, including its own depth limit, by throwing; this is the one
  // place those exceptions are caught.
  try {
    if (internal::LooksLikeJson(text)) {
      std::string error;
      const YAML::Node root = internal::ParseJson(text, error);
      if (!error.empty()) return InvalidArgumentError(source + ": invalid JSON: " + error);
      return Decode(root, source);
    }
    if (Status utf8 = CheckUtf8(text, source); !utf8.ok()) return utf8;
    const YAML::Node root = YAML::Load(std::string(text));
    return Decode(root, source);
  } catch (...) {
    return internal::CurrentYamlError(source);
  }
}

StatusOr<KubeSchedulerConfiguration> LoadConfigFile(const std::string& path) {
  StatusOr<std::string> text = ReadFile(path, kMaxConfigBytes);
  if (!text.ok()) return text.status();
  return ParseConfig(*text, path);
}

}  // namespace stowage::config
