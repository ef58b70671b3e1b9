// The authorizers of delegated authorization, as upstream's DelegatingAuthorizationOptions
// chains them: always-allowed paths, and SubjectAccessReview against the API server with a cache
// of its answers. (The always-allowed groups are a plain membership test in DelegatingAuth.)
//
// Decisions follow upstream's authorizer.Decision: kAllow and kDeny end the chain; kNoOpinion
// lets the next authorizer decide, and when none is left the request is forbidden. An error
// with no allow makes the request fail with 500.
//
// Both classes are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/auth/expiring_cache.h"
#include "pkg/auth/reviews.h"
#include "pkg/auth/single_flight.h"
#include "pkg/auth/user_info.h"
#include "pkg/client/rest_client.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::auth {

enum class AuthzDecision { kNoOpinion, kAllow, kDeny };

// The name upstream's union authorizer gives the SubjectAccessReview authorizer.
inline constexpr std::string_view kWebhookAuthorizerName = "kubernetes.io/webhook";

struct AuthzResult {
  AuthzDecision decision = AuthzDecision::kNoOpinion;
  std::string reason;  // the reviewer's explanation, shown in the 403 message
  Status error;        // the review could not be made
};

// --authorization-always-allow-paths: exact paths, or prefixes written with a trailing '*'.
// Leading slashes are ignored on both sides, so "healthz" and "/healthz" are the same entry.
class PathAuthorizer {
 public:
  // Fails on a '*' that is not the last character.
  static StatusOr<PathAuthorizer> New(const std::vector<std::string>& paths);
  bool Allows(std::string_view path) const;

 private:
  std::vector<std::string> exact_;
  std::vector<std::string> prefixes_;
};

// Asks the API server whether a user may use a verb on a non-resource path. Allowed answers are
// cached for allow_ttl, others for deny_ttl, keyed by the whole review (user, groups, uid,
// extra, path, verb); failures are not cached. Concurrent identical reviews are sent once.
class SubjectAccessReviewer {
 public:
  SubjectAccessReviewer(client::RestClient& client, Duration allow_ttl, Duration deny_ttl,
                        Clock& clock, size_t max_cache_entries);

  AuthzResult Authorize(const UserInfo& user, std::string_view verb, std::string_view path);

  // Reviews actually sent to the API server, for tests.
  uint64_t reviews_sent() const { return reviews_sent_.load(); }

 private:
  using Answer = StatusOr<SubjectAccessReviewStatus>;

  client::RestClient& client_;
  const Duration allow_ttl_;
  const Duration deny_ttl_;
  ExpiringCache<SubjectAccessReviewStatus> cache_;
  SingleFlight<Answer> flights_;
  std::atomic<uint64_t> reviews_sent_{0};
};

}  // namespace stowage::auth
