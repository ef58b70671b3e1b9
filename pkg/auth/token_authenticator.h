// TokenAuthenticator: bearer tokens checked by the API server through TokenReview, with
// upstream's cache in front (authentication/token/cache): answers are kept for the TTL, positive
// and negative alike, under an HMAC-SHA256 of the token with a key drawn at random when the
// authenticator is made; the token itself is never stored or logged. Errors (the review could
// not be made, or the server said why the token is bad in status.error) are not cached, as
// upstream. Concurrent lookups of one uncached token share a single TokenReview.
//
// Thread-safe. Authenticate blocks for the round trip; the client's timeout bounds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/auth/expiring_cache.h"
#include "pkg/auth/single_flight.h"
#include "pkg/auth/user_info.h"
#include "pkg/client/rest_client.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::auth {

class TokenAuthenticator {
 public:
  TokenAuthenticator(client::RestClient& client, Duration cache_ttl, Clock& clock,
                     size_t max_cache_entries);

  // The user the API server says token belongs to; nullopt when the server does not accept
  // the token and gives no reason; an error when the review failed or the server gave a reason.
  StatusOr<std::optional<UserInfo>> Authenticate(std::string_view token);

  // The cache key of token: 32 bytes of HMAC-SHA256 under this instance's random key.
  std::string CacheKey(std::string_view token) const;

  // Reviews actually sent to the API server, for tests and logs.
  uint64_t reviews_sent() const { return reviews_sent_.load(); }

 private:
  using Result = StatusOr<std::optional<UserInfo>>;
  Result Review(std::string_view token);

  client::RestClient& client_;
  const Duration ttl_;
  std::string hmac_key_;
  ExpiringCache<std::optional<UserInfo>> cache_;
  SingleFlight<Result> flights_;
  std::atomic<uint64_t> reviews_sent_{0};
};

}  // namespace stowage::auth
