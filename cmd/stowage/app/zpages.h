// The bodies of kube-scheduler's z-pages, rendered as kube-scheduler 1.37.2 renders them, for
// the HTTPS server to serve (this file knows nothing about HTTP serving itself):
//
//   /configz  {"componentconfig":<the KubeSchedulerConfiguration, kubescheduler.config.k8s.io/v1>}
//             as application/json (component-base/configz).
//   /flagz    every flag as name<sep>value, sorted, under a banner, as text/plain; or the
//             Flagz object (config.k8s.io/v1beta1, or the deprecated v1alpha1) as JSON when the
//             Accept header asks for it (apiserver/pkg/server/flagz).
//   /statusz  start time, uptime, compiler (in "Go version"'s place), binary and emulation
//             versions and the top-level paths listed before /statusz (not itself, not the
//             unlisted /debug routes), as text/plain; or the Statusz object as
//             JSON (apiserver/pkg/server/statusz).
//
// Content negotiation follows the apiserver's: an empty Accept gets text; otherwise the clauses
// are tried by preference, "text/plain" (or a wildcard) without parameters gives text, and
// application/json (or a wildcard) with ";as=Flagz;g=config.k8s.io;v=v1beta1" (Statusz for
// /statusz) gives JSON, pretty-printed for curl, Wget and browsers or with "?pretty=true", as
// upstream. Anything else is 406 with upstream's message. Differences: YAML and CBOR are not
// offered (the 406 message lists only what is served); structured JSON fields are written in
// upstream's order but /configz's configuration keys come in alphabetical order (Go writes
// struct order); both decode to the same values.
//
// The separator of the text formats is chosen at random among ":", ": ", "=" and " " as
// upstream does, to discourage parsing: once per process for /flagz (upstream caches the page),
// per request for /statusz. Thread-safe: pure functions of their arguments.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmd/stowage/app/options.h"
#include "pkg/config/types.h"
#include "stowage/common/clock.h"

namespace stowage::app {

// What to send: the status code, Content-Type, any other headers, and the body.
struct ZpageResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The parts of a request the z-pages negotiate on.
struct ZpageRequest {
  std::string_view accept;      // the Accept header; empty when absent
  std::string_view user_agent;  // curl, Wget and Mozilla get indented JSON, as upstream
  std::string_view query;       // the raw query string; "pretty=<bool>" decides indentation
};

// The name the pages report (upstream's component name).
inline constexpr std::string_view kZpageComponent = "kube-scheduler";

// /configz for the effective configuration; the router passes the one scheduler.New completed
// (config::WrittenConfig), as upstream sets it.
ZpageResponse Configz(const config::KubeSchedulerConfiguration& cfg);

// Every flag's current value as pflag prints it, by name (upstream's NamedFlagSetsReader: all
// groups, global included, hidden and deprecated flags too), with --tls-cert-file and
// --tls-private-key-file naming the self-signed pair in --cert-dir when upstream would write one.
std::map<std::string, std::string> FlagValues(const Options& options);
// The /flagz text separator of this process.
std::string_view FlagzSeparator();
// /flagz. separator is for tests; the default is FlagzSeparator().
ZpageResponse Flagz(const std::map<std::string, std::string>& flags, const ZpageRequest& request,
                    std::string_view separator = {});

struct StatuszInfo {
  WallTime start_time;  // reported to the second, as upstream reads it from /proc
  WallTime now;
  std::string compiler;                   // goVersion's place: "gcc 12.2.0"
  std::string binary_version;             // "1.36.3"
  std::string emulation_version;          // "1.36"; empty leaves it out
  std::vector<std::string> listed_paths;  // every path the server serves; see AggregatePaths
};
// The compiler that built this binary, e.g. "gcc 12.2.0".
std::string CompilerVersion();
// The statusz data of this process: kube-scheduler's reported version as binary version, its
// major.minor as emulation version (upstream's DefaultBuildEffectiveVersion), the compiler.
StatuszInfo DefaultStatuszInfo(const Options& options, WallTime start_time, WallTime now,
                               std::vector<std::string> listed_paths);
// upstream's aggregatePaths: the distinct first path segments ("/debug/flags/v" -> "/debug"),
// sorted, without the API paths (/api, /apis, /openapi, /openid, /.well-known).
std::vector<std::string> AggregatePaths(const std::vector<std::string>& listed_paths);
// /statusz. separator is for tests; the default is a random one per call.
ZpageResponse Statusz(const StatuszInfo& info, const ZpageRequest& request,
                      std::string_view separator = {});

}  // namespace stowage::app
