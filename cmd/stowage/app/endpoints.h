// The secure port's handler, as kube-scheduler's newEndpointsHandler and buildHandlerChain
// assemble it: /healthz, /livez and /readyz with their named checks, /metrics,
// /metrics/resources (answered by the leader only), /metrics/slis, /configz, /flagz, /statusz,
// and with profiling /debug/flags/v, and /debug/explain; in front of them, delegated authentication
// and authorization (401/403 as upstream) and request logging.
//
// The sources are callbacks so this file stays free of the scheduler's types; they are called
// on the server's handler threads and must be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cmd/stowage/app/options.h"
#include "pkg/auth/delegating_auth.h"
#include "pkg/config/types.h"
#include "pkg/server/healthz.h"
#include "pkg/server/http.h"
#include "pkg/server/router.h"
#include "pkg/server/slis.h"

namespace stowage::app {

struct EndpointSources {
  std::vector<server::HealthCheck> healthz_checks;  // empty: ping
  std::vector<server::HealthCheck> readyz_checks;
  std::function<std::string()> metrics;           // Prometheus text of /metrics
  std::function<std::string()> resource_metrics;  // /metrics/resources; "" when not leader
  // /configz, /flagz and /statusz describe these (both must outlive the router); none when null.
  const Options* options = nullptr;
  const config::KubeSchedulerConfiguration* config = nullptr;
  WallTime start_time{};
  bool profiling = true;  // --profiling: /debug/flags/v
  // /debug/explain?pod=NAMESPACE/POD[&output=table|json|html]: the answer for pod (explain.h) as a
  // whole response; none when null.
  std::function<server::Response(std::string_view pod, std::string_view output)> explain;
};

// The routes, without authentication; slis records the health checks (may be null).
StatusOr<std::shared_ptr<server::Router>> NewRouter(const EndpointSources& sources,
                                                    server::HealthCheckMetrics* slis);

// router behind authentication and authorization (auth may be null: everything is allowed).
// The handler shares ownership of both, since the server may finish a stuck request after its
// owner has let go.
server::Handler WithAuth(std::shared_ptr<const server::Router> router,
                         std::shared_ptr<auth::DelegatingAuth> auth);

}  // namespace stowage::app
