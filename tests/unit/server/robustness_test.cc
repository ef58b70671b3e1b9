// The secure server under abuse: slow or silent clients, connection floods and handlers that
// block must not stop /healthz from answering, and Shutdown finishes the request in flight.
// Every wait is bounded by a generous timeout; no test asserts a duration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "pkg/server/healthz.h"
#include "pkg/server/https_server.h"
#include "pkg/server/router.h"
#include "stowage/common/mutex.h"
#include "tests/unit/server/tls_test_client.h"

namespace stowage::server::robustness_test {
namespace {

using testing::ConnectTcp;
using testing::HttpsGet;
using testing::TlsClient;

// A gate slow handlers wait on; opened by the test (or at teardown, so nothing stays blocked).
class Gate {
 public:
  void Wait() {
    MutexLock l(mu_);
    ++waiting_;
    cv_.SignalAll();
    while (!open_) cv_.Wait(mu_);
  }
  void Open() {
    MutexLock l(mu_);
    open_ = true;
    cv_.SignalAll();
  }
  bool AwaitWaiters(int n) {
    MutexLock l(mu_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (waiting_ < n && cv_.WaitUntil(mu_, deadline)) {
    }
    return waiting_ >= n;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  int waiting_ GUARDED_BY(mu_) = 0;
  bool open_ GUARDED_BY(mu_) = false;
};

class RobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallHealthChecks(*router_, "/healthz", {}, nullptr).ok());
    auto gate = gate_;
    ASSERT_TRUE(router_
                    ->Handle("/slow",
                             [gate](const Request&) {
                               gate->Wait();
                               Response r;
                               r.body = "slow done";
                               return r;
                             })
                    .ok());
  }
  void TearDown() override { gate_->Open(); }

  std::unique_ptr<SecureServer> Start(ServingOptions o) {
    o.bind_address = "127.0.0.1";
    o.port = 0;
    auto router = router_;
    auto s =
        SecureServer::Start(std::move(o), [router](const Request& r) { return router->Serve(r); });
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // /healthz answers "ok" on a fresh connection.
  static void ExpectHealthy(uint16_t port) {
    auto r = HttpsGet(port, "/healthz");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "ok");
  }

  std::shared_ptr<Router> router_ = std::make_shared<Router>("test");
  std::shared_ptr<Gate> gate_ = std::make_shared<Gate>();
};

TEST_F(RobustnessTest, SlowlorisClientsDoNotBlockHealthAndAreCutOffAtTheHeaderDeadline) {
  ServingOptions o;
  o.read_header_timeout = std::chrono::seconds(1);
  auto server = Start(o);
  ASSERT_NE(server, nullptr);

  // Ten TLS clients that dribble a request line byte by byte and never finish it.
  std::vector<std::unique_ptr<TlsClient>> dribblers;
  for (int i = 0; i < 10; ++i) {
    auto c = TlsClient::Connect(server->port());
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE((*c)->Write("GET /healthz HTTP/1.1\r\nHo").ok());
    dribblers.push_back(std::move(*c));
  }
  // Ten TCP clients that never even start the handshake.
  std::vector<int> silent;
  for (int i = 0; i < 10; ++i) silent.push_back(ConnectTcp(server->port()));

  ExpectHealthy(server->port());

  // The server, not the client, ends a request whose headers never complete: the next read
  // sees the connection closed (within the client's generous socket timeout).
  for (auto& c : dribblers) {
    (void)c->Write("s");
    EXPECT_TRUE(c->ServerClosed());
  }
  for (int fd : silent) {
    char b;
    EXPECT_LE(::recv(fd, &b, 1, 0), 0);  // closed without a handshake
    ::close(fd);
  }
  ExpectHealthy(server->port());
}

TEST_F(RobustnessTest, IdleKeepAliveConnectionsAreClosedAfterTheIdleTimeout) {
  ServingOptions o;
  o.idle_timeout = std::chrono::milliseconds(300);
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  auto c = TlsClient::Connect(server->port());
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Get("/healthz");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Header("connection"), "");  // kept alive...
  EXPECT_TRUE((*c)->ServerClosed());       // ...until it idles out
}

TEST_F(RobustnessTest, ConnectionFloodBeyondTheLimitStillLetsHealthIn) {
  ServingOptions o;
  o.max_connections = 16;
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  std::vector<int> flood;
  for (int i = 0; i < 64; ++i) {
    int fd = ConnectTcp(server->port());
    ASSERT_GE(fd, 0);
    flood.push_back(fd);
  }
  // Idle TLS connections count too.
  std::vector<std::unique_ptr<TlsClient>> idle;
  for (int i = 0; i < 8; ++i) {
    auto c = TlsClient::Connect(server->port());
    if (c.ok()) idle.push_back(std::move(*c));
  }
  ExpectHealthy(server->port());
  EXPECT_LE(server->OpenConnectionsForTest(), 16u);
  for (int fd : flood) ::close(fd);
}

