// HealthCheckMetrics: the health-check SLIs kube components serve at /metrics/slis
// (component-base/metrics/prometheus/slis): the STABLE gauge kubernetes_healthcheck{name,type}
// (1 when the last run of a check passed, 0 when it failed) and the STABLE counter
// kubernetes_healthchecks_total{name,type,status}, plus process_start_time_seconds, which that
// registry also carries. "type" is the endpoint ("healthz", "livez", "readyz").
//
// Rendered by hand in Prometheus text format 0.0.4 exactly as client_golang writes it (families and
// series sorted, labels in name order, Go float formatting), so scrapers see upstream's bytes.
// Thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "pkg/server/http.h"
#include "pkg/server/router.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::server {

class HealthCheckMetrics {
 public:
  HealthCheckMetrics();

  // Records one run of check name on endpoint type.
  void Observe(const std::string& name, const std::string& type, bool success) EXCLUDES(mu_);
  // Forgets every series (DELETE /metrics/slis). As upstream's registry Reset, this also drops
  // process_start_time_seconds, which is then absent until the process restarts.
  void Reset() EXCLUDES(mu_);
  // The exposition text.
  std::string Render() const EXCLUDES(mu_);

  // The content type client_golang answers with for text exposition.
  static constexpr std::string_view kContentType =
      "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";

 private:
  const double process_start_seconds_;
  mutable Mutex mu_;
  bool process_start_reset_ GUARDED_BY(mu_) = false;
  std::map<std::tuple<std::string, std::string>, double> gauge_ GUARDED_BY(mu_);  // (name, type)
  // (name, status, type): label names in sorted order, as the series are sorted.
  std::map<std::tuple<std::string, std::string, std::string>, double> total_ GUARDED_BY(mu_);
};

// Installs /metrics/slis: GET renders the metrics; DELETE resets them and answers
// "metrics reset\n" (HandlerWithReset).
Status InstallSliMetricsHandler(Router& router, HealthCheckMetrics& metrics);

// A sample value as Prometheus' Go text writer prints it: strconv.FormatFloat(v, 'g', -1, 64),
// i.e. the shortest round-trip digits, in exponent form ("1.7e+09") when the decimal exponent is
// below -4 or at least 6; NaN, +Inf, -Inf spelled out.
std::string FormatPrometheusFloat(double v);

}  // namespace stowage::server
