// The secure server over real TLS on 127.0.0.1: protocol versions, ALPN, suites, the served
// certificate, HTTP/1.1 behaviour, limits, panics and client certificates.
#include "pkg/server/https_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <thread>

#include "pkg/server/healthz.h"
#include "pkg/server/router.h"
#include "pkg/server/self_signed.h"
#include "tests/unit/server/tls_test_client.h"

namespace stowage::server {
namespace {

using ::testing::HasSubstr;
using testing::ClientOptions;
using testing::HttpsGet;
using testing::TlsClient;

ServingOptions TestOptions() {
  ServingOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  return o;
}

class HttpsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallHealthChecks(*router_, "/healthz", {}, nullptr).ok());
    ASSERT_TRUE(router_
                    ->Handle("/echo",
                             [](const Request& req) {
                               Response r;
                               r.body = req.method + " " + req.path + " q=" + req.query +
                                        " body=" + req.body + " ua=" +
                                        std::string(req.Header("user-agent")) + " from=" +
                                        req.remote_address + " certs=" +
                                        std::to_string(req.peer_certificates_der.size());
                               return r;
                             })
                    .ok());
    ASSERT_TRUE(router_
                    ->Handle("/throw",
                             [](const Request&) -> Response {
                               throw std::runtime_error("boom");
                             })
                    .ok());
    ASSERT_TRUE(router_
                    ->Handle("/cached",
                             [](const Request&) {
                               Response r;
                               r.headers.emplace_back("Cache-Control", "max-age=5");
                               return r;
                             })
                    .ok());
  }
  std::unique_ptr<SecureServer> StartServer(ServingOptions o = TestOptions()) {
    auto router = router_;
    auto s = SecureServer::Start(std::move(o), [router](const Request& r) {
      return router->Serve(r);
    });
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  std::shared_ptr<Router> router_ = std::make_shared<Router>("test");
};

TEST_F(HttpsServerTest, Tls12And13SucceedAndAlpnIsHttp11Only) {
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

TEST_F(HttpsServerTest, Tls11IsRefusedEvenWhenTheMinimumAsksForIt) {
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

TEST_F(HttpsServerTest, MinVersion13RefusesTls12) {
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

TEST_F(HttpsServerTest, CipherSuitesRestrictTls12) {
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

TEST_F(HttpsServerTest, BadOptionsFailToStartWithClearErrors) {
  ServingOptions o = TestOptions();
  o.cipher_suites = {"TLS_FOO"};
  auto s = SecureServer::Start(o, [](const Request&) { return Response{}; });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("TLS_FOO"));
  o = TestOptions();
  o.bind_address = "localhost";
  EXPECT_THAT(SecureServer::Start(o, [](const Request&) { return Response{}; }).status().message(),
              HasSubstr("not a valid IP address"));
  o = TestOptions();
  o.cert_file = "/nonexistent.crt";
  EXPECT_THAT(SecureServer::Start(o, [](const Request&) { return Response{}; }).status().message(),
              HasSubstr("must be set together"));
  auto first = StartServer();
  ASSERT_NE(first, nullptr);
  o = TestOptions();
  o.port = first->port();
  auto clash = SecureServer::Start(o, [](const Request&) { return Response{}; });
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.status().message(),
              HasSubstr("failed to listen on 127.0.0.1:" + std::to_string(first->port())));
}

TEST_F(HttpsServerTest, KeepAliveServesTwoRequestsOnOneConnection) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok()) << c.status();
  auto r1 = (*c)->Request("GET", "/echo?a=1", "User-Agent: kubelet/1.36\r\n");
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(r1->status, 200);
  EXPECT_THAT(r1->body, HasSubstr("GET /echo q=a=1 body= ua=kubelet/1.36 from=127.0.0.1:"));
  EXPECT_EQ(r1->Header("cache-control"), "no-cache, private");
  EXPECT_FALSE(r1->Header("date").empty());
  EXPECT_EQ(r1->Header("connection"), "");
  auto r2 = (*c)->Request("POST", "/echo", "", "payload");
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_THAT(r2->body, HasSubstr("POST /echo q= body=payload"));
  EXPECT_EQ(server->OpenConnectionsForTest(), 1u);
  // Connection: close is honoured.
  auto r3 = (*c)->Request("GET", "/healthz", "Connection: close\r\n");
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->Header("connection"), "close");
  EXPECT_TRUE((*c)->ServerClosed());
}

