// UserInfo: who a request to the secure port was authenticated as, in the shape of upstream's
// user.Info (name, UID, groups, extra). Plain data; the well-known names below are upstream's.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stowage::auth {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  friend bool operator==(const UserInfo&, const UserInfo&) = default;
};

// The identity given to requests that present no credentials.
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
// The group of every anonymous request.
inline constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";
// The group added to every authenticated, non-anonymous user.
inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
// The extra key under which a client certificate's fingerprint ("X509SHA256=<hex>") is recorded.
inline constexpr std::string_view kCredentialIdKey = "authentication.kubernetes.io/credential-id";

}  // namespace stowage::auth
