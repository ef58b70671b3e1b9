// Self-signed serving certificates, as kube-scheduler makes them when it is given no certificate
// (apiserver's MaybeDefaultWithSelfSignedCerts + client-go's GenerateSelfSignedCertKey): a fresh
// RSA-2048 CA "<host>-ca@<unix ts>" signs a serving certificate "<host>@<unix ts>" for the given
// DNS names and IPs, valid from an hour ago for a year (server auth only). The PEM chain is the
// serving certificate followed by the CA, as upstream serves it. Thread-safe (no shared state).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::server {

// A PEM certificate chain (leaf first) and its PEM private key.
struct CertKeyPem {
  std::string cert_pem;
  std::string key_pem;
};

struct SelfSignedOptions {
  // The subject's host: an IP goes into the IP SANs, anything else into the DNS SANs.
  std::string host = "localhost";
  std::vector<std::string> alternate_ips;  // textual IPv4/IPv6 addresses
  std::vector<std::string> alternate_dns;
  std::chrono::seconds max_age = std::chrono::hours(24 * 365);
};

// The SANs upstream uses for the secure port bound at bind_address: host "localhost", IP
// 127.0.0.1, plus the bind IP when it is specific, or the DNS name "localhost" when it is
// unspecified (0.0.0.0 / ::). Duplicates are dropped.
SelfSignedOptions SelfSignedOptionsForBindAddress(std::string_view bind_address);

// Generates the CA and serving certificate. Errors carry OpenSSL's reason.
StatusOr<CertKeyPem> GenerateSelfSignedCertKey(const SelfSignedOptions& options);

}  // namespace stowage::server
