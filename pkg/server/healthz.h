// Health endpoints as k8s.io/apiserver/pkg/server/healthz serves them: /healthz, /livez and
// /readyz, each with its own list of named checks, plus /<endpoint>/<check> for each check.
//
// GET /<endpoint> runs every check in order (except those named by ?exclude=, which may repeat;
// a grouped check is also skipped when its group is excluded) and answers, byte for byte as
// upstream:
//   all passed, plain:    200 "ok"
//   all passed, ?verbose: 200 "[+]ping ok\n...<endpoint> check passed\n"
//   any failed:           500 "[+]ping ok\n[-]x failed: reason withheld\n<endpoint> check failed\n"
// Excluded checks print "[+]x excluded: ok" ("[+]x excluded with g: ok" for a group); exclusions
// matching nothing add "warn: some health checks cannot be excluded: no matches for "a","b"".
// The failure reasons are withheld from the (public) response and logged at V(2) instead.
// GET /<endpoint>/<check> runs one check: 200 "ok" or 500 "internal server error: <reason>\n".
// Every run of a check from the root endpoint is recorded in HealthCheckMetrics when given.
//
// Checks run on request threads, possibly concurrently: they must be thread-safe and quick.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pkg/server/router.h"
#include "pkg/server/slis.h"
#include "stowage/common/status.h"

namespace stowage::server {

struct HealthCheck {
  std::string name;
  std::function<Status()> check;  // OK = healthy; the message is the (logged) reason otherwise
  std::string group;              // optional; ?exclude=<group> skips every check of the group
};

// The check that always passes ("ping"), installed when an endpoint is given no checks.
HealthCheck PingHealthCheck();
// A check with the given name and function.
HealthCheck NamedHealthCheck(std::string name, std::function<Status()> check);
// Upstream's "shutdown" check: fails with "process is shutting down" once shutting_down() is true.
HealthCheck ShutdownHealthCheck(std::function<bool()> shutting_down);

// Installs path (e.g. "/readyz") and path/<check> for every check. With no checks, "ping" is used.
// metrics may be null. Errors if a path is already registered.
Status InstallHealthChecks(Router& router, const std::string& path, std::vector<HealthCheck> checks,
                           HealthCheckMetrics* metrics);

}  // namespace stowage::server
