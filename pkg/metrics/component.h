// The metrics kube-scheduler inherits from the libraries it is built on, served on the same
// /metrics under the same names: client-go's leader election pair and rest_client_* request
// metrics, component-base's kubernetes_build_info, kubernetes_feature_enabled and version_info,
// and its cardinality_enforcement_unexpected_categorizations_total (always 0: stowage enforces
// --allow-metric-labels without that categorization step). stowage's own
// leader election, API client and startup code feed them through these functions (the client
// through its request observer hook, so pkg/client does not depend on this package).
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/metrics/registry.h"

namespace stowage::metrics {

// Registers the inherited families (idempotent; the functions below do it on first use).
void RegisterComponentMetrics();
// Their descriptors, for tests.
std::vector<FamilyDesc> ComponentFamilyDescs();

// leader_election_master_status{name}: 1 while this process holds the lease `name`, else 0.
void SetLeader(std::string_view name, bool leader);
// leader_election_slowpath_total{name}: the leader renewed through the slow path (its
// optimistic update failed and it re-read the lease).
void LeaderSlowpathExercised(std::string_view name);

// One attempt of an API request, as client-go's request metrics see it.
struct RestRequest {
  std::string_view verb;  // "GET", "POST", ...
  std::string_view host;  // the server's host:port, e.g. "10.0.0.1:6443"
  int code = 0;           // HTTP status; 0 when no response was received ("<error>")
  double latency_seconds = 0;
  double rate_limiter_seconds = -1;  // time waiting for the client-side rate limiter; <0: none
  long long request_bytes = -1;      // <0: unknown
  long long response_bytes = -1;     // <0: unknown (e.g. watch streams)
  bool retry = false;                // this attempt will be retried
};
// rest_client_requests_total{code,host,method}, rest_client_request_duration_seconds,
// rest_client_rate_limiter_duration_seconds, rest_client_request_size_bytes,
// rest_client_response_size_bytes ({verb,host}) and rest_client_request_retries_total
// {code,verb,host}.
void ObserveRestRequest(const RestRequest& r);

// kubernetes_build_info: a constant 1 labelled with the build. Defaults describe stowage as
// the kube-scheduler version it replaces.
struct BuildInfo {
  std::string major = "1";
  std::string minor = "37";
  std::string git_version = "v1.37.2";
  std::string git_commit;
  std::string git_tree_state;
  std::string build_date = "1970-01-01T00:00:00Z";
  std::string go_version;  // stowage is not built with Go
  std::string compiler = "gcc";
  std::string platform = "linux/amd64";
};
void SetBuildInfo(const BuildInfo& info);

// version_info{component,binary,emulation,min_compat}: a constant 1 labelled with the
// compatibility versions. Defaults are kube-scheduler's without --emulated-version.
struct VersionInfo {
  std::string binary = "1.37.2";
  std::string emulation = "1.37";
  std::string min_compat = "1.36";
};
void SetVersionInfo(const VersionInfo& info);

// kubernetes_feature_enabled{name,stage}: 1 if enabled. stage is upstream's: "ALPHA", "BETA",
// "DEPRECATED", or "" for GA.
void SetFeatureEnabled(std::string_view name, std::string_view stage, bool enabled);

}  // namespace stowage::metrics
