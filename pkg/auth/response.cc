#include "pkg/auth/response.h"

#include <utility>
#include <vector>

#include "pkg/common/go_quote.h"

namespace stowage::auth {
namespace {

// The metav1.Status JSON that upstream's serializer writes for 401 and 403, field by field in
// the struct's order.
std::string StatusJson(BodyFormat format, std::string_view message, std::string_view reason,
                       bool details, int code) {
  const bool pretty = format == BodyFormat::kPretty;
  std::vector<std::pair<std::string_view, std::string>> fields = {
      {"kind", GoJsonString("Status")},
      {"apiVersion", GoJsonString("v1")},
      {"metadata", "{}"},
      {"status", GoJsonString("Failure")},
      {"message", GoJsonString(message)},
      {"reason", GoJsonString(reason)}};
  if (details) fields.emplace_back("details", "{}");
  fields.emplace_back("code", std::to_string(code));
  std::string s = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) s += ',';
    if (pretty) s += "\n  ";
    s += '"';
    s += fields[i].first;
    s += pretty ? "\": " : "\":";
    s += fields[i].second;
  }
  s += pretty ? "\n}" : "}\n";
  return s;
}

// upstream's responsewriters sanitizer: keeps user-controlled text inert in a browser.
std::string Sanitize(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string ResponseBody(const Decision& d) {
  switch (d.http_status) {
    case 200: return "";
    case 400: return "400 Bad Request";  // Go's server writes it without a newline
    case 401: return StatusJson(d.format, "Unauthorized", "Unauthorized", false, 401);
    case 403: {
      std::string msg = Sanitize("User " + GoQuote(d.user.name) + " cannot " + d.verb + " path " +
                                 GoQuote(d.path));
      if (!d.reason.empty()) msg += ": " + d.reason;
      return StatusJson(d.format, "forbidden: " + msg, "Forbidden", true, 403);
    }
    default:
      return Sanitize("Internal Server Error: " + GoQuote(d.request_uri) + ": " + d.reason) + "\n";
  }
}

std::string_view ResponseContentType(const Decision& d) {
  return (d.http_status == 401 || d.http_status == 403) ? "application/json"
                                                        : "text/plain; charset=utf-8";
}

bool ResponseNoSniff(const Decision& d) { return d.http_status == 403 || d.http_status == 500; }

}  // namespace stowage::auth
