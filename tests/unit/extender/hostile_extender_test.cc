// HttpExtender over the real transport against a loopback extender that lies: a Content-Length
// of 4 GiB or of 100 MiB with an endless body behind it, an endless chunked body sent as fast as
// the socket takes it, and one sent a few bytes at a time. Each call of several in a row must fail
// with an error that says what was wrong, having taken no more of the answer than the response
// limit, and the slow answer must end at the deadline of the whole exchange. Memory is checked by
// what the server managed to send (the client cannot hold more than it read), never by time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "pkg/extender/http_extender.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/loopback_server.h"

namespace stowage::extender::hostile_extender_test {
namespace {

using testing::BuildNode;
using testing::BuildPod;
using ::testing::HasSubstr;

using testing::LoopbackServer;

// What a lying server sends at most per connection, so that a client without limits stops
// taking bytes at some point and the test ends: far above every limit it checks.
constexpr size_t kServerCap = 96u << 20;

// The slack between what the server sent and what the client read: the kernel's socket buffers
// (loopback receive buffers grow to a few MiB).
constexpr size_t kSocketSlack = 8u << 20;

// Writes head, then blocks of body_block until the client is gone or kServerCap is reached.
LoopbackServer::Answer Endless(std::string head, std::string body_block) {
  return [head, body_block](const std::string&, const LoopbackServer::Writer& write) {
    if (!write(head)) return;
    for (size_t sent = head.size(); sent < kServerCap; sent += body_block.size()) {
      if (!write(body_block)) return;
    }
  };
}

std::string Chunk(size_t n) {
  char size[32];
  std::snprintf(size, sizeof(size), "%zx\r\n", n);
  return size + std::string(n, ' ') + "\r\n";
}

struct Calls {
  config::Extender config;
  std::unique_ptr<framework::Extender> ext;
  std::vector<testing::NodeInfoPtr> infos = {testing::MakeNodeInfo(BuildNode().Name("n1").Obj())};

  Calls(const std::string& url, Duration timeout) {
    config.url_prefix = url;
    config.filter_verb = "filter";
    config.node_cache_capable = true;
    config.http_timeout = timeout;
    auto e = New(config);
    EXPECT_TRUE(e.ok()) << e.status();
    if (e.ok()) ext = std::move(*e);
  }
  Status Filter() {
    framework::ExtenderFilterResult r;
    return ext->Filter(*BuildPod().Name("p").Obj(), testing::Pointers(infos), r);
  }
};

// A response limit breach, however many calls are made: the first calls, and those after them
// that would reuse a connection, are refused alike.
void ExpectRefusedEveryTime(LoopbackServer& server, int calls) {
  ASSERT_NE(server.port(), 0);
  Calls c(server.url(), std::chrono::seconds(5));
  for (int i = 0; i < calls; ++i) {
    SCOPED_TRACE("call " + std::to_string(i + 1));
    Status s = c.Filter();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("larger than the limit")) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(server.url() + "/filter")) << s;
    EXPECT_LE(server.MaxSent(),
              static_cast<size_t>(config::kDefaultExtenderMaxResponseBytes) + kSocketSlack);
  }
  EXPECT_EQ(server.Connections(), calls);
}

TEST(HostileExtender, AContentLengthOf4GiBIsRefusedOnEveryCall) {
  LoopbackServer server(Endless(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4294967296\r\n\r\n",
      std::string(64 << 10, ' ')));
  ExpectRefusedEveryTime(server, 4);
}

TEST(HostileExtender, AContentLengthAboveTheLimitIsRefusedBeforeTheBodyIsRead) {
  LoopbackServer server(Endless(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n",
      std::string(64 << 10, ' ')));
  ExpectRefusedEveryTime(server, 3);
}

TEST(HostileExtender, AnEndlessChunkedBodyIsCutAtTheLimit) {
  LoopbackServer server(
      Endless("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", Chunk(64 << 10)));
  ExpectRefusedEveryTime(server, 3);
}

// A body that never ends, a few bytes at a time: the deadline of the whole exchange ends each
// call, and the error says so.
TEST(HostileExtender, ASlowEndlessBodyEndsAtTheDeadline) {
  LoopbackServer server([](const std::string&, const LoopbackServer::Writer& write) {
    if (!write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return;
    while (write(Chunk(8))) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  Calls c(server.url(), std::chrono::milliseconds(500));
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("call " + std::to_string(i + 1));
    Status s = c.Filter();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("deadline of 500ms")) << s;
  }
}

}  // namespace
}  // namespace stowage::extender::hostile_extender_test
