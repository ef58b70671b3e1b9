// The transport's pool of idle connections: a burst of concurrent requests (the binding cycles'
// PreBind writes) leaves its connections for the next burst instead of closing all but a few,
// each of which the next request would pay for with a new handshake; connections idle for longer
// than the apiserver keeps them are closed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/transport.h"
#include "stowage/common/clock.h"
#include "tests/testing/loopback_server.h"

namespace stowage::client::connection_pool_test {
namespace {

class ConnectionPoolTest : public ::testing::Test {
 protected:
  static constexpr int kAtOnce = 100;

  void SetUp() override {
    RestConfig c;
    c.source = "test";
    c.server = server_.url();
    c.allow_plain_http = true;
    auto t = NewHttpsTransport(c, clock_);
    ASSERT_TRUE(t.ok()) << t.status();
    transport_ = std::move(*t);
  }

  // n requests at once: the server holds every answer until all n have arrived, so each needs
  // a connection of its own.
  void Burst(int n) {
    expected_ += n;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&] {
        auto r = transport_->RoundTrip({.method = "GET", .target = "/api"});
        if (r.ok() && r->status == 200) ++ok;
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok.load(), n);
  }

  void One() {
    auto r = transport_->RoundTrip({.method = "GET", .target = "/api"});
    ASSERT_TRUE(r.ok()) << r.status();
  }

  std::atomic<int> arrived_{0};
  std::atomic<int> expected_{0};
  testing::LoopbackServer server_{
      [this](const std::string&, const testing::LoopbackServer::Writer& write) {
        ++arrived_;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (arrived_.load() < expected_.load() && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
      },
      /*keep_alive=*/true};
  FakeClock clock_;
  std::unique_ptr<Transport> transport_;
};

TEST_F(ConnectionPoolTest, ABurstsConnectionsServeTheNextBurst) {
  ASSERT_NE(server_.port(), 0);
  Burst(kAtOnce);
  EXPECT_EQ(server_.Connections(), kAtOnce);
  clock_.Advance(std::chrono::seconds(1));
  Burst(kAtOnce);
  // Every connection was kept: none closed, none opened.
  EXPECT_EQ(server_.Connections(), kAtOnce);
  EXPECT_EQ(server_.ClosedByClient(), 0);
}

TEST_F(ConnectionPoolTest, ConnectionsIdleLongerThanTheApiserverKeepsThemAreClosed) {
  ASSERT_NE(server_.port(), 0);
  Burst(kAtOnce);
  // One connection stays in use; the other 99 sit idle past 30 s and are closed when it comes
  // back, without waiting for a request to need them.
  clock_.Advance(std::chrono::seconds(20));
  One();
  clock_.Advance(std::chrono::seconds(15));
  One();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (server_.ClosedByClient() < kAtOnce - 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(server_.ClosedByClient(), kAtOnce - 1);
  EXPECT_EQ(server_.Connections(), kAtOnce);
}

}  // namespace
}  // namespace stowage::client::connection_pool_test
