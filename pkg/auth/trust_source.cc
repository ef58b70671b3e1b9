#include "pkg/auth/trust_source.h"

#include "pkg/auth/reviews.h"
#include "pkg/client/errors.h"
#include "pkg/common/error_list.h"
#include "pkg/common/file.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::auth {
namespace {

constexpr std::string_view kConfigMapRef =
    "configmap/extension-apiserver-authentication in kube-system";
// upstream's CA content names: purpose::namespace::name::key.
constexpr std::string_view kClientCAName =
    "client-ca::kube-system::extension-apiserver-authentication::client-ca-file";
constexpr std::string_view kProxyCAName =
    "client-ca::kube-system::extension-apiserver-authentication::requestheader-client-ca-file";

}  // namespace

StatusOr<std::unique_ptr<TrustSource>> TrustSource::New(const Options& options,
                                                        client::RestClient* authn_client) {
  std::unique_ptr<TrustSource> src(new TrustSource(authn_client));
  const bool lookup = !options.skip_in_cluster_lookup;

  if (!options.client_ca_file.empty()) {
    src->client_ca_origin_ = Origin::kFile;
    src->client_ca_file_ = options.client_ca_file;
  } else if (lookup && authn_client == nullptr) {
    LOG_WARN(
        "No authentication-kubeconfig provided in order to lookup client-ca-file in {}, "
        "so client certificate authentication won't work.",
        kConfigMapRef);
  } else if (lookup) {
    src->client_ca_origin_ = Origin::kConfigMap;
  }

  const RequestHeaderOptions& rh = options.request_header;
  if (!rh.client_ca_file.empty()) {
    src->proxy_origin_ = Origin::kFile;
    src->proxy_ca_file_ = rh.client_ca_file;
    MutexLock l(src->mu_);
    src->proxy_headers_ =
        RequestHeaderConfig{nullptr,        rh.allowed_names, rh.username_headers,
                            rh.uid_headers, rh.group_headers, rh.extra_headers_prefix};
  } else if (lookup && authn_client == nullptr) {
    LOG_WARN(
        "No authentication-kubeconfig provided in order to lookup "
        "requestheader-client-ca-file in {}, so request-header client certificate "
        "authentication won't work.",
        kConfigMapRef);
  } else if (lookup) {
    src->proxy_origin_ = Origin::kConfigMap;
  }

  // Files named on the command line must be good at startup.
  if (src->client_ca_origin_ == Origin::kFile) {
    auto pem = ReadFile(src->client_ca_file_);
    Status s = pem.ok() ? src->UpdateBundle(&src->client_ca_, *pem,
                                            "client-ca-bundle::" + src->client_ca_file_)
                        : pem.status();
    if (!s.ok()) return s.WithPrefix("unable to load client CA provider");
  }
  if (src->proxy_origin_ == Origin::kFile) {
    auto pem = ReadFile(src->proxy_ca_file_);
    Status s = pem.ok() ? src->UpdateBundle(&src->proxy_ca_, *pem,
                                            "request-header::" + src->proxy_ca_file_)
                        : pem.status();
    if (!s.ok()) return s.WithPrefix("unable to create request header authentication config");
  }

  if (src->in_cluster()) {
    ConfigMapOutcome first = src->RefreshFromConfigMap();
    if (!first.other.ok()) LOG_WARN("Reading {}: {}", kConfigMapRef, first.other.message());
    if (!first.proxy_lookup.ok() && src->proxy_origin_ == Origin::kConfigMap) {
      if (!options.tolerate_lookup_failure) {
        return first.proxy_lookup.WithPrefix(
            "unable to load configmap based request-header-client-ca-file");
      }
      LOG_WARN("Error looking up in-cluster authentication configuration: {}",
               first.proxy_lookup.message());
      LOG_WARN(
          "Continuing without authentication configuration. This may treat all requests "
          "as anonymous.");
      LOG_WARN(
          "To require authentication configuration lookup to succeed, set "
          "--authentication-tolerate-lookup-failure=false");
      src->proxy_origin_ = Origin::kNone;  // as upstream: front-proxy auth stays off
    }
  }
  MutexLock l(src->mu_);
  src->RebuildProxySnapshot();
  return src;
}

TrustSnapshot TrustSource::Current() const {
  MutexLock l(mu_);
  return TrustSnapshot{client_ca_, proxy_snapshot_};
}

void TrustSource::RebuildProxySnapshot() {
  if (proxy_origin_ == Origin::kNone) {
    proxy_snapshot_.reset();
    return;
  }
  auto cfg = std::make_shared<RequestHeaderConfig>(proxy_headers_);
  cfg->ca = proxy_ca_;
  proxy_snapshot_ = std::move(cfg);
}

