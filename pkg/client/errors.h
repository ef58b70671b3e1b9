// How API errors surface: every non-2xx answer becomes a Status whose code tells the class of
// failure and whose message carries the HTTP status, the verb and path, and the server's own
// message. Callers branch with the Is* predicates, never by parsing messages.
//
//   HTTP 400 -> kInvalidArgument      HTTP 409 Conflict      -> kAborted      (IsConflict)
//   HTTP 401 -> kUnauthenticated      HTTP 409 AlreadyExists -> kAlreadyExists
//   HTTP 403 -> kPermissionDenied     HTTP 410 Gone          -> kOutOfRange    (IsGone)
//   HTTP 404 -> kNotFound             HTTP 429               -> kResourceExhausted
//   HTTP 5xx -> kUnavailable (IsServerError); 504 and client timeouts -> kDeadlineExceeded
#pragma once

#include <string_view>

#include "pkg/api/decode.h"
#include "stowage/common/status.h"

namespace stowage::client {

// Builds the Status for a response with the given HTTP code and body.
Status HttpError(std::string_view method, std::string_view path, int http_code,
                 std::string_view body);
// The same for an ERROR event inside a watch stream (its object is a Status).
Status WatchError(std::string_view path, const api::ApiStatus& status);

inline bool IsNotFound(const Status& s) { return s.code() == StatusCode::kNotFound; }
inline bool IsConflict(const Status& s) { return s.code() == StatusCode::kAborted; }
inline bool IsAlreadyExists(const Status& s) { return s.code() == StatusCode::kAlreadyExists; }
inline bool IsGone(const Status& s) { return s.code() == StatusCode::kOutOfRange; }
inline bool IsForbidden(const Status& s) { return s.code() == StatusCode::kPermissionDenied; }
inline bool IsUnauthorized(const Status& s) { return s.code() == StatusCode::kUnauthenticated; }
inline bool IsTooManyRequests(const Status& s) {
  return s.code() == StatusCode::kResourceExhausted;
}
inline bool IsServerError(const Status& s) { return s.code() == StatusCode::kUnavailable; }

}  // namespace stowage::client
