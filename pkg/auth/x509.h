// Client-certificate authentication: a bundle of trusted CAs, verification of the chain a client
// presented in the TLS handshake, and upstream's CommonNameUserConversion (CN -> user name,
// O -> groups, subject UID -> uid, certificate fingerprint -> extra credential id).
//
// Verification follows Go's x509.Certificate.Verify as upstream calls it: the leaf must chain
// to a certificate of the bundle (every bundle certificate is a trust anchor, self-signed or not)
// through the intermediates the client sent, be within its validity period at the time given,
// and allow client authentication (extended key usage clientAuth, or none at all). The TLS
// layer only collects the chain; this is where it is judged.
//
// CABundle is immutable once parsed and safe to use from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/auth/user_info.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::auth {

class CABundle {
 public:
  // Parses a PEM bundle; blocks other than CERTIFICATE are skipped. Fails when a certificate
  // does not parse or there is none; source ("file \"/etc/ca.crt\"") prefixes the error.
  static StatusOr<std::shared_ptr<const CABundle>> Parse(std::string_view pem,
                                                         std::string_view source);
  ~CABundle();
  CABundle(const CABundle&) = delete;
  CABundle& operator=(const CABundle&) = delete;

  // The PEM text it was parsed from (compared on refresh to skip unchanged bundles).
  const std::string& pem() const { return pem_; }
  // Where it came from, for logs.
  const std::string& source() const { return source_; }
  // How many CA certificates it holds.
  size_t size() const { return count_; }

  // Checks that chain_der (DER certificates, leaf first, then any intermediates the client
  // sent) is valid for client authentication at `now`. The error names the leaf as upstream
  // does ("verifying certificate SN=..., SKID=..., AKID=... failed: <reason>").
  Status VerifyClientChain(const std::vector<std::string>& chain_der, WallTime now) const;

 private:
  struct Store;
  CABundle(std::string pem, std::string source, std::unique_ptr<Store> store, size_t count);

  std::string pem_;
  std::string source_;
  std::unique_ptr<Store> store_;
  size_t count_;
};

// The subject fields and fingerprint that authentication reads from a certificate.
struct CertificateSubject {
  std::string common_name;                 // the last CN attribute, as Go keeps it
  std::vector<std::string> organizations;  // every O attribute, in order
  std::vector<std::string> uids;           // every UID (0.9.2342.19200300.100.1.1) attribute
  std::string sha256_hex;                  // lower-case hex SHA-256 of the DER encoding
};
StatusOr<CertificateSubject> ParseCertificateSubject(std::string_view der);

// Upstream's x509 request authenticator with CommonNameUserConversion. Returns:
//   * nullopt when there is no certificate or no CA bundle (the authenticator does not apply),
//     or when the verified certificate has an empty CN;
//   * an error when verification fails or the subject UID is malformed (the request is then
//     rejected with 401 unless another credential succeeds);
//   * the user otherwise (without system:authenticated, which the caller adds).
StatusOr<std::optional<UserInfo>> AuthenticateClientCertificate(
    const CABundle* ca, const std::vector<std::string>& chain_der, WallTime now);

// The DER encodings of the certificates in a PEM text, in order (for servers and tests that
// hold PEM). Fails on a malformed certificate block or when there is none.
StatusOr<std::vector<std::string>> PemCertificatesToDer(std::string_view pem);

}  // namespace stowage::auth
