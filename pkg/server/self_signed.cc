// Certificate generation with OpenSSL 3's EVP and X509 APIs.
#include "pkg/server/self_signed.h"

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdint>
#include <ctime>

#include "pkg/server/openssl_util.h"

namespace stowage::server {
namespace {

using internal::BioPtr;
using internal::DrainOpenSslErrors;
using internal::PkeyPtr;
using internal::X509ExtPtr;
using internal::X509Ptr;

bool IsIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

bool IsUnspecified(std::string_view ip) { return ip == "0.0.0.0" || ip == "::" || ip.empty(); }

void AddUnique(std::vector<std::string>& v, std::string s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

// A uniformly random serial in [1, 2^63-1), as client-go draws it.
Status SetRandomSerial(X509* cert) {
  uint64_t r = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&r), sizeof(r)) != 1) {
    return InternalError("generating a certificate serial: " + DrainOpenSslErrors());
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX) - 1;
  uint64_t serial = r % kMax + 1;
  if (ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serial) != 1) {
    return InternalError("setting a certificate serial: " + DrainOpenSslErrors());
  }
  return OkStatus();
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return InternalError("adding certificate extension " + std::string(OBJ_nid2sn(nid)) + "=" +
                         value + ": " + DrainOpenSslErrors());
  }
  return OkStatus();
}

// A certificate with subject CN=common_name, issued by issuer (itself when null), valid over
// [not_before, not_before + max_age].
StatusOr<X509Ptr> NewCertificate(const std::string& common_name, EVP_PKEY* key, X509* issuer,
                                 time_t not_before, std::chrono::seconds max_age) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1) {
    return InternalError("allocating a certificate: " + DrainOpenSslErrors());
  }
  Status s = SetRandomSerial(cert.get());
  if (!s.ok()) return s;
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                 -1, 0) != 1 ||
      X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name) != 1 ||
      ASN1_TIME_set(X509_getm_notBefore(cert.get()), not_before) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), not_before + max_age.count()) == nullptr ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return InternalError("filling certificate " + common_name + ": " + DrainOpenSslErrors());
  }
  return cert;
}

std::string Pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return internal::BioContents(bio.get());
}

}  // namespace

SelfSignedOptions SelfSignedOptionsForBindAddress(std::string_view bind_address) {
  SelfSignedOptions o;
  o.host = "localhost";
  o.alternate_ips = {"127.0.0.1"};
  if (IsUnspecified(bind_address)) {
    AddUnique(o.alternate_dns, "localhost");
  } else {
    AddUnique(o.alternate_ips, std::string(bind_address));
  }
  return o;
}

StatusOr<CertKeyPem> GenerateSelfSignedCertKey(const SelfSignedOptions& options) {
  const time_t now = std::time(nullptr);
  const time_t valid_from = now - 3600;  // an hour early, against clock skew (as client-go)
  PkeyPtr ca_key(EVP_RSA_gen(2048));
  PkeyPtr key(EVP_RSA_gen(2048));
  if (!ca_key || !key) return InternalError("generating RSA keys: " + DrainOpenSslErrors());

  auto ca = NewCertificate(options.host + "-ca@" + std::to_string(now), ca_key.get(), nullptr,
                           valid_from, options.max_age);
  if (!ca.ok()) return ca.status();
  X509* ca_cert = ca->get();
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
        std::pair{NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign"},
        std::pair{NID_subject_key_identifier, "hash"}}) {
    Status s = AddExtension(ca_cert, ca_cert, nid, value);
    if (!s.ok()) return s;
  }
  if (X509_sign(ca_cert, ca_key.get(), EVP_sha256()) <= 0) {
    return InternalError("signing the self-signed CA: " + DrainOpenSslErrors());
  }

  auto leaf = NewCertificate(options.host + "@" + std::to_string(now), key.get(), ca_cert,
                             valid_from, options.max_age);
  if (!leaf.ok()) return leaf.status();
  std::vector<std::string> dns, ips;
  (IsIp(options.host) ? ips : dns).push_back(options.host);
  for (const auto& ip : options.alternate_ips) {
    if (!IsIp(ip))
      return InvalidArgumentError("self-signed certificate: \"" + ip + "\" is not an IP");
    AddUnique(ips, ip);
  }
  for (const auto& d : options.alternate_dns) AddUnique(dns, d);
  std::string san;
  for (const auto& d : dns) san += (san.empty() ? "DNS:" : ",DNS:") + d;
  for (const auto& ip : ips) san += (san.empty() ? "IP:" : ",IP:") + ip;
  X509* leaf_cert = leaf->get();
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, std::string("critical,CA:FALSE")},
        std::pair{NID_key_usage, std::string("critical,digitalSignature,keyEncipherment")},
        std::pair{NID_ext_key_usage, std::string("serverAuth")},
        std::pair{NID_authority_key_identifier, std::string("keyid:always")},
        std::pair{NID_subject_alt_name, san}}) {
    Status s = AddExtension(leaf_cert, ca_cert, nid, value);
    if (!s.ok()) return s;
  }
  if (X509_sign(leaf_cert, ca_key.get(), EVP_sha256()) <= 0) {
    return InternalError("signing the self-signed serving certificate: " + DrainOpenSslErrors());
  }

  CertKeyPem out;
  out.cert_pem = Pem(leaf_cert) + Pem(ca_cert);
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return InternalError("encoding the serving key: " + DrainOpenSslErrors());
  }
  out.key_pem = internal::BioContents(bio.get());
  return out;
}

}  // namespace stowage::server