TEST_F(HttpsServerTest, NotFoundHeadPanicAndCacheControl) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  auto nf = (*c)->Get("/nope");
  ASSERT_TRUE(nf.ok());
  EXPECT_EQ(nf->status, 404);
  EXPECT_EQ(nf->body, "404 page not found\n");
  EXPECT_EQ(nf->Header("content-type"), "text/plain; charset=utf-8");

  auto head = (*c)->Request("HEAD", "/healthz");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("content-length"), "2");  // the length of "ok", without the body

  auto boom = (*c)->Get("/throw");
  ASSERT_TRUE(boom.ok());
  EXPECT_EQ(boom->status, 500);
  EXPECT_EQ(boom->body, "This request caused apiserver to panic. Look in the logs for details.\n");

  auto cached = (*c)->Get("/cached");  // the handler's own Cache-Control wins
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->Header("cache-control"), "max-age=5");
  EXPECT_EQ(cached->CountHeader("cache-control"), 1);

  auto decoded = (*c)->Get("/ec%68o?x=%20");  // the path is decoded, the query is not
  ASSERT_TRUE(decoded.ok());
  EXPECT_THAT(decoded->body, HasSubstr("GET /echo q=x=%20"));
}

TEST_F(HttpsServerTest, OversizedHeaderGets431AndBodyGets413ThenClose) {
  ServingOptions o = TestOptions();
  o.max_header_bytes = 4096;
  o.max_body_bytes = 1000;
  auto server = StartServer(o);
  ASSERT_NE(server, nullptr);

  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  auto big = (*c)->Request("GET", "/echo", "X-Big: " + std::string(8000, 'a') + "\r\n");
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->status, 431);
  EXPECT_EQ(big->Header("connection"), "close");
  EXPECT_TRUE((*c)->ServerClosed());

  auto d = TlsClient::Connect(server->port());
  ASSERT_TRUE(d.ok());
  auto body = (*d)->Request("POST", "/echo", "", std::string(2000, 'b'));
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->status, 413);
  EXPECT_TRUE((*d)->ServerClosed());

  // A chunked body that grows past the limit is cut off the same way.
  auto e = TlsClient::Connect(server->port());
  ASSERT_TRUE(e.ok());
  std::string chunk(800, 'c');
  ASSERT_TRUE((*e)->Write("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "320\r\n" + chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n").ok());
  auto chunked = (*e)->ReadResponse();
  ASSERT_TRUE(chunked.ok()) << chunked.status();
  EXPECT_EQ(chunked->status, 413);

  // Within the limits all is well.
  auto ok = HttpsGet(server->port(), "/echo");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 200);
}

TEST_F(HttpsServerTest, MalformedRequestsGet400) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Write("GET /healthz HTTP/1.1\r\n\r\n").ok());  // no Host
  auto r = (*c)->ReadResponse();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "400 Bad Request: missing required Host header");

  auto d = TlsClient::Connect(server->port());
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE((*d)->Write("NOT HTTP AT ALL\r\n\r\n").ok());
  auto bad = (*d)->ReadResponse();
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->status, 400);
}

TEST_F(HttpsServerTest, ExpectContinueIsAnswered) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Write("PUT /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                          "Content-Length: 3\r\n\r\n").ok());
  auto cont = (*c)->ReadResponse();
  ASSERT_TRUE(cont.ok()) << cont.status();
  EXPECT_EQ(cont->status, 100);
  ASSERT_TRUE((*c)->Write("abc").ok());
  auto r = (*c)->ReadResponse();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->body, HasSubstr("PUT /echo q= body=abc"));
}

TEST_F(HttpsServerTest, ClientCertificateChainReachesTheHandlerUnverified) {
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

TEST_F(HttpsServerTest, ServesTheSelfSignedCertificateWithLocalhostSans) {
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
}  // namespace stowage::server
