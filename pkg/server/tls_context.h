// The TLS side of the secure port: settings parsed from the kube flags, and OpenSSL server
// contexts built from them and a certificate.
//
// A context is immutable once built and is shared by every connection accepted while it is the
// current one; a certificate reload builds a new context rather than changing an old one, so
// established connections keep the certificate they negotiated. Functions here are thread-safe.
//
// What every context enforces: TLS 1.2 at least (a --tls-min-version below 1.2 is raised to 1.2
// with a warning: stowage never speaks TLS 1.0/1.1), at most TLS 1.3; ECDHE+AEAD TLS 1.2 suites
// (see cipher_suites.h); ALPN "http/1.1" only (no h2); no compression, renegotiation or session
// resumption. With request_client_certs the server asks for a client certificate but neither
// requires nor verifies it (upstream's tls.RequestClientCert): the chain is handed to the handler.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/server/self_signed.h"
#include "stowage/common/status.h"

typedef struct ssl_st SSL;

namespace boost::asio::ssl {
class context;
}

namespace stowage::server {

struct TlsSettings {
  int min_version = 0;  // an OpenSSL version constant (TLS1_2_VERSION ...); 0 means TLS 1.2
  // The OpenSSL TLS 1.2 cipher list; empty means no TLS 1.2 suite, so TLS 1.3 is required.
  std::string tls12_cipher_list;
  bool request_client_certs = false;
};

// Parses --tls-min-version and --tls-cipher-suites into settings; errors say which value was bad.
StatusOr<TlsSettings> MakeTlsSettings(std::string_view min_tls_version,
                                      const std::vector<std::string>& cipher_suites,
                                      bool request_client_certs);

using TlsContextPtr = std::shared_ptr<boost::asio::ssl::context>;

// A server context serving the PEM chain (leaf first) and key of cert. Errors say whether the
// certificate or the key is unreadable, or that they do not belong together; cert_name and
// key_name (file paths, or "generated") appear in them.
StatusOr<TlsContextPtr> NewServerTlsContext(const TlsSettings& settings, const CertKeyPem& cert,
                                            std::string_view cert_name = "certificate",
                                            std::string_view key_name = "private key");

// The leaf certificate a context serves, DER; empty if none. For logs and tests.
std::string ServedCertificateDer(const TlsContextPtr& ctx);

// The certificate chain the peer of ssl presented, leaf first, DER; empty when it sent none.
std::vector<std::string> PeerCertificateChainDer(SSL* ssl);

}  // namespace stowage::server
