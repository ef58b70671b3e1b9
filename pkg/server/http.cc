// Request accessors and the small encoding helpers handlers share.
#include "pkg/server/http.h"

#include <strings.h>

#include <exception>

#include "pkg/common/logging.h"

namespace stowage::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Walks the query pairs as Go's url.ParseQuery does: '&' separates pairs, empty pairs are
// skipped, and a pair containing ';' or a bad escape is dropped (Go reports it and moves on).
template <typename Fn>
void ForEachQueryPair(std::string_view query, Fn fn) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    size_t eq = pair.find('=');
    std::string_view raw_key = pair.substr(0, eq);
    std::string_view raw_value = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
    auto key = PercentDecode(raw_key, true);
    auto value = PercentDecode(raw_value, true);
    if (!key || !value) continue;
    if (!fn(*key, *value)) return;
  }
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view s, bool plus_as_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size()) return std::nullopt;  // '%' needs two hex digits after it
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string_view Request::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
}

std::optional<std::string> Request::QueryParam(std::string_view name) const {
  std::optional<std::string> found;
  ForEachQueryPair(query, [&](const std::string& key, const std::string& value) {
    if (key != name) return true;
    found = value;
    return false;
  });
  return found;
}

std::vector<std::string> Request::QueryParams(std::string_view name) const {
  std::vector<std::string> values;
  ForEachQueryPair(query, [&](const std::string& key, const std::string& value) {
    if (key == name) values.push_back(value);
    return true;
  });
  return values;
}

std::optional<std::string_view> Response::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n.size() == name.size() && strncasecmp(n.data(), name.data(), n.size()) == 0) return v;
  }
  return std::nullopt;
}

Response ErrorResponse(int status, std::string_view message) {
  Response r;
  r.status = status;
  r.body = std::string(message) + "\n";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

bool SplitRequestTarget(std::string_view target, std::string* path, std::string* query) {
  if (target == "*") {
    *path = "*";
    return true;
  }
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() &&
        strncasecmp(target.data(), scheme.data(), scheme.size()) == 0) {
      target.remove_prefix(scheme.size());
      size_t slash = target.find_first_of("/?");
      target = slash == std::string_view::npos ? "/" : target.substr(slash);
      if (target.front() == '?') return SplitRequestTarget("/" + std::string(target), path, query);
    }
  }
  if (target.empty() || target.front() != '/') return false;
  size_t q = target.find('?');
  if (q != std::string_view::npos) *query = std::string(target.substr(q + 1));
  auto decoded = PercentDecode(target.substr(0, q), false);
  if (!decoded) return false;
  *path = std::move(*decoded);
  return true;
}

Response InvokeWithPanicRecovery(const Handler& handler, const Request& req) {
  try {
    return handler(req);
  } catch (const std::exception& e) {
    LOG_ERROR("Handler panic'd: method={} URI={}: {}", req.method, req.target, e.what());
  } catch (...) {
    LOG_ERROR("Handler panic'd: method={} URI={}: unknown exception", req.method, req.target);
  }
  return ErrorResponse(500,
                       "This request caused apiserver to panic. Look in the logs for details.");
}

}  // namespace stowage::server
