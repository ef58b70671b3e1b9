// Options of delegated authentication and authorization on the secure port: the settings of
// upstream's DelegatingAuthenticationOptions and DelegatingAuthorizationOptions that matter once
// the kubeconfigs have become clients (cmd/stowage/app/options.h AuthenticationOptions and
// AuthorizationOptions map onto these field by field). Plain data.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "stowage/common/clock.h"

namespace stowage::auth {

// Front-proxy (request-header) authentication: a proxy presenting a client certificate signed by
// client_ca_file, with a CN among allowed_names (any CN when empty), asserts the user in headers.
// With client_ca_file empty the settings come from the cluster (see Options).
struct RequestHeaderOptions {
  std::string client_ca_file;              // --requestheader-client-ca-file
  std::vector<std::string> allowed_names;  // --requestheader-allowed-names
  std::vector<std::string> username_headers = {"x-remote-user"};
  std::vector<std::string> uid_headers;  // --requestheader-uid-headers
  std::vector<std::string> group_headers = {"x-remote-group"};
  std::vector<std::string> extra_headers_prefix = {"x-remote-extra-"};
};

struct Options {
  // --- authentication ---
  // How long TokenReview answers are kept, positive and negative alike
  // (--authentication-token-webhook-cache-ttl). 0 disables the cache.
  Duration token_cache_ttl = std::chrono::seconds(10);
  // --client-ca-file: PEM bundle of the CAs whose client certificates authenticate (CN = user,
  // O = groups). Empty: the bundle is read from ConfigMap
  // kube-system/extension-apiserver-authentication, key client-ca-file, unless
  // skip_in_cluster_lookup.
  std::string client_ca_file;
  RequestHeaderOptions request_header;
  // --authentication-skip-lookup: never read the ConfigMap above.
  bool skip_in_cluster_lookup = false;
  // --authentication-tolerate-lookup-failure: a failed first read of the request-header settings
  // from the ConfigMap is logged instead of failing startup (kube-scheduler's default is true).
  bool tolerate_lookup_failure = true;

  // --- authorization ---
  // How long SubjectAccessReview answers are kept (--authorization-webhook-cache-authorized-ttl
  // and ...-unauthorized-ttl). 0 disables caching of that kind of answer.
  Duration allow_cache_ttl = std::chrono::seconds(10);
  Duration deny_cache_ttl = std::chrono::seconds(10);
  // --authorization-always-allow-paths: allowed for everyone, anonymous included, without a
  // review. A trailing '*' makes a prefix ("/debug/*"); '*' anywhere else is an error.
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  // Users in any of these groups are allowed everything without a review.
  std::vector<std::string> always_allow_groups = {"system:masters"};

  // --- tuning without flags ---
  // How often the CA files and the ConfigMap are read again (upstream: about once a minute).
  Duration refresh_interval = std::chrono::minutes(1);
  // Upper bound on cached answers of each cache; the least recently used go first.
  size_t max_cache_entries = 8192;
};

}  // namespace stowage::auth
