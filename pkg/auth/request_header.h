// Front-proxy (request-header) authentication, upstream's headerrequest authenticator behind its
// x509 Verifier: a client certificate that chains to the request-header CA, and whose CN is among
// the allowed names (any CN when the list is empty), lets the proxy assert the user in headers:
//   name   = the first non-empty value among the username headers (none: does not apply),
//   uid    = likewise among the UID headers,
//   groups = every non-empty value of every group header,
//   extra  = for each header starting with an extra prefix (case-insensitive), key = the rest of
//            the header name, lower-cased and %-decoded, values appended.
// Header names compare case-insensitively, as HTTP's do. Thread-safe (pure functions).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/auth/user_info.h"
#include "pkg/auth/x509.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::auth {

// Request headers as received: (name, value) in order, a header repeated once per line.
using Headers = std::vector<std::pair<std::string, std::string>>;

struct RequestHeaderConfig {
  std::shared_ptr<const CABundle> ca;  // null: front-proxy authentication does not apply
  std::vector<std::string> allowed_names;
  std::vector<std::string> username_headers;
  std::vector<std::string> uid_headers;
  std::vector<std::string> group_headers;
  std::vector<std::string> extra_headers_prefix;
};

// nullopt when there is no certificate or CA, or no username header; an error when the
// certificate does not verify against the request-header CA or its CN is not allowed.
StatusOr<std::optional<UserInfo>> AuthenticateRequestHeader(
    const RequestHeaderConfig& config, const std::vector<std::string>& chain_der,
    const Headers& headers, WallTime now);

// The values of header `name` (case-insensitive), in order.
std::vector<std::string> HeaderValues(const Headers& headers, std::string_view name);

}  // namespace stowage::auth
