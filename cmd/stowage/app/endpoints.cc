#include "cmd/stowage/app/endpoints.h"

#include <charconv>

#include "cmd/stowage/app/zpages.h"
#include "pkg/common/logging.h"
#include "pkg/config/written.h"

namespace stowage::app {
namespace {

server::Response Text(std::string body, std::string content_type = "text/plain; charset=utf-8") {
  server::Response r;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

// /debug/flags/v as upstream's routes.DebugFlags: GET reads -v, PUT sets it from the body.
server::Response DebugFlagV(const server::Request& req) {
  if (req.method == "GET") return Text(std::to_string(logging::Verbosity()));
  if (req.method != "PUT") return server::ErrorResponse(405, "only GET and PUT are supported");
  std::string_view body = req.body;
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.remove_suffix(1);
  int v = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || end != body.data() + body.size() || v < 0) {
    return server::ErrorResponse(400, "invalid verbosity \"" + std::string(body) + "\"");
  }
  logging::SetVerbosity(v);
  LOG_INFO("verbosity set to {} through /debug/flags/v", v);
  return Text("successfully set klog.logging.verbosity to " + std::to_string(v));
}

ZpageRequest ZRequest(const server::Request& req) {
  return ZpageRequest{req.Header("accept"), req.Header("user-agent"), req.query};
}

server::Response FromZpage(ZpageResponse z) {
  server::Response r;
  r.status = z.status;
  r.content_type = std::move(z.content_type);
  r.headers = std::move(z.headers);
  r.body = std::move(z.body);
  return r;
}

}  // namespace

StatusOr<std::shared_ptr<server::Router>> NewRouter(const EndpointSources& sources,
                                                    server::HealthCheckMetrics* slis) {
  auto router = std::make_shared<server::Router>("kube-scheduler");
  if (auto s = server::InstallHealthChecks(*router, "/healthz", sources.healthz_checks, slis);
      !s.ok()) {
    return s;
  }
  if (auto s = server::InstallHealthChecks(*router, "/livez", {}, slis); !s.ok()) return s;
  if (auto s = server::InstallHealthChecks(*router, "/readyz", sources.readyz_checks, slis);
      !s.ok()) {
    return s;
  }
  std::vector<std::pair<std::string, server::Handler>> routes;
  if (sources.metrics) {
    routes.emplace_back("/metrics", [m = sources.metrics](const server::Request&) {
      return Text(m(), "text/plain; version=0.0.4; charset=utf-8");
    });
  }
  if (sources.resource_metrics) {
    routes.emplace_back("/metrics/resources",
                        [m = sources.resource_metrics](const server::Request&) {
                          std::string body = m();
                          // Upstream writes nothing (an empty 200) when not the leader.
                          return Text(std::move(body), "text/plain; version=0.0.4; charset=utf-8");
                        });
  }
  if (slis != nullptr) {
    routes.emplace_back("/metrics/slis", [slis](const server::Request& req) {
      if (req.method == "DELETE") slis->Reset();
      return Text(slis->Render(), "text/plain; version=0.0.4; charset=utf-8");
    });
  }
  if (sources.config != nullptr) {
    // Upstream sets /configz from the configuration scheduler.New completed, the one
    // --write-config-to writes (every plugin weight set, profiles expanded).
    auto written = config::WrittenConfig(*sources.config);
    if (!written.ok()) return written.status();
    routes.emplace_back("/configz",
                        [z = Configz(*written)](const server::Request&) { return FromZpage(z); });
  }
  if (sources.profiling) {
    routes.emplace_back("/debug/flags/v", DebugFlagV);
    routes.emplace_back("/debug/flags", [](const server::Request&) { return Text("v\n"); });
  }
  if (sources.explain) {
    routes.emplace_back("/debug/explain", [e = sources.explain](const server::Request& req) {
      const auto pod = req.QueryParam("pod");
      const auto output = req.QueryParam("output").value_or("table");
      if (!pod || (output != "table" && output != "json" && output != "html")) {
        server::Response r =
            Text("usage: /debug/explain?pod=NAMESPACE/POD[&output=table|json|html]\n");
        r.status = 400;
        return r;
      }
      return e(*pod, output);
    });
  }
  if (sources.options != nullptr) {
    routes.emplace_back("/flagz",
                        [flags = FlagValues(*sources.options)](const server::Request& req) {
                          return FromZpage(Flagz(flags, ZRequest(req)));
                        });
  }
  for (auto& [path, handler] : routes) {
    if (auto s = router->Handle(path, std::move(handler)); !s.ok()) return s;
  }
  if (sources.options != nullptr) {
    // Upstream's statusz lists the paths registered before it (so not itself), and its
    // profiling and debug-flag routes are unlisted.
    std::vector<std::string> listed;
    for (std::string& p : router->ListedPaths()) {
      if (p.rfind("/debug/", 0) != 0) listed.push_back(std::move(p));
    }
    auto statusz = [o = sources.options, start = sources.start_time,
                    listed = std::move(listed)](const server::Request& req) {
      StatuszInfo info = DefaultStatuszInfo(*o, start, RealClock().WallNow(), listed);
      return FromZpage(Statusz(info, ZRequest(req)));
    };
    if (auto s = router->Handle("/statusz", std::move(statusz)); !s.ok()) return s;
  }
  return router;
}

server::Handler WithAuth(std::shared_ptr<const server::Router> router,
                         std::shared_ptr<auth::DelegatingAuth> auth) {
  return [router, auth](const server::Request& req) -> server::Response {
    if (auth) {
      auth::Request ar;
      ar.method = req.method;
      ar.target = req.target;
      ar.headers = req.headers;
      ar.peer_certificates = req.peer_certificates_der;
      auth::Decision d = auth->Check(ar);
      if (!d.allowed()) {
        VLOG(3, "{} {} from {}: {} ({})", req.method, req.path, req.remote_address, d.http_status,
             d.reason);
        server::Response r;
        r.status = d.http_status;
        r.content_type = std::string(auth::ResponseContentType(d));
        r.body = auth::ResponseBody(d);
        if (auth::ResponseNoSniff(d)) r.headers.emplace_back("X-Content-Type-Options", "nosniff");
        return r;
      }
    }
    return router->Serve(req);
  };
}

}  // namespace stowage::app
