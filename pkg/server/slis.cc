// Health-check SLI series and their Prometheus text rendering.
#include "pkg/server/slis.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "stowage/common/mutex.h"

namespace stowage::server {
namespace {

// Boot time plus the process start tick from /proc, as procfs computes it for Go's
// process_start_time_seconds; now() if /proc cannot be read.
double ProcessStartSeconds() {
  double btime = -1;
  std::ifstream stat("/proc/stat");
  std::string key;
  while (stat >> key) {
    if (key == "btime") {
      stat >> btime;
      break;
    }
  }
  std::ifstream self("/proc/self/stat");
  std::string line;
  std::getline(self, line);
  size_t paren = line.rfind(')');
  if (btime >= 0 && paren != std::string::npos) {
    std::istringstream fields(line.substr(paren + 2));
    std::string field;
    // After "pid (comm) " the start time is field 22 overall, the 20th here.
    for (int i = 0; i < 20 && fields >> field; ++i) {
    }
    double ticks = 0;
    if (!field.empty() &&
        std::from_chars(field.data(), field.data() + field.size(), ticks).ec == std::errc()) {
      return btime + ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  }
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void AppendLabelValue(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void AppendFamilyHeader(std::string& out, std::string_view name, std::string_view help,
                        std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

std::string FormatPrometheusFloat(double v) {
  if (v == 1) return "1";
  if (v == 0) return "0";
  if (v == -1) return "-1";
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, sci.ptr);
  int exponent = std::stoi(s.substr(s.find('e') + 1));
  if (exponent < -4 || exponent >= 6) return s;
  auto fixed = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

HealthCheckMetrics::HealthCheckMetrics() : process_start_seconds_(ProcessStartSeconds()) {}

void HealthCheckMetrics::Observe(const std::string& name, const std::string& type, bool success) {
  MutexLock l(mu_);
  gauge_[{name, type}] = success ? 1 : 0;
  total_[{name, success ? "success" : "error", type}] += 1;
}

void HealthCheckMetrics::Reset() {
  MutexLock l(mu_);
  gauge_.clear();
  total_.clear();
  process_start_reset_ = true;
}

std::string HealthCheckMetrics::Render() const {
  std::string out;
  MutexLock l(mu_);
  // client_golang leaves out families without series.
  if (!gauge_.empty()) {
    AppendFamilyHeader(out, "kubernetes_healthcheck",
                       "[STABLE] This metric records the result of a single healthcheck.", "gauge");
    for (const auto& [key, value] : gauge_) {
      out += "kubernetes_healthcheck{name=\"";
      AppendLabelValue(out, std::get<0>(key));
      out += "\",type=\"";
      AppendLabelValue(out, std::get<1>(key));
      out += "\"} " + FormatPrometheusFloat(value) + "\n";
    }
  }
  if (!total_.empty()) {
    AppendFamilyHeader(out, "kubernetes_healthchecks_total",
                       "[STABLE] This metric records the results of all healthcheck.", "counter");
    for (const auto& [key, value] : total_) {
      out += "kubernetes_healthchecks_total{name=\"";
      AppendLabelValue(out, std::get<0>(key));
      out += "\",status=\"";
      AppendLabelValue(out, std::get<1>(key));
      out += "\",type=\"";
      AppendLabelValue(out, std::get<2>(key));
      out += "\"} " + FormatPrometheusFloat(value) + "\n";
    }
  }
  if (process_start_reset_) return out;
  AppendFamilyHeader(out, "process_start_time_seconds",
                     "[ALPHA] Start time of the process since unix epoch in seconds.", "gauge");
  out += "process_start_time_seconds " + FormatPrometheusFloat(process_start_seconds_) + "\n";
  return out;
}

Status InstallSliMetricsHandler(Router& router, HealthCheckMetrics& metrics) {
  return router.Handle("/metrics/slis", [&metrics](const Request& req) {
    Response r;
    if (req.method == "DELETE") {
      metrics.Reset();
      r.body = "metrics reset\n";
      return r;
    }
    r.content_type = std::string(HealthCheckMetrics::kContentType);
    r.body = metrics.Render();
    return r;
  });
}

}  // namespace stowage::server
