// OpenSSL server-context construction: protocol limits, suites, ALPN, client-cert request and
// the certificate/key pair.
#include "pkg/server/tls_context.h"

#include <openssl/pem.h>

#include <algorithm>
#include <boost/asio/ssl/context.hpp>
#include <cstring>

#include "pkg/common/logging.h"
#include "pkg/server/cipher_suites.h"
#include "pkg/server/openssl_util.h"

namespace stowage::server {
namespace {

using internal::BioPtr;
using internal::DrainOpenSslErrors;
using internal::PkeyPtr;
using internal::SslCtxPtr;
using internal::X509Ptr;

constexpr unsigned char kHttp11[] = "http/1.1";

// Chooses "http/1.1" when the client offers it. With no overlap the handshake continues
// without ALPN (the client then decides), rather than failing with an alert.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  const unsigned int want = sizeof(kHttp11) - 1;
  for (unsigned int i = 0; i < inlen;) {
    unsigned int len = in[i];
    if (i + 1 + len > inlen) break;
    if (len == want && std::memcmp(in + i + 1, kHttp11, want) == 0) {
      *out = in + i + 1;
      *outlen = static_cast<unsigned char>(len);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

// Client certificates are verified by the authentication layer against a CA that can change at
// run time, so the handshake accepts any chain.
int AcceptAnyClientChain(int, X509_STORE_CTX*) { return 1; }

Status UseCertificateAndKey(SSL_CTX* ctx, const CertKeyPem& cert, std::string_view cert_name,
                            std::string_view key_name) {
  BioPtr cert_bio(BIO_new_mem_buf(cert.cert_pem.data(), static_cast<int>(cert.cert_pem.size())));
  std::vector<X509Ptr> chain;
  while (X509* x = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
    chain.emplace_back(x);
  }
  ERR_clear_error();  // the loop ends on an expected "no start line"
  if (chain.empty()) {
    return InvalidArgumentError(std::string(cert_name) + ": no PEM certificate found");
  }
  BioPtr key_bio(BIO_new_mem_buf(cert.key_pem.data(), static_cast<int>(cert.key_pem.size())));
  PkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return InvalidArgumentError(std::string(key_name) + ": no usable PEM private key (" +
                                DrainOpenSslErrors() + ")");
  }
  if (SSL_CTX_use_certificate(ctx, chain.front().get()) != 1) {
    return InvalidArgumentError(std::string(cert_name) +
                                ": certificate refused: " + DrainOpenSslErrors());
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx, chain[i].get()) != 1) {
      return InvalidArgumentError(std::string(cert_name) + ": chain certificate " +
                                  std::to_string(i) + " refused: " + DrainOpenSslErrors());
    }
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return InvalidArgumentError("private key " + std::string(key_name) +
                                " does not match certificate " + std::string(cert_name) + " (" +
                                DrainOpenSslErrors() + ")");
  }
  return OkStatus();
}

}  // namespace

StatusOr<TlsSettings> MakeTlsSettings(std::string_view min_tls_version,
                                      const std::vector<std::string>& cipher_suites,
                                      bool request_client_certs) {
  TlsSettings s;
  auto version = ParseTlsVersion(min_tls_version);
  if (!version.ok()) return version.status();
  auto suites = ParseCipherSuites(cipher_suites);
  if (!suites.ok()) return suites.status();
  s.min_version = *version;
  s.tls12_cipher_list = suites->tls12_openssl_list;
  s.request_client_certs = request_client_certs;
  return s;
}

StatusOr<TlsContextPtr> NewServerTlsContext(const TlsSettings& settings, const CertKeyPem& cert,
                                            std::string_view cert_name, std::string_view key_name) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return InternalError("creating a TLS server context: " + DrainOpenSslErrors());
  int min_version = settings.min_version == 0 ? TLS1_2_VERSION : settings.min_version;
  if (min_version < TLS1_2_VERSION) {
    LOG_WARN("--tls-min-version={} is below TLS 1.2; stowage serves TLS 1.2 and 1.3 only",
             TlsVersionName(min_version));
    min_version = TLS1_2_VERSION;
  }
  if (settings.tls12_cipher_list.empty()) min_version = TLS1_3_VERSION;
  SSL_CTX_set_min_proto_version(ctx.get(), min_version);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                     SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
  // Resumption is off: every connection runs a full handshake, so the client chain handed to
  // handlers always comes from this connection and reloads take effect on every new connection.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  if (!settings.tls12_cipher_list.empty() &&
      SSL_CTX_set_cipher_list(ctx.get(), settings.tls12_cipher_list.c_str()) != 1) {
    return InvalidArgumentError("TLS 1.2 cipher list \"" + settings.tls12_cipher_list +
                                "\" refused by OpenSSL: " + DrainOpenSslErrors());
  }
  SSL_CTX_set_alpn_select_cb(ctx.get(), SelectAlpn, nullptr);
  if (settings.request_client_certs) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, AcceptAnyClientChain);
  }
  Status s = UseCertificateAndKey(ctx.get(), cert, cert_name, key_name);
  if (!s.ok()) return s;
  // asio's context takes ownership of the SSL_CTX.
  return std::make_shared<boost::asio::ssl::context>(ctx.release());
}

std::string ServedCertificateDer(const TlsContextPtr& ctx) {
  if (!ctx) return {};
  X509* leaf = SSL_CTX_get0_certificate(ctx->native_handle());
  if (leaf == nullptr) return {};
  int n = i2d_X509(leaf, nullptr);
  if (n <= 0) return {};
  std::string der(static_cast<size_t>(n), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(leaf, &p);
  return der;
}

std::vector<std::string> PeerCertificateChainDer(SSL* ssl) {
  std::vector<std::string> out;
  auto append = [&out](X509* x) {
    int n = i2d_X509(x, nullptr);
    if (n <= 0) return;
    std::string der(static_cast<size_t>(n), '\0');
    auto* p = reinterpret_cast<unsigned char*>(der.data());
    i2d_X509(x, &p);
    out.push_back(std::move(der));
  };
  X509* leaf = SSL_get0_peer_certificate(ssl);
  if (leaf == nullptr) return out;
  append(leaf);
  // On a server the peer chain excludes the leaf.
  STACK_OF(X509)* chain = SSL_get_peer_cert_chain(ssl);
  for (int i = 0; chain != nullptr && i < sk_X509_num(chain); ++i) {
    X509* x = sk_X509_value(chain, i);
    if (X509_cmp(x, leaf) != 0) append(x);
  }
  return out;
}

}  // namespace stowage::server
