// Decision: the outcome of authenticating and authorizing one request to the secure port, and
// the answer upstream's filters write when it is not an allow, byte for byte:
//   401  application/json   metav1.Status reason Unauthorized, message "Unauthorized"
//   403  application/json   metav1.Status reason Forbidden, message
//                           `forbidden: User "<name>" cannot <verb> path "<path>"[: <reason>]`
//   500  text/plain         `Internal Server Error: "<request-uri>": <error>`
//   400  text/plain         `400 Bad Request` (a request target Go's server would not parse)
// The JSON bodies are compact and end with a newline, or are indented by two spaces without a
// final newline when upstream would pretty-print (see negotiation.h); the text bodies end with a
// newline. 403 and 500 answers also carry "X-Content-Type-Options: nosniff". Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pkg/auth/user_info.h"

namespace stowage::auth {

// How a JSON Status body is laid out: Go's json.Encoder (compact, newline) or
// json.MarshalIndent with two spaces (no newline).
enum class BodyFormat : uint8_t { kCompact, kPretty };

struct Decision {
  // 200 allow (serve the request), 400, 401, 403 or 500.
  int http_status = 200;
  // Who the request was authenticated as (anonymous included); empty for 400 and 401.
  UserInfo user;
  // 403: the authorizers' reasons, joined by newlines (often empty). 400, 401 and 500: what
  // went wrong, for the log (401 answers do not reveal it).
  std::string reason;
  // The authorization attributes: verb (the lower-cased HTTP method) and the decoded path.
  std::string verb;
  std::string path;
  // The request target as received, quoted in 500 answers.
  std::string request_uri;
  // The layout of a 401 or 403 body, negotiated from the request as upstream does.
  BodyFormat format = BodyFormat::kCompact;

  bool allowed() const { return http_status == 200; }
};

// The body to send for a denied request (empty for an allowed one).
std::string ResponseBody(const Decision& d);
// Its Content-Type.
std::string_view ResponseContentType(const Decision& d);
// Whether to add "X-Content-Type-Options: nosniff".
bool ResponseNoSniff(const Decision& d);

}  // namespace stowage::auth
