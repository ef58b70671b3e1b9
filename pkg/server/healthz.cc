// The health endpoints' handlers, following k8s.io/apiserver/pkg/server/healthz/healthz.go.
#include "pkg/server/healthz.h"

#include <algorithm>
#include <memory>
#include <set>

#include "pkg/common/logging.h"

namespace stowage::server {
namespace {

// Go's %q for the plain names checks have: quotes, with '"' and '\' escaped.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string JoinQuoted(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ",";
    out += Quote(n);
  }
  return out;
}

Response Plain(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

Response ServeRoot(const std::string& endpoint, const std::vector<HealthCheck>& checks,
                   HealthCheckMetrics* metrics, const Request& req) {
  std::vector<std::string> excluded_list = req.QueryParams("exclude");
  std::set<std::string> excluded(excluded_list.begin(), excluded_list.end());
  std::set<std::string> unknown_excluded = excluded;
  std::string output;
  std::string failed_log;
  std::vector<std::string> failed;
  for (const auto& c : checks) {
    if (excluded.count(c.name)) {
      unknown_excluded.erase(c.name);
      output += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    if (!c.group.empty() && excluded.count(c.group)) {
      unknown_excluded.erase(c.group);
      output += "[+]" + c.name + " excluded with " + c.group + ": ok\n";
      continue;
    }
    Status s = c.check();
    if (metrics != nullptr) metrics->Observe(c.name, endpoint, s.ok());
    if (s.ok()) {
      output += "[+]" + c.name + " ok\n";
    } else {
      // The reason stays out of the public response; it goes to the log.
      output += "[-]" + c.name + " failed: reason withheld\n";
      failed_log += "[-]" + c.name + " failed: " + std::string(s.message()) + "\n";
      failed.push_back(c.name);
    }
  }
  if (!unknown_excluded.empty()) {
    output += "warn: some health checks cannot be excluded: no matches for " +
              JoinQuoted(unknown_excluded) + "\n";
    VLOG(6, "cannot exclude some health checks, no health checks are installed matching {}",
         JoinQuoted(unknown_excluded));
  }
  if (!failed.empty()) {
    std::string names;
    for (const auto& n : failed) names += (names.empty() ? "" : ",") + n;
    VLOG(2, "{} check failed: {}\n{}", names, endpoint, failed_log);
    return Plain(500, output + endpoint + " check failed\n");
  }
  if (!req.HasQueryParam("verbose")) return Plain(200, "ok");
  return Plain(200, output + endpoint + " check passed\n");
}

}  // namespace

HealthCheck PingHealthCheck() {
  return {"ping", [] { return OkStatus(); }, ""};
}

HealthCheck NamedHealthCheck(std::string name, std::function<Status()> check) {
  return {std::move(name), std::move(check), ""};
}

HealthCheck ShutdownHealthCheck(std::function<bool()> shutting_down) {
  return {"shutdown",
          [shutting_down = std::move(shutting_down)] {
            return shutting_down() ? UnavailableError("process is shutting down") : OkStatus();
          },
          ""};
}

Status InstallHealthChecks(Router& router, const std::string& path, std::vector<HealthCheck> checks,
                           HealthCheckMetrics* metrics) {
  if (checks.empty()) {
    VLOG(5, "No default health checks specified. Installing the ping handler.");
    checks.push_back(PingHealthCheck());
  }
  for (const auto& c : checks) {
    if (c.name.empty() || !c.check) {
      return InvalidArgumentError("health checks for " + path +
                                  ": a check has no name or function");
    }
  }
  std::string names;
  for (const auto& c : checks) names += (names.empty() ? "" : ",") + Quote(c.name);
  VLOG(5, "Installing health checkers for ({}): {}", path, names);

  // The endpoint name ("readyz") labels the metrics and the last output line.
  std::string trimmed = path.substr(path.starts_with('/') ? 1 : 0);
  std::string endpoint = trimmed.substr(0, trimmed.find('/'));
  auto shared = std::make_shared<const std::vector<HealthCheck>>(checks);
  Status s = router.Handle(path, [endpoint, shared, metrics](const Request& req) {
    return ServeRoot(endpoint, *shared, metrics, req);
  });
  if (!s.ok()) return s;
  for (const auto& c : checks) {
    s = router.Handle(path + "/" + c.name, [check = c.check](const Request&) {
      Status result = check();
      if (!result.ok()) {
        return ErrorResponse(500, "internal server error: " + std::string(result.message()));
      }
      Response r;
      r.body = "ok";
      return r;
    });
    if (!s.ok()) return s;
  }
  return OkStatus();
}

}  // namespace stowage::server
