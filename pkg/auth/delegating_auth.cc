#include "pkg/auth/delegating_auth.h"

#include <algorithm>

#include "pkg/auth/negotiation.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::auth {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The URL path of a request target, %-decoded, as Go's url.ParseRequestURI gives req.URL.Path.
StatusOr<std::string> DecodePath(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {  // absolute-form targets
    if (target.substr(0, scheme.size()) == scheme) {
      target.remove_prefix(scheme.size());
      size_t slash = target.find('/');
      target = slash == std::string_view::npos ? std::string_view() : target.substr(slash);
    }
  }
  target = target.substr(0, target.find('?'));
  std::string out;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] != '%') {
      out += target[i];
      continue;
    }
    int hi = i + 1 < target.size() ? Hex(target[i + 1]) : -1;
    int lo = i + 2 < target.size() ? Hex(target[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return InvalidArgumentError("invalid URL escape in request target \"" +
                                  std::string(target.substr(i, 3)) + "\"");
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// upstream's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets.
std::string Aggregate(const std::vector<std::string>& msgs) {
  std::vector<std::string> unique;
  for (const auto& m : msgs) {
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  }
  if (unique.size() == 1) return unique[0];
  std::string out = "[";
  for (size_t i = 0; i < unique.size(); ++i) out += (i ? ", " : "") + unique[i];
  return out + "]";
}

// upstream's AuthenticatedGroupAdder.
UserInfo WithAuthenticatedGroup(UserInfo u) {
  if (u.name == kAnonymousUser) return u;
  for (const auto& g : u.groups) {
    if (g == kAllAuthenticated || g == kAllUnauthenticated) return u;
  }
  u.groups.emplace_back(kAllAuthenticated);
  return u;
}

// The first value of header `lower_name` ("" when absent), as http.Header.Get.
std::string_view FirstHeader(const Headers& headers, std::string_view lower_name) {
  for (const auto& [k, v] : headers) {
    if (Lower(k) == lower_name) return v;
  }
  return {};
}

// The token of "Authorization: Bearer <token>", or "" when the header holds none; parsed as
// upstream's bearertoken authenticator (scheme case-insensitive, a single space before it).
std::string_view BearerToken(const Headers& headers) {
  std::string_view auth = TrimSpace(FirstHeader(headers, "authorization"));
  size_t sp = auth.find(' ');
  if (sp == std::string_view::npos || Lower(auth.substr(0, sp)) != "bearer") return {};
  std::string_view rest = auth.substr(sp + 1);
  return rest.substr(0, rest.find(' '));
}

}  // namespace

StatusOr<std::unique_ptr<DelegatingAuth>> DelegatingAuth::New(const Options& options,
                                                              client::RestClient* authn_client,
                                                              client::RestClient* authz_client,
                                                              Clock& clock) {
  auto paths = PathAuthorizer::New(options.always_allow_paths);
  if (!paths.ok()) return paths.status().WithPrefix("--authorization-always-allow-paths");
  auto trust = TrustSource::New(options, authn_client);
  if (!trust.ok()) return trust.status();
  std::unique_ptr<DelegatingAuth> a(
      new DelegatingAuth(options, clock, std::move(*paths), std::move(*trust)));
  if (authn_client != nullptr) {
    a->tokens_ = std::make_unique<TokenAuthenticator>(*authn_client, options.token_cache_ttl, clock,
                                                      options.max_cache_entries);
  }
  if (authz_client != nullptr) {
    a->reviewer_ = std::make_unique<SubjectAccessReviewer>(*authz_client, options.allow_cache_ttl,
                                                           options.deny_cache_ttl, clock,
                                                           options.max_cache_entries);
  } else {
    LOG_WARN(
        "No authorization-kubeconfig provided, so SubjectAccessReview of authorization "
        "tokens won't work.");
  }
  return a;
}

DelegatingAuth::DelegatingAuth(const Options& options, Clock& clock, PathAuthorizer paths,
                               std::unique_ptr<TrustSource> trust)
    : options_(options), clock_(clock), paths_(std::move(paths)), trust_(std::move(trust)) {}

DelegatingAuth::~DelegatingAuth() { Stop(); }

void DelegatingAuth::Start() {
  MutexLock l(loop_mu_);
  if (loop_.joinable() || !trust_->dynamic()) return;
  stopping_ = false;
  loop_ = std::thread([this] { RefreshLoop(); });
}

void DelegatingAuth::Stop() {
  std::thread t;
  {
    MutexLock l(loop_mu_);
    stopping_ = true;
    t = std::move(loop_);
  }
  loop_cv_.SignalAll();
  if (t.joinable()) t.join();
}

void DelegatingAuth::RefreshLoop() {
  std::string last_problem;
  MutexLock l(loop_mu_);
  while (true) {
    const MonoTime deadline = std::chrono::steady_clock::now() + options_.refresh_interval;
    while (!stopping_ && loop_cv_.WaitUntil(loop_mu_, deadline)) {
    }
    if (stopping_) return;
    loop_mu_.Unlock();
    Status s = trust_->Refresh();
    // A source that stays broken is reported once, not every minute.
    std::string problem(s.message());
    if (problem != last_problem && !s.ok()) {
      LOG_WARN("Refreshing the trusted client CAs: {}", problem);
    }
    last_problem = problem;
    loop_mu_.Lock();
  }
}

std::string DelegatingAuth::ClientCABundle() const {
  auto ca = trust_->Current().client_ca;
  return ca ? ca->pem() : std::string();
}

Decision DelegatingAuth::Check(std::string_view method, std::string_view target,
                               std::string_view authorization_header,
                               const std::vector<std::string>& peer_cert_chain_der) {
  Request r{std::string(method), std::string(target), {}, peer_cert_chain_der};
  if (!authorization_header.empty()) {
    r.headers.emplace_back("Authorization", std::string(authorization_header));
  }
  return Check(r);
}

Decision DelegatingAuth::Check(const Request& request) {
  Decision d;
  d.request_uri = request.target;
  d.verb = Lower(request.method);
  auto path = DecodePath(request.target);
  if (!path.ok()) {
    d.http_status = 400;
    d.reason = std::string(path.status().message());
    return d;
  }
  d.path = std::move(*path);
  size_t q = request.target.find('?');
  d.format = NegotiateStatusFormat(
      FirstHeader(request.headers, "accept"), FirstHeader(request.headers, "user-agent"),
      q == std::string::npos ? std::string_view() : std::string_view(request.target).substr(q + 1));
  auto user = Authenticate(request, trust_->Current());
  if (!user.ok()) {
    d.http_status = 401;
    d.reason = std::string(user.status().message());
    LOG_ERROR("Unable to authenticate the request: {}", d.reason);
    return d;
  }
  d.user = std::move(*user);
  Authorize(d);
  return d;
}

StatusOr<UserInfo> DelegatingAuth::Authenticate(const Request& request,
                                                const TrustSnapshot& trust) {
  std::vector<std::string> errors;
  // One step of upstream's union: a user ends it, an error is remembered and the next tried.
  auto step = [&](StatusOr<std::optional<UserInfo>> r) -> std::optional<UserInfo> {
    if (!r.ok()) {
      errors.emplace_back(r.status().message());
      return std::nullopt;
    }
    return std::move(*r);
  };
  const WallTime now = clock_.WallNow();
  if (trust.request_header) {
    auto u = step(AuthenticateRequestHeader(*trust.request_header, request.peer_certificates,
                                            request.headers, now));
    if (u) return WithAuthenticatedGroup(std::move(*u));
  }
  auto u =
      step(AuthenticateClientCertificate(trust.client_ca.get(), request.peer_certificates, now));
  if (u) return WithAuthenticatedGroup(std::move(*u));
  if (tokens_) {
    std::string_view token = BearerToken(request.headers);
    if (!token.empty()) {
      auto r = tokens_->Authenticate(token);
      if (r.ok() && !r->has_value()) r = UnauthenticatedError("invalid bearer token");
      u = step(std::move(r));
      if (u) return WithAuthenticatedGroup(std::move(*u));
    }
  }
  if (!errors.empty()) return UnauthenticatedError(Aggregate(errors));
  return UserInfo{std::string(kAnonymousUser), "", {std::string(kAllUnauthenticated)}, {}};
}

void DelegatingAuth::Authorize(Decision& d) {
  for (const auto& g : d.user.groups) {
    if (std::find(options_.always_allow_groups.begin(), options_.always_allow_groups.end(), g) !=
        options_.always_allow_groups.end()) {
      return;  // allowed
    }
  }
  if (paths_.Allows(d.path)) return;
  if (!reviewer_) {
    d.http_status = 403;
    return;
  }
  AuthzResult r = reviewer_->Authorize(d.user, d.verb, d.path);
  if (r.decision == AuthzDecision::kAllow) return;
  d.reason = r.reason;
  // When no authorizer decides, upstream's union authorizer (since 1.37) names the one that
  // gave each reason; a deny passes its reason through as it is.
  if (r.decision == AuthzDecision::kNoOpinion && !d.reason.empty()) {
    d.reason = std::string(kWebhookAuthorizerName) + ": " + d.reason;
  }
  if (!r.error.ok()) {
    d.http_status = 500;
    d.reason = std::string(r.error.message());
    return;
  }
  d.http_status = 403;
}

}  // namespace stowage::auth
