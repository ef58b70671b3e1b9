#include "pkg/common/http_negotiation.h"

#include <cstdlib>
#include <optional>

namespace stowage {
namespace {

// goautoneg's nextSplitElement.
std::string_view Next(std::string_view& rest, char sep) {
  size_t i = rest.find(sep);
  std::string_view item = rest.substr(0, i);
  rest = i == std::string_view::npos ? std::string_view() : rest.substr(i + 1);
  return item;
}

std::string TrimSpaces(std::string_view s) {
  size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(' ') - b + 1));
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// url.QueryUnescape; nullopt on a malformed escape.
std::optional<std::string> QueryUnescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      int hi = i + 1 < s.size() ? Hex(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? Hex(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The first value of query parameter "pretty" as url.Values.Get gives it ("" when absent).
std::string PrettyParam(std::string_view query) {
  while (!query.empty()) {
    std::string_view pair = Next(query, '&');
    if (pair.find(';') != std::string_view::npos) continue;  // Go rejects such pairs
    std::string_view value = pair;
    auto key = QueryUnescape(Next(value, '='));
    if (!key || *key != "pretty") continue;
    auto v = QueryUnescape(value);
    if (v) return *v;
  }
  return "";
}

}  // namespace

std::vector<AcceptClause> ParseAccept(std::string_view header) {
  std::vector<AcceptClause> out;
  std::string_view rest = header;
  while (!rest.empty()) {
    std::string part = TrimSpaces(Next(rest, ','));
    std::string_view p = part;
    std::string_view media = Next(p, ';');
    std::string_view sub = media;
    AcceptClause c;
    c.type = TrimSpaces(Next(sub, '/'));
    if (sub.empty()) {
      if (c.type != "*") continue;
      c.subtype = "*";
    } else {
      std::string_view s1 = Next(sub, '/');
      if (!sub.empty()) continue;
      c.subtype = TrimSpaces(s1);
    }
    while (!p.empty()) {
      std::string_view kv = Next(p, ';');
      std::string_view value = kv;
      std::string key = TrimSpaces(Next(value, '='));
      if (value.empty()) continue;
      std::string_view v1 = Next(value, '=');
      if (!value.empty()) continue;
      if (key == "q") {
        std::string num(v1);
        char* end = nullptr;
        double q = std::strtod(num.c_str(), &end);
        c.q = (end != nullptr && *end == '\0' && !num.empty()) ? q : 0.0;
      } else {
        c.params[key] = TrimSpaces(v1);
      }
    }
    out.push_back(std::move(c));
  }
  auto less = [](const AcceptClause& a, const AcceptClause& b) {
    if (a.q > b.q) return true;
    if (a.type != "*" && b.type == "*") return true;
    if (a.subtype != "*" && b.subtype == "*") return true;
    return false;
  };
  for (size_t i = 1; i < out.size(); ++i) {
    for (size_t j = i; j > 0 && less(out[j], out[j - 1]); --j) std::swap(out[j], out[j - 1]);
  }
  return out;
}

bool IsPrettyPrint(std::string_view user_agent, std::string_view raw_query) {
  if (raw_query.find("pretty") != std::string_view::npos) {
    std::string v = PrettyParam(raw_query);
    if (!v.empty()) {
      return v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "true" || v == "True";
    }
  }
  for (std::string_view prefix : {"curl", "Wget", "Mozilla/5.0"}) {
    if (user_agent.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

}  // namespace stowage
