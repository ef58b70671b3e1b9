// TrustSource: what client-certificate and front-proxy authentication trust, and where it comes
// from, as upstream's DelegatingAuthenticationOptions.ApplyTo decides it:
//   * the client CA from --client-ca-file, else (unless skip_in_cluster_lookup) from ConfigMap
//     kube-system/extension-apiserver-authentication, key client-ca-file;
//   * the front-proxy CA and headers from the --requestheader-* options when
//     --requestheader-client-ca-file is set, else (unless skip_in_cluster_lookup) from the same
//     ConfigMap's requestheader-* keys.
// The ConfigMap is read with the authentication client; without one, the in-cluster sources are
// off (with upstream's warnings). Everything is read again on Refresh(); a source that fails
// keeps its last good value, as upstream's dynamic CA controllers do; so does a CA whose
// ConfigMap or key is missing (nothing is trusted until one appears).
//
// Startup (New) fails when a CA file is unreadable or malformed, and when the first read of
// the front-proxy settings from the ConfigMap fails with tolerate_lookup_failure off. With it
// on, that failure is logged and front-proxy authentication stays off for the process's life,
// as upstream. A missing ConfigMap or key only means "nothing trusted yet".
//
// Thread-safe: Current() may be called from any thread while another runs Refresh().
#pragma once

#include <memory>
#include <string>

#include "pkg/auth/options.h"
#include "pkg/auth/request_header.h"
#include "pkg/auth/x509.h"
#include "pkg/client/rest_client.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::auth {

struct TrustSnapshot {
  std::shared_ptr<const CABundle> client_ca;  // null: client certificates are not looked at
  // null: front-proxy authentication is off (not configured, or its lookup failed).
  std::shared_ptr<const RequestHeaderConfig> request_header;
};

class TrustSource {
 public:
  static StatusOr<std::unique_ptr<TrustSource>> New(const Options& options,
                                                    client::RestClient* authn_client);

  TrustSnapshot Current() const;

  // Reads the files and the ConfigMap again and installs what changed. Returns the problems
  // met (already logged); the previous values stay in place for the sources that failed.
  Status Refresh();

  // Whether anything is read again on Refresh (some file or the ConfigMap is in use).
  bool dynamic() const {
    return !client_ca_file_.empty() || !proxy_ca_file_.empty() || in_cluster();
  }

 private:
  enum class Origin { kNone, kFile, kConfigMap };
  explicit TrustSource(client::RestClient* client) : client_(client) {}
  bool in_cluster() const {
    return client_ca_origin_ == Origin::kConfigMap || proxy_origin_ == Origin::kConfigMap;
  }
  // Installs pem as *bundle unless unchanged.
  Status UpdateBundle(std::shared_ptr<const CABundle>* bundle, const std::string& pem,
                      const std::string& source);
  Status RefreshFiles();
  // What reading the ConfigMap went wrong with: proxy_lookup is what upstream's first lookup of
  // the front-proxy settings treats as a failure; other is everything else (logged only).
  struct ConfigMapOutcome {
    Status proxy_lookup;
    Status other;
  };
  ConfigMapOutcome RefreshFromConfigMap();
  void RebuildProxySnapshot() REQUIRES(mu_);

  client::RestClient* client_;
  Origin client_ca_origin_ = Origin::kNone;
  Origin proxy_origin_ = Origin::kNone;
  std::string client_ca_file_;
  std::string proxy_ca_file_;

  mutable Mutex mu_;
  std::shared_ptr<const CABundle> client_ca_ GUARDED_BY(mu_);
  std::shared_ptr<const CABundle> proxy_ca_ GUARDED_BY(mu_);
  RequestHeaderConfig proxy_headers_ GUARDED_BY(mu_);  // ca unused; the headers and names
  std::shared_ptr<const RequestHeaderConfig> proxy_snapshot_ GUARDED_BY(mu_);
};

}  // namespace stowage::auth
