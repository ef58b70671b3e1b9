#include "pkg/auth/request_header.h"

#include <algorithm>

#include "pkg/common/macros.h"

namespace stowage::auth {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualFold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return Lower(x) == Lower(y); });
}

bool HasPrefixFold(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualFold(s.substr(0, prefix.size()), prefix);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// url.PathUnescape, keeping the input when an escape is malformed (upstream records the key
// either way).
std::string UnescapeExtraKey(const std::string& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') {
      out += key[i];
      continue;
    }
    int hi = i + 1 < key.size() ? HexValue(key[i + 1]) : -1;
    int lo = i + 2 < key.size() ? HexValue(key[i + 2]) : -1;
    if (hi < 0 || lo < 0) return key;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// The first value of the first listed header that has a non-empty first value.
std::string FirstValue(const Headers& headers, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    for (const auto& [k, v] : headers) {
      if (!EqualFold(k, name)) continue;
      if (!v.empty()) return v;
      break;  // only the first line of a header counts, as http.Header.Get
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> HeaderValues(const Headers& headers, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : headers) {
    if (EqualFold(k, name)) out.push_back(v);
  }
  return out;
}

StatusOr<std::optional<UserInfo>> AuthenticateRequestHeader(
    const RequestHeaderConfig& config, const std::vector<std::string>& chain_der,
    const Headers& headers, WallTime now) {
  if (chain_der.empty() || config.ca == nullptr) return std::optional<UserInfo>();
  RETURN_IF_ERROR(config.ca->VerifyClientChain(chain_der, now));
  if (!config.allowed_names.empty()) {
    ASSIGN_OR_RETURN(CertificateSubject subject, ParseCertificateSubject(chain_der[0]));
    bool allowed = std::find(config.allowed_names.begin(), config.allowed_names.end(),
                             subject.common_name) != config.allowed_names.end();
    if (!allowed) {
      return UnauthenticatedError("x509: subject with cn=" + subject.common_name +
                                  " is not in the allowed list");
    }
  }
  UserInfo u;
  u.name = FirstValue(headers, config.username_headers);
  if (u.name.empty()) return std::optional<UserInfo>();
  u.uid = FirstValue(headers, config.uid_headers);
  for (const auto& name : config.group_headers) {
    for (auto& v : HeaderValues(headers, name)) {
      if (!v.empty()) u.groups.push_back(std::move(v));
    }
  }
  for (const auto& prefix : config.extra_headers_prefix) {
    for (const auto& [k, v] : headers) {
      if (!HasPrefixFold(k, prefix)) continue;
      std::string key = k.substr(prefix.size());
      std::transform(key.begin(), key.end(), key.begin(), Lower);
      u.extra[UnescapeExtraKey(key)].push_back(v);
    }
  }
  return std::optional<UserInfo>(std::move(u));
}

}  // namespace stowage::auth
