// A kubeconfig's tokenFile under the rules of every file stowage reads: /dev/zero, a FIFO, a
// sparse 2 GiB file, a directory and a missing file each stop the transport at start with an
// error naming the file and the kubeconfig, without blocking or growing; a re-read that fails
// keeps the last good token and is logged once per run of failures.
#include "pkg/client/token_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pkg/client/kubeconfig.h"
#include "pkg/client/transport.h"
#include "pkg/common/logging.h"
#include "tests/testing/loopback_server.h"

namespace stowage::client::token_file_test {
namespace {

using ::testing::HasSubstr;

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stowage-token-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    logging::Init(0);
    std::filesystem::remove_all(dir_);
  }
  std::string Write(const std::string& name, const std::string& content) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p) << content;
    return p;
  }
  // A kubeconfig whose user reads its token from token_file; the transport built from it.
  StatusOr<std::unique_ptr<Transport>> TransportWithTokenFile(const std::string& token_file) {
    std::string kc = Write("kubeconfig",
                           "apiVersion: v1\nkind: Config\ncurrent-context: a\n"
                           "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
                           "users:\n- name: u\n  user:\n    tokenFile: " +
                               token_file +
                               "\n"
                               "contexts:\n- name: a\n  context: {cluster: c, user: u}\n");
    auto config = LoadKubeconfig(kc);
    if (!config.ok()) return config.status();
    return NewHttpsTransport(*config);
  }
  // The error of a transport whose token file is path, which must name the file and kubeconfig.
  std::string StartError(const std::string& path) {
    auto t = TransportWithTokenFile(path);
    EXPECT_FALSE(t.ok());
    if (t.ok()) return "";
    std::string msg(t.status().message());
    EXPECT_THAT(msg, HasSubstr("kubeconfig \"" + dir_ + "/kubeconfig\""));
    EXPECT_THAT(msg, HasSubstr("token file \"" + path + "\""));
    return msg;
  }
  std::string dir_;
};

TEST_F(TokenFileTest, TheTokenIsReadAndTrimmed) {
  auto t = TransportWithTokenFile(Write("token", "abc.def\n"));
  ASSERT_TRUE(t.ok()) << t.status();
  TokenFile f(dir_ + "/token", "test");
  ASSERT_TRUE(f.Load().ok());
  EXPECT_EQ(f.Get(), "abc.def");
}

TEST_F(TokenFileTest, DevZeroIsRefusedAtStart) {
  EXPECT_THAT(StartError("/dev/zero"), HasSubstr("is a character device, not a regular file"));
}

// Opening a FIFO for reading waits for a writer unless the open does not block.
TEST_F(TokenFileTest, AFifoIsRefusedAtStartWithoutBlocking) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(StartError(fifo), HasSubstr("is a FIFO, not a regular file"));
}

TEST_F(TokenFileTest, ASparse2GiBFileIsRefusedAtStartAfterTheLimit) {
  const std::string big = dir_ + "/big";
  int fd = ::open(big.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, off_t{2} << 30), 0);
  ::close(fd);
  EXPECT_THAT(StartError(big), HasSubstr("is larger than the limit of 1048576 bytes"));
}

TEST_F(TokenFileTest, ADirectoryIsRefusedAtStart) {
  EXPECT_THAT(StartError(dir_), HasSubstr("is a directory, not a regular file"));
}

TEST_F(TokenFileTest, AMissingFileIsRefusedAtStart) {
  EXPECT_THAT(StartError(dir_ + "/missing"), HasSubstr("No such file or directory"));
}

TEST_F(TokenFileTest, AnEmptyFileIsRefusedAtStart) {
  EXPECT_THAT(StartError(Write("empty", "\n")), HasSubstr("is empty"));
}

// A re-read that fails keeps the token read before; the failure is logged when it starts and the
// recovery when it ends, not on every use.
TEST_F(TokenFileTest, AFailedReReadKeepsTheLastGoodTokenAndIsLoggedOnce) {
  std::ostringstream log;
  ASSERT_TRUE(
      logging::InitWithSink({}, std::make_shared<spdlog::sinks::ostream_sink_mt>(log)).ok());
  FakeClock clock;
  const std::string path = Write("token", "first\n");
  TokenFile f(path, "kubeconfig \"k\"", clock);
  ASSERT_TRUE(f.Load().ok());

  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);  // a re-read must not block either
  for (int i = 0; i < 3; ++i) {
    clock.Advance(TokenFile::kRefresh + std::chrono::seconds(1));
    EXPECT_EQ(f.Get(), "first");
  }
  std::string logged = log.str();
  EXPECT_THAT(logged, HasSubstr("kubeconfig \"k\": token file \"" + path +
                                "\" is a FIFO, not a regular file; keeping the token read "
                                "before until the file reads again"));
  EXPECT_EQ(logged.find("keeping the token"), logged.rfind("keeping the token"));

  std::filesystem::remove(path);
  Write("token", "second\n");
  EXPECT_EQ(f.Get(), "first");  // read at most once per kRefresh
  clock.Advance(TokenFile::kRefresh + std::chrono::seconds(1));
  EXPECT_EQ(f.Get(), "second");
  EXPECT_THAT(log.str(), HasSubstr("token file \"" + path + "\" read again"));

  Write("token", "");  // a rotation caught half-way
  clock.Advance(TokenFile::kRefresh + std::chrono::seconds(1));
  EXPECT_EQ(f.Get(), "second");
  EXPECT_THAT(log.str(), HasSubstr("\" is empty; keeping the token"));
}

// Through the transport: requests keep the last good token while the file is a FIFO, whose open
// used to block the re-read, and with it every request, for good.
TEST_F(TokenFileTest, TheTransportKeepsSendingTheLastGoodTokenWhileReReadsFail) {
  // Answers with the Authorization header it received, and closes.
  testing::LoopbackServer server([](const std::string& request,
                                    const testing::LoopbackServer::Writer& write) {
    const std::string key = "Authorization: ";
    std::string auth;
    if (size_t at = request.find(key); at != std::string::npos) {
      auth = request.substr(at + key.size(), request.find("\r\n", at) - at - key.size());
    }
    write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + std::to_string(auth.size()) +
          "\r\n\r\n" + auth);
  });
  ASSERT_NE(server.port(), 0);
  RestConfig c;
  c.source = "kubeconfig \"k\"";
  c.server = server.url();
  c.allow_plain_http = true;
  const std::string path = Write("token", "first\n");
  c.bearer_token_file = path;
  FakeClock clock;
  auto t = NewHttpsTransport(c, clock);
  ASSERT_TRUE(t.ok()) << t.status();
  auto authorization = [&] {
    auto r = (*t)->RoundTrip({.method = "GET", .target = "/api"});
    return r.ok() ? r->body : r.status().ToString();
  };
  EXPECT_EQ(authorization(), "Bearer first");

  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  clock.Advance(TokenFile::kRefresh + std::chrono::seconds(1));
  EXPECT_EQ(authorization(), "Bearer first");

  std::filesystem::remove(path);
  Write("token", "second\n");
  clock.Advance(TokenFile::kRefresh + std::chrono::seconds(1));
  EXPECT_EQ(authorization(), "Bearer second");
}

}  // namespace
}  // namespace stowage::client::token_file_test
