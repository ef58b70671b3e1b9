// The secure port's settings from kube-scheduler's flags: ServingOptions from --bind-address,
// --secure-port and --tls-*, and delegated auth from --authentication-* / --authorization-* /
// --client-ca-file, with the clients for TokenReview and SubjectAccessReview built from their
// kubeconfigs (or the in-cluster configuration) with upstream's client settings.
#pragma once

#include <memory>

#include "cmd/stowage/app/options.h"
#include "pkg/auth/delegating_auth.h"
#include "pkg/client/rest_client.h"
#include "pkg/server/serving_options.h"

namespace stowage::app {

server::ServingOptions ServingOptionsFrom(const Options& options);

// Delegated auth and the clients it uses (kept alive together).
struct SecurePortAuth {
  std::shared_ptr<client::RestClient> authn_client;  // null: tokens are not reviewed
  std::shared_ptr<client::RestClient> authz_client;  // null: only always-allowed paths/groups
  std::shared_ptr<auth::DelegatingAuth> auth;
};

// Builds the auth stack. A missing kubeconfig outside a cluster is not an error (upstream warns
// and carries on with the corresponding method disabled); an unreadable one is.
StatusOr<SecurePortAuth> NewSecurePortAuth(const Options& options);

}  // namespace stowage::app
