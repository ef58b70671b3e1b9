#include "cmd/stowage/app/zpages.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "pkg/api/encode.h"
#include "pkg/common/go_quote.h"
#include "pkg/common/http_negotiation.h"
#include "pkg/config/encode.h"

namespace stowage::app {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::string_view kDelimiters[] = {":", ": ", "=", " "};
constexpr std::string_view kGroup = "config.k8s.io";
constexpr std::string_view kTextType = "text/plain; charset=utf-8";
constexpr std::string_view kWarning =
    "Warning: This endpoint is not meant to be machine parseable, has no formatting "
    "compatibility guarantees and is for debugging purposes only.";

std::string_view RandomDelimiter() {
  thread_local std::mt19937 rng{std::random_device{}()};
  return kDelimiters[std::uniform_int_distribution<size_t>(0, std::size(kDelimiters) - 1)(rng)];
}

// "\n<component> <page>\nWarning: ...\n", upstream's headerFmt.
std::string Banner(std::string_view page) {
  return "\n" + std::string(kZpageComponent) + " " + std::string(page) + "\n" +
         std::string(kWarning) + "\n";
}

struct Negotiated {
  bool acceptable = false;
  bool json = false;    // else text
  std::string version;  // of the structured kind
  bool pretty = false;
};

// The apiserver's NegotiateOutputMediaType with the z-pages' restrictions, over the media types
// served here (JSON, then text).
Negotiated Negotiate(const ZpageRequest& r, std::string_view kind) {
  if (r.accept.find_first_not_of(' ') == std::string_view::npos) return {true, false, "", false};
  static constexpr std::pair<std::string_view, std::string_view> kServed[] = {
      {"application", "json"}, {"text", "plain"}};
  for (const AcceptClause& c : ParseAccept(r.accept)) {
    for (const auto& [type, subtype] : kServed) {
      bool match = (c.type == type && (c.subtype == subtype || c.subtype == "*")) ||
                   (c.type == "*" && c.subtype == "*");
      if (!match) continue;
      bool convert = false, rejected = false, pretty = false;
      std::string as, g, v;
      for (const auto& [key, value] : c.params) {
        if (key == "as" || key == "g" || key == "v") {
          convert = true;
          (key == "as" ? as : key == "g" ? g : v) = value;
        } else if ((key == "stream" || key == "sv") && !value.empty()) {
          rejected = true;  // no watch streams or server versions here
        } else if (key == "pretty") {
          pretty = value == "1";
        }
      }
      if (rejected) continue;
      if (type == "text") {
        if (!convert) return {true, false, "", false};
        continue;
      }
      if (convert && as == kind && g == kGroup && (v == "v1beta1" || v == "v1alpha1")) {
        return {true, true, v, pretty || IsPrettyPrint(r.user_agent, r.query)};
      }
    }
  }
  return {};
}

// JSON text with the escapes Go's encoding/json adds: <, >, & and U+2028/U+2029 (in JSON they
// can only occur inside strings, so replacing them everywhere is safe).
std::string GoEscapes(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() + 16);
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < raw.size() && raw[i + 1] == '\x80' &&
               (raw[i + 2] == '\xA8' || raw[i + 2] == '\xA9')) {
      out += raw[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Go's encoding/json text of j: two-space indentation when pretty, else compact with the
// newline json.Encoder adds.
std::string GoJson(const ojson& j, bool pretty) {
  std::string out = GoEscapes(j.dump(pretty ? 2 : -1, ' ', false, ojson::error_handler_t::replace));
  if (!pretty) out += '\n';
  return out;
}

ZpageResponse NotAcceptable() {
  ojson status = {{"metadata", ojson::object()},
                  {"status", "Failure"},
                  {"message",
                   "only the following media types are accepted: application/json, "
                   "text/plain"},
                  {"reason", "NotAcceptable"},
                  {"code", 406}};
  return {406, "application/json", {}, GoJson(status, true)};
}

// The structured answer: the object, its negotiated Content-Type, upstream's deprecation
// warning for v1alpha1.
ZpageResponse Structured(ojson body, std::string_view kind, std::string_view page,
                         const Negotiated& n) {
  ZpageResponse r;
  r.content_type =
      "application/json;g=" + std::string(kGroup) + ";v=" + n.version + ";as=" + std::string(kind);
  if (n.version == "v1alpha1") {
    r.headers.emplace_back("Warning", "299 - \"This version of the " + std::string(page) +
                                          " endpoint is deprecated. Please use a newer version.\"");
  }
  r.body = GoJson(body, n.pretty);
  return r;
}

ojson TypeHeader(std::string_view kind, const std::string& version) {
  return {{"kind", kind},
          {"apiVersion", std::string(kGroup) + "/" + version},
          {"metadata", {{"name", kZpageComponent}}}};
}

// Go's time.UnixDate layout in local time: "Mon Jan  2 15:04:05 MST 2006".
std::string UnixDate(WallTime t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Z %Y", &tm);
  return std::string(buf, n);
}

}  // namespace

ZpageResponse Configz(const config::KubeSchedulerConfiguration& cfg) {
  // json.Marshal of the registry map: compact, no trailing newline.
  std::string body = GoEscapes("{\"componentconfig\":" + config::EncodeJson(cfg) + "}");
  return {200, "application/json", {{"X-Content-Type-Options", "nosniff"}}, std::move(body)};
}

std::map<std::string, std::string> FlagValues(const Options& options) {
  Options copy = options;  // AddFlags binds to (and so needs) mutable variables
  FlagSet fs{std::string(kCommandName)};
  AddFlags(&copy, &fs);
  std::map<std::string, std::string> out;
  // Hidden flags are stowage's own (--sandbox): /flagz lists upstream's, as upstream does.
  for (const Flag* f : fs.Flags()) {
    if (!f->hidden) out[f->name] = f->value->String();
  }
  // Upstream's MaybeDefaultWithSelfSignedCerts writes the certificate paths it self-signs into
  // the flag variables, so /flagz shows them.
  const SecureServingOptions& s = options.secure_serving;
  if (s.bind_port != 0 && s.tls_cert_file.empty() && s.tls_private_key_file.empty() &&
      !s.cert_directory.empty()) {
    std::string base = s.cert_directory + "/" + s.pair_name;
    out["tls-cert-file"] = base + ".crt";
    out["tls-private-key-file"] = base + ".key";
  }
  return out;
}

std::string_view FlagzSeparator() {
  static const std::string_view separator = RandomDelimiter();
  return separator;
}

ZpageResponse Flagz(const std::map<std::string, std::string>& flags, const ZpageRequest& request,
                    std::string_view separator) {
  Negotiated n = Negotiate(request, "Flagz");
  if (!n.acceptable) return NotAcceptable();
  if (n.json) {
    ojson body = TypeHeader("Flagz", n.version);
    if (!flags.empty()) body["flags"] = flags;  // omitempty; std::map keeps Go's sorted keys
    return Structured(std::move(body), "Flagz", "flagz", n);
  }
  if (separator.empty()) separator = FlagzSeparator();
  std::string text = Banner("flagz");
  for (const auto& [name, value] : flags) {
    text.append(name).append(separator).append(value).append("\n");
  }
  return {200, std::string(kTextType), {}, std::move(text)};
}

std::string CompilerVersion() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

StatuszInfo DefaultStatuszInfo(const Options& options, WallTime start_time, WallTime now,
                               std::vector<std::string> listed_paths) {
  StatuszInfo info;
  info.start_time = start_time;
  info.now = now;
  info.compiler = CompilerVersion();
  std::string_view v = options.reported_version;
  if (!v.empty() && v.front() == 'v') v.remove_prefix(1);
  info.binary_version = std::string(v);
  size_t first_dot = v.find('.');
  size_t second_dot = first_dot == std::string_view::npos ? v.size() : v.find('.', first_dot + 1);
  info.emulation_version = std::string(v.substr(0, second_dot));
  info.listed_paths = std::move(listed_paths);
  return info;
}

std::vector<std::string> AggregatePaths(const std::vector<std::string>& listed_paths) {
  static const std::set<std::string, std::less<>> kApiPaths = {"/apis", "/api", "/openid",
                                                               "/openapi", "/.well-known"};
  std::set<std::string> folders;
  for (std::string_view p : listed_paths) {
    // strings.Split(p, "/")[1]: the text between the first and second slash.
    size_t first = p.find('/');
    if (first == std::string_view::npos) continue;
    std::string_view rest = p.substr(first + 1);
    std::string_view segment = rest.substr(0, rest.find('/'));
    if (segment.empty()) continue;
    std::string folder = "/" + std::string(segment);
    if (!kApiPaths.count(folder)) folders.insert(std::move(folder));
  }
  return {folders.begin(), folders.end()};
}

ZpageResponse Statusz(const StatuszInfo& info, const ZpageRequest& request,
                      std::string_view separator) {
  Negotiated n = Negotiate(request, "Statusz");
  if (!n.acceptable) return NotAcceptable();
  WallTime start = std::chrono::floor<std::chrono::seconds>(info.start_time);
  int64_t up = std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(info.now - start).count());
  std::vector<std::string> paths = AggregatePaths(info.listed_paths);
  if (n.json) {
    ojson body = TypeHeader("Statusz", n.version);
    body["startTime"] = api::FormatTime(start);
    body["uptimeSeconds"] = up;
    body["goVersion"] = info.compiler;
    body["binaryVersion"] = info.binary_version;
    if (!info.emulation_version.empty()) body["emulationVersion"] = info.emulation_version;
    body["paths"] = paths.empty() ? ojson(nullptr) : ojson(paths);  // no omitempty: nil is null
    return Structured(std::move(body), "Statusz", "statusz", n);
  }
  std::string d = separator.empty() ? std::string(RandomDelimiter()) : std::string(separator);
  char uptime[64];
  std::snprintf(uptime, sizeof(uptime), "%lld hr %02lld min %02lld sec",
                static_cast<long long>(up / 3600), static_cast<long long>((up / 60) % 60),
                static_cast<long long>(up % 60));
  std::string joined;
  for (const std::string& p : paths) joined += (joined.empty() ? "" : " ") + p;
  std::string text = Banner("statusz");
  text += "\nStarted" + d + " " + HtmlEscape(UnixDate(start)) + "\n";
  text += "Up" + d + " " + HtmlEscape(uptime) + "\n";
  text += "Go version" + d + " " + HtmlEscape(info.compiler) + "\n";
  text += "Binary version" + d + " " + HtmlEscape(info.binary_version) + "\n";
  if (!info.emulation_version.empty()) {
    text += "Emulation version" + d + " " + HtmlEscape(info.emulation_version);
  }
  text += "\n";
  if (!joined.empty()) text += "Paths" + d + " " + HtmlEscape(joined);
  text += "\n";
  return {200, std::string(kTextType), {}, std::move(text)};
}

}  // namespace stowage::app
