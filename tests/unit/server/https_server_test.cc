// The secure server's HTTP/1.1 behaviour over real TLS on 127.0.0.1: start-up errors, keep-alive,
// 404/HEAD/panics/Cache-Control, 431/413/400, Expect: 100-continue.
#include "pkg/server/https_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <thread>

#include "pkg/server/self_signed.h"
#include "tests/unit/server/server_test_fixture.h"
#include "tests/unit/server/tls_test_client.h"

namespace stowage::server::https_server_test {
namespace {

using testing::ClientOptions;
using ::testing::HasSubstr;
using testing::HttpsGet;
using testing::TlsClient;

using HttpsServerTest = ServerTest;

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
                          "320\r\n" +
                          chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n")
                  .ok());
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
                          "Content-Length: 3\r\n\r\n")
                  .ok());
  auto cont = (*c)->ReadResponse();
  ASSERT_TRUE(cont.ok()) << cont.status();
  EXPECT_EQ(cont->status, 100);
  ASSERT_TRUE((*c)->Write("abc").ok());
  auto r = (*c)->ReadResponse();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->body, HasSubstr("PUT /echo q= body=abc"));
}

TEST_F(HttpsServerTest, UnspecifiedIpv6AddressAlsoServesIpv4) {
  ServingOptions o = TestOptions();
  o.bind_address = "::";
  auto s = SecureServer::Start(o, [](const Request&) { return Response{}; });
  if (!s.ok() && s.status().message().find("Address family not supported") != std::string::npos) {
    GTEST_SKIP() << "no IPv6 here: " << s.status();
  }
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT((*s)->address(), ::testing::StartsWith("[::]:"));
  auto r = HttpsGet((*s)->port(), "/");  // the test client dials 127.0.0.1
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace stowage::server::https_server_test
