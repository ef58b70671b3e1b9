#include "pkg/auth/authorizer.h"

#include "pkg/common/logging.h"

namespace stowage::auth {
namespace {

std::string_view TrimLeadingSlash(std::string_view p) {
  if (!p.empty() && p.front() == '/') p.remove_prefix(1);
  return p;
}

}  // namespace

StatusOr<PathAuthorizer> PathAuthorizer::New(const std::vector<std::string>& paths) {
  PathAuthorizer a;
  for (const auto& raw : paths) {
    std::string_view p = TrimLeadingSlash(raw);
    if (p.empty()) {
      a.exact_.emplace_back();
      continue;
    }
    if (p.substr(0, p.size() - 1).find('*') != std::string_view::npos) {
      return InvalidArgumentError("only trailing * allowed in \"" + std::string(p) + "\"");
    }
    if (p.back() == '*') {
      a.prefixes_.emplace_back(p.substr(0, p.size() - 1));
    } else {
      a.exact_.emplace_back(p);
    }
  }
  return a;
}

bool PathAuthorizer::Allows(std::string_view path) const {
  std::string_view p = TrimLeadingSlash(path);
  for (const auto& e : exact_) {
    if (p == e) return true;
  }
  for (const auto& prefix : prefixes_) {
    if (p.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

SubjectAccessReviewer::SubjectAccessReviewer(client::RestClient& client, Duration allow_ttl,
                                             Duration deny_ttl, Clock& clock,
                                             size_t max_cache_entries)
    : client_(client),
      allow_ttl_(allow_ttl),
      deny_ttl_(deny_ttl),
      cache_(clock, max_cache_entries) {}

AuthzResult SubjectAccessReviewer::Authorize(const UserInfo& user, std::string_view verb,
                                             std::string_view path) {
  // The request body is the key, as upstream keys by the serialized spec: every field that can
  // change the answer is in it, and it holds no secret.
  std::string body = EncodeSubjectAccessReview(user, verb, path);
  Answer answer = [&]() -> Answer {
    if (auto hit = cache_.Get(body)) return *hit;
    return flights_.Do(body, [&]() -> Answer {
      if (auto hit = cache_.Get(body)) return *hit;
      reviews_sent_.fetch_add(1);
      auto sent = client_.Post(kSubjectAccessReviewPath, body);
      if (!sent.ok()) {
        LOG_ERROR("Failed to make webhook authorizer request: {}", sent.status().message());
        // The 500 answer shows this text, as upstream shows client-go's error.
        return Status(sent.status().code(),
                      ClientErrorText(sent.status(), "POST", kSubjectAccessReviewPath));
      }
      auto status = DecodeSubjectAccessReview(*sent);
      if (!status.ok()) return status.status();
      cache_.Set(body, *status, status->allowed ? allow_ttl_ : deny_ttl_);
      return *status;
    });
  }();

  AuthzResult r;
  if (!answer.ok()) {
    r.error = answer.status();
    return r;
  }
  r.reason = answer->reason;
  if (answer->allowed && answer->denied) {
    r.decision = AuthzDecision::kDeny;
    r.error = InternalError("webhook subject access review returned both allow and deny response");
  } else if (answer->denied) {
    r.decision = AuthzDecision::kDeny;
  } else if (answer->allowed) {
    r.decision = AuthzDecision::kAllow;
  }
  return r;
}

}  // namespace stowage::auth
