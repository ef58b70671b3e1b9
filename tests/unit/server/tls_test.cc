// The TLS side of the secure server over real connections on 127.0.0.1: protocol versions, ALPN,
// cipher suites, the served certificate and client certificates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <thread>

#include "pkg/server/https_server.h"
#include "pkg/server/self_signed.h"
#include "tests/unit/server/server_test_fixture.h"
#include "tests/unit/server/tls_test_client.h"

namespace stowage::server::tls_test {
namespace {

using testing::ClientOptions;
using ::testing::HasSubstr;
using testing::HttpsGet;
using testing::TlsClient;

using TlsTest = ServerTest;

TEST_F(TlsTest, Tls12And13SucceedAndAlpnIsHttp11Only) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  for (int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    ClientOptions o;
    o.min_version = o.max_version = version;
    o.alpn = {"h2", "http/1.1"};
    auto c = TlsClient::Connect(server->port(), o);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(SSL_version((*c)->ssl()), version);
    EXPECT_EQ((*c)->Alpn(), "http/1.1");
    auto r = (*c)->Get("/healthz");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "ok");
  }
  // A client offering only h2 gets no ALPN protocol rather than h2.
  ClientOptions h2;
  h2.alpn = {"h2"};
  auto c = TlsClient::Connect(server->port(), h2);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->Alpn(), "");
}

// A bare OpenSSL server that allows TLS 1.0-1.3 at security level 0: proof that the client
// settings used below can negotiate TLS 1.1 at all, so its failure against stowage means
// something.
class PermissiveTlsServer {
 public:
  PermissiveTlsServer() {
    auto pem = GenerateSelfSignedCertKey(SelfSignedOptions{});
    ctx_ = SSL_CTX_new(TLS_server_method());
    SSL_CTX_set_security_level(ctx_, 0);
    SSL_CTX_set_min_proto_version(ctx_, TLS1_VERSION);
    SSL_CTX_set_cipher_list(ctx_, "ALL:@SECLEVEL=0");
    BIO* cb = BIO_new_mem_buf(pem->cert_pem.data(), static_cast<int>(pem->cert_pem.size()));
    X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    BIO_free(cb);
    BIO* kb = BIO_new_mem_buf(pem->key_pem.data(), static_cast<int>(pem->key_pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
    BIO_free(kb);
    SSL_CTX_use_certificate(ctx_, cert);
    SSL_CTX_use_PrivateKey(ctx_, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listen_fd_, 4);
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, fd);
      SSL_accept(ssl);
      SSL_shutdown(ssl);
      SSL_free(ssl);
      ::close(fd);
    });
  }
  ~PermissiveTlsServer() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    ::close(listen_fd_);
    SSL_CTX_free(ctx_);
  }
  uint16_t port() const { return port_; }

 private:
  SSL_CTX* ctx_;
  int listen_fd_;
  uint16_t port_;
  std::thread thread_;
};

ClientOptions Tls11Client() {
  ClientOptions o;
  o.min_version = o.max_version = TLS1_1_VERSION;
  o.security_level_0 = true;
  o.cipher_list = "ALL:@SECLEVEL=0";
  return o;
}

TEST_F(TlsTest, Tls11IsRefusedEvenWhenTheMinimumAsksForIt) {
  {
    PermissiveTlsServer control;
    auto c = TlsClient::Connect(control.port(), Tls11Client());
    ASSERT_TRUE(c.ok()) << "the TLS 1.1 test client cannot negotiate TLS 1.1 even with a "
                           "permissive server: "
                        << c.status();
    EXPECT_EQ(SSL_version((*c)->ssl()), TLS1_1_VERSION);
  }
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  EXPECT_FALSE(TlsClient::Connect(server->port(), Tls11Client()).ok());

  ServingOptions o = TestOptions();
  o.min_tls_version = "VersionTLS10";  // accepted for compatibility, raised to TLS 1.2
  auto lenient = StartServer(o);
  ASSERT_NE(lenient, nullptr);
  EXPECT_FALSE(TlsClient::Connect(lenient->port(), Tls11Client()).ok());
}

TEST_F(TlsTest, MinVersion13RefusesTls12) {
  ServingOptions o = TestOptions();
  o.min_tls_version = "VersionTLS13";
  auto server = StartServer(o);
  ASSERT_NE(server, nullptr);
  ClientOptions tls12;
  tls12.max_version = TLS1_2_VERSION;
  EXPECT_FALSE(TlsClient::Connect(server->port(), tls12).ok());
  ClientOptions tls13;
  tls13.min_version = TLS1_3_VERSION;
  EXPECT_TRUE(TlsClient::Connect(server->port(), tls13).ok());
}

TEST_F(TlsTest, CipherSuitesRestrictTls12) {
  ServingOptions o = TestOptions();
  o.cipher_suites = {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"};
  auto server = StartServer(o);
  ASSERT_NE(server, nullptr);
  ClientOptions other;
  other.max_version = TLS1_2_VERSION;
  other.cipher_list = "ECDHE-RSA-AES128-GCM-SHA256";
  EXPECT_FALSE(TlsClient::Connect(server->port(), other).ok());
  ClientOptions same = other;
  same.cipher_list = "ECDHE-RSA-AES256-GCM-SHA384";
  auto c = TlsClient::Connect(server->port(), same);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_STREQ(SSL_get_cipher_name((*c)->ssl()), "ECDHE-RSA-AES256-GCM-SHA384");
  // The default server refuses a CBC-only TLS 1.2 client.
  auto def = StartServer();
  ClientOptions cbc = other;
  cbc.cipher_list = "ECDHE-RSA-AES128-SHA";
  EXPECT_FALSE(TlsClient::Connect(def->port(), cbc).ok());
}

TEST_F(TlsTest, ClientCertificateChainReachesTheHandlerUnverified) {
  ServingOptions o = TestOptions();
  o.request_client_certs = true;
  auto server = StartServer(o);
  ASSERT_NE(server, nullptr);
  // Any self-signed client chain is accepted at the handshake; verification is for authn.
  auto client_pem = GenerateSelfSignedCertKey(SelfSignedOptions{});
  ASSERT_TRUE(client_pem.ok());
  for (int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    ClientOptions co;
    co.min_version = co.max_version = version;
    co.cert_pem = client_pem->cert_pem;
    co.key_pem = client_pem->key_pem;
    auto r = HttpsGet(server->port(), "/echo", co);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(r->body, HasSubstr("certs=1"));
  }
  auto anonymous = HttpsGet(server->port(), "/echo");
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  EXPECT_THAT(anonymous->body, HasSubstr("certs=0"));
}

TEST_F(TlsTest, ServesTheSelfSignedCertificateWithLocalhostSans) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  X509* leaf = SSL_get0_peer_certificate((*c)->ssl());
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(X509_check_host(leaf, "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(leaf, "127.0.0.1", 0), 1);
  STACK_OF(X509)* chain = SSL_get_peer_cert_chain((*c)->ssl());
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(sk_X509_num(chain), 2);  // leaf + CA, as upstream serves it
  EXPECT_THAT(server->address(), ::testing::StartsWith("127.0.0.1:"));
}

}  // namespace
}  // namespace stowage::server::tls_test