// Every one of the default 512 connections holds a request whose body never arrives (the server
// has said "100 Continue", so each is past its headers): the oldest is evicted to let the health
// probes in, instead of all waiting out the body deadline.
TEST_F(RobustnessTest, StalledRequestBodiesAtTheConnectionLimitAreEvictedForHealth) {
  for (const char* path : {"/livez", "/readyz"}) {
    ASSERT_TRUE(InstallHealthChecks(*router_, path, {}, nullptr).ok());
  }
  ServingOptions o;
  ASSERT_EQ(o.max_connections, 512u);
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<TlsClient>> stalled;
  for (size_t i = 0; i < o.max_connections; ++i) {
    auto c = TlsClient::Connect(server->port());
    ASSERT_TRUE(c.ok()) << i << ": " << c.status();
    ASSERT_TRUE((*c)->Write("POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 65536\r\n"
                            "Expect: 100-continue\r\n\r\npartial")
                    .ok());
    auto cont = (*c)->ReadResponse(true);
    ASSERT_TRUE(cont.ok()) << i << ": " << cont.status();
    ASSERT_EQ(cont->status, 100);
    stalled.push_back(std::move(*c));
  }
  ASSERT_EQ(server->OpenConnectionsForTest(), o.max_connections);
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    auto r = HttpsGet(server->port(), path);
    ASSERT_TRUE(r.ok()) << path << ": " << r.status();
    EXPECT_EQ(r->status, 200) << path;
  }
  EXPECT_TRUE(stalled.front()->ServerClosed()) << "the longest-stalled request was evicted";
  EXPECT_LE(server->OpenConnectionsForTest(), o.max_connections);
}

TEST_F(RobustnessTest, BlockedHandlersDoNotDelayHealthChecks) {
  ServingOptions o;
  o.handler_threads = 2;
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  // Twice as many slow requests as handler threads: two block, the rest queue.
  std::vector<std::future<StatusOr<testing::HttpResponse>>> slow;
  for (int i = 0; i < 4; ++i) {
    slow.push_back(std::async(std::launch::async,
                              [port = server->port()] { return HttpsGet(port, "/slow"); }));
  }
  ASSERT_TRUE(gate_->AwaitWaiters(2));
  for (int i = 0; i < 5; ++i) ExpectHealthy(server->port());
  // Health sub-paths use the fast lane too.
  auto ping = HttpsGet(server->port(), "/healthz/ping");
  ASSERT_TRUE(ping.ok());
  EXPECT_EQ(ping->body, "ok");

  gate_->Open();
  for (auto& f : slow) {
    auto r = f.get();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->body, "slow done");
  }
}

TEST_F(RobustnessTest, ShutdownFinishesTheRequestInFlightAndClosesIdleConnections) {
  ServingOptions o;
  o.shutdown_grace = std::chrono::seconds(30);
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  auto idle = TlsClient::Connect(server->port());
  ASSERT_TRUE(idle.ok());
  ASSERT_TRUE((*idle)->Get("/healthz").ok());

  auto in_flight =
      std::async(std::launch::async, [port = server->port()] { return HttpsGet(port, "/slow"); });
  ASSERT_TRUE(gate_->AwaitWaiters(1));
  uint16_t port = server->port();
  std::thread opener([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let Shutdown begin
    gate_->Open();
  });
  server->Shutdown();  // returns once the slow request has been answered
  opener.join();

  auto r = in_flight.get();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "slow done");
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE((*idle)->ServerClosed());
  EXPECT_EQ(server->OpenConnectionsForTest(), 0u);
  EXPECT_LT(ConnectTcp(port, 5), 0);  // no longer listening
}

TEST_F(RobustnessTest, ShutdownGivesUpOnAHandlerThatNeverReturns) {
  ServingOptions o;
  o.shutdown_grace = std::chrono::milliseconds(200);
  auto server = Start(o);
  ASSERT_NE(server, nullptr);
  auto stuck =
      std::async(std::launch::async, [port = server->port()] { return HttpsGet(port, "/slow"); });
  ASSERT_TRUE(gate_->AwaitWaiters(1));
  server->Shutdown();  // returns although the handler is still blocked
  auto r = stuck.get();
  EXPECT_FALSE(r.ok());  // the connection was closed without a response
  gate_->Open();
}

}  // namespace
}  // namespace stowage::server::robustness_test