Status TrustSource::UpdateBundle(std::shared_ptr<const CABundle>* bundle, const std::string& pem,
                                 const std::string& source) {
  {
    MutexLock l(mu_);
    if (*bundle && (*bundle)->pem() == pem) return OkStatus();
  }
  auto parsed = CABundle::Parse(pem, source);
  if (!parsed.ok()) return parsed.status();
  {
    MutexLock l(mu_);
    *bundle = *parsed;
    RebuildProxySnapshot();
  }
  VLOG(2, "Loaded a new CA Bundle and Verifier name={} certificates={}", source, (*parsed)->size());
  return OkStatus();
}

Status TrustSource::RefreshFiles() {
  Status result;
  if (client_ca_origin_ == Origin::kFile) {
    auto pem = ReadFile(client_ca_file_);
    result = JoinStatus(
        result, pem.ok() ? UpdateBundle(&client_ca_, *pem, "client-ca-bundle::" + client_ca_file_)
                         : pem.status());
  }
  if (proxy_origin_ == Origin::kFile) {
    auto pem = ReadFile(proxy_ca_file_);
    result = JoinStatus(
        result, pem.ok() ? UpdateBundle(&proxy_ca_, *pem, "request-header::" + proxy_ca_file_)
                         : pem.status());
  }
  return result;
}

TrustSource::ConfigMapOutcome TrustSource::RefreshFromConfigMap() {
  ConfigMapOutcome out;
  auto body = client_->Get(kAuthenticationConfigMapPath);
  if (!body.ok()) {
    if (client::IsNotFound(body.status())) {
      // Nothing to trust (yet): not a failure, and what was trusted before stays.
      VLOG(2, "configmap \"extension-apiserver-authentication\" not found in kube-system");
      return out;
    }
    if (client::IsForbidden(body.status())) {
      LOG_WARN(
          "Unable to get {}.  Usually fixed by 'kubectl create rolebinding -n kube-system "
          "ROLEBINDING_NAME --role=extension-apiserver-authentication-reader "
          "--serviceaccount=YOUR_NS:YOUR_SA'",
          kConfigMapRef);
    }
    out.proxy_lookup = body.status();
    out.other = body.status();
    return out;
  }
  auto data = DecodeConfigMapData(*body);
  if (!data.ok()) {
    out.proxy_lookup = data.status();
    out.other = data.status();
    return out;
  }
  auto value = [&](const char* key) {
    auto it = data->find(key);
    return it == data->end() ? std::string() : it->second;
  };
  auto load_ca = [&](std::shared_ptr<const CABundle>* bundle, const char* key,
                     std::string_view name) {
    std::string pem = value(key);
    if (pem.empty()) {
      // The API server has no such CA (a cluster without a front proxy, say); keep the last.
      VLOG(2, "missing content for CA bundle \"{}\"", name);
      return OkStatus();
    }
    return UpdateBundle(bundle, pem, std::string(name));
  };
  if (client_ca_origin_ == Origin::kConfigMap) {
    out.other = JoinStatus(out.other, load_ca(&client_ca_, "client-ca-file", kClientCAName));
  }
  if (proxy_origin_ == Origin::kConfigMap) {
    out.other =
        JoinStatus(out.other, load_ca(&proxy_ca_, "requestheader-client-ca-file", kProxyCAName));
    RequestHeaderConfig headers;
    Status s;
    auto list = [&](const char* key, std::vector<std::string>& dst) {
      if (!s.ok()) return;
      auto v = DecodeStringList(value(key));
      if (v.ok()) {
        dst = std::move(*v);
      } else {
        s = v.status().WithPrefix(std::string("ConfigMap key ") + key);
      }
    };
    list("requestheader-username-headers", headers.username_headers);
    list("requestheader-uid-headers", headers.uid_headers);
    list("requestheader-group-headers", headers.group_headers);
    list("requestheader-extra-headers-prefix", headers.extra_headers_prefix);
    list("requestheader-allowed-names", headers.allowed_names);
    if (s.ok()) {
      MutexLock l(mu_);
      proxy_headers_ = std::move(headers);
      RebuildProxySnapshot();
    } else {
      out.proxy_lookup = s;
      out.other = JoinStatus(out.other, s);
    }
  }
  return out;
}

Status TrustSource::Refresh() {
  Status s = RefreshFiles();
  if (in_cluster()) s = JoinStatus(s, RefreshFromConfigMap().other);
  return s;
}

}  // namespace stowage::auth
