// DelegatingAuth: authentication and authorization of requests to the secure port, delegated to
// the API server as kube-scheduler does it (k8s.io/apiserver DelegatingAuthenticationOptions and
// DelegatingAuthorizationOptions, filters WithAuthentication and WithAuthorization).
//
// Authentication, first success wins:
//   1. front-proxy headers, when a request-header CA is configured and the client certificate
//      chains to it (see request_header.h);
//   2. the client certificate, verified against the client CA: CN -> user, O -> groups;
//   3. "Authorization: Bearer <token>", checked with a TokenReview (cached; token_authenticator.h)
//      when there is an authentication client;
//   4. otherwise anonymous: system:anonymous in group system:unauthenticated.
// A credential that is presented but fails (certificate that does not verify, rejected token,
// TokenReview that cannot be made) makes the request fail with 401, even though anonymous is
// allowed, unless a later method succeeds. Non-anonymous users get group system:authenticated.
//
// Authorization, first decisive answer wins: a user in always_allow_groups is allowed; an
// always-allowed path is allowed for anyone; then a SubjectAccessReview (cached) with
// nonResourceAttributes {path, verb}, verb being the lower-cased HTTP method ("get", "post",
// "put", "delete", "head", "patch"), as upstream's RequestInfo gives non-resource requests.
// Without an authorization client, or when the review gives no allow, 403; when the review
// fails, 500.
//
// Thread-safe: Check may run on many server threads at once. Start() runs a background thread
// that re-reads the client CA and front-proxy settings every refresh_interval of real time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pkg/auth/authorizer.h"
#include "pkg/auth/options.h"
#include "pkg/auth/request_header.h"
#include "pkg/auth/response.h"
#include "pkg/auth/token_authenticator.h"
#include "pkg/auth/trust_source.h"
#include "pkg/auth/user_info.h"
#include "pkg/client/rest_client.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"

namespace stowage::auth {

// One request as the server received it.
struct Request {
  std::string method;  // "GET"
  std::string target;  // the request target: path and optional query, still %-encoded
  Headers headers;     // all headers (Authorization and any front-proxy headers are read)
  std::vector<std::string> peer_certificates;  // DER, leaf first, as sent in the handshake
};

class DelegatingAuth {
 public:
  // authn_client reviews tokens and reads the ConfigMap; authz_client reviews access. Either
  // may be null (no kubeconfig and not in a cluster): tokens are then ignored (the request is
  // anonymous), respectively every path that is not always allowed is forbidden. The clients
  // must outlive this object; give them upstream's settings (QPS 200, burst 400, 10 s timeout).
  // Fails on a bad always-allow path, an unreadable or malformed CA file, or a failed front-proxy
  // lookup when that is not tolerated. Reads the ConfigMap once, synchronously.
  static StatusOr<std::unique_ptr<DelegatingAuth>> New(const Options& options,
                                                       client::RestClient* authn_client,
                                                       client::RestClient* authz_client,
                                                       Clock& clock = RealClock());
  ~DelegatingAuth();

  // Starts (Stop stops) re-reading the trusted CAs in the background; both are idempotent.
  void Start();
  void Stop();

  Decision Check(const Request& request);
  // The same for a request whose only credentials are these.
  Decision Check(std::string_view method, std::string_view target,
                 std::string_view authorization_header,
                 const std::vector<std::string>& peer_cert_chain_der);

  // The client CA bundle currently trusted (PEM), for a server that advertises acceptable CAs
  // in its certificate request; empty when none.
  std::string ClientCABundle() const;

  // Re-reads the CA files and the ConfigMap now (what the background thread does).
  Status RefreshTrust() { return trust_->Refresh(); }

  // The parts, for tests and metrics.
  TokenAuthenticator* token_authenticator() { return tokens_.get(); }
  SubjectAccessReviewer* access_reviewer() { return reviewer_.get(); }

 private:
  DelegatingAuth(const Options& options, Clock& clock, PathAuthorizer paths,
                 std::unique_ptr<TrustSource> trust);
  // Authentication: OK with the user, or the error that makes the request a 401.
  StatusOr<UserInfo> Authenticate(const Request& request, const TrustSnapshot& trust);
  void Authorize(Decision& d);
  void RefreshLoop();

  const Options options_;
  Clock& clock_;
  const PathAuthorizer paths_;
  std::unique_ptr<TrustSource> trust_;
  std::unique_ptr<TokenAuthenticator> tokens_;       // null without an authentication client
  std::unique_ptr<SubjectAccessReviewer> reviewer_;  // null without an authorization client

  Mutex loop_mu_;
  CondVar loop_cv_;
  bool stopping_ GUARDED_BY(loop_mu_) = false;
  std::thread loop_ GUARDED_BY(loop_mu_);
};

}  // namespace stowage::auth
