#include "cmd/stowage/app/secure_port.h"

#include "pkg/client/kubeconfig.h"

namespace stowage::app {
namespace {

// The client of a delegated check: --authentication-kubeconfig / --authorization-kubeconfig, else
// the in-cluster configuration, else none (nullptr; DelegatingAuth warns about what is lost).
StatusOr<std::unique_ptr<client::RestClient>> DelegationClient(const std::string& kubeconfig,
                                                               std::string_view flag,
                                                               Duration timeout) {
  StatusOr<client::RestConfig> rc =
      kubeconfig.empty() ? client::InClusterConfig() : client::LoadKubeconfig(kubeconfig);
  if (!rc.ok()) {
    if (!kubeconfig.empty()) {
      return InvalidArgumentError("--" + std::string(flag) + ": " + rc.status().ToString());
    }
    return std::unique_ptr<client::RestClient>();
  }
  // Upstream's delegating clients: QPS 200, burst 400, the flag's timeout.
  rc->qps = 200;
  rc->burst = 400;
  rc->timeout = timeout;
  rc->user_agent = "stowage/delegated-auth";
  auto c = client::RestClient::New(*rc);
  if (!c.ok()) return c.status();
  return std::move(*c);
}

}  // namespace

server::ServingOptions ServingOptionsFrom(const Options& options) {
  const SecureServingOptions& s = options.secure_serving;
  server::ServingOptions o;
  o.bind_address = s.bind_address;
  o.port = static_cast<uint16_t>(s.bind_port);
  o.cert_file = s.tls_cert_file;
  o.key_file = s.tls_private_key_file;
  o.cert_dir = s.cert_directory;
  o.pair_name = s.pair_name;
  o.min_tls_version = s.min_tls_version;
  o.cipher_suites = s.cipher_suites;
  return o;
}

StatusOr<SecurePortAuth> NewSecurePortAuth(const Options& options) {
  const AuthenticationOptions& an = options.authentication;
  const AuthorizationOptions& az = options.authorization;
  SecurePortAuth out;
  auto authn = DelegationClient(an.remote_kubeconfig_file, "authentication-kubeconfig",
                                an.token_request_timeout);
  if (!authn.ok()) return authn.status();
  out.authn_client = std::move(*authn);
  auto authz =
      DelegationClient(az.remote_kubeconfig_file, "authorization-kubeconfig", az.client_timeout);
  if (!authz.ok()) return authz.status();
  out.authz_client = std::move(*authz);
  auth::Options ao;
  ao.token_cache_ttl = an.cache_ttl;
  ao.client_ca_file = an.client_ca_file;
  ao.request_header.client_ca_file = an.requestheader_client_ca_file;
  ao.request_header.allowed_names = an.requestheader_allowed_names;
  ao.request_header.username_headers = an.requestheader_username_headers;
  ao.request_header.uid_headers = an.requestheader_uid_headers;
  ao.request_header.group_headers = an.requestheader_group_headers;
  ao.request_header.extra_headers_prefix = an.requestheader_extra_headers_prefix;
  ao.skip_in_cluster_lookup = an.skip_in_cluster_lookup;
  ao.tolerate_lookup_failure = an.tolerate_in_cluster_lookup_failure;
  ao.allow_cache_ttl = az.allow_cache_ttl;
  ao.deny_cache_ttl = az.deny_cache_ttl;
  ao.always_allow_paths = az.always_allow_paths;
  ao.always_allow_groups = az.always_allow_groups;
  auto a = auth::DelegatingAuth::New(ao, out.authn_client.get(), out.authz_client.get());
  if (!a.ok()) return a.status();
  out.auth = std::move(*a);
  return out;
}

}  // namespace stowage::app
