// sd_notify over a real AF_UNIX datagram socket bound by the test, by path and abstract name.
#include "pkg/common/sdnotify.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace stowage::sdnotify::sdnotify_test {
namespace {

// A bound datagram socket standing in for systemd's notification socket.
class Receiver {
 public:
  // name: a path, or "@name" for the abstract namespace.
  explicit Receiver(std::string name) : name_(std::move(name)) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name_.data(), name_.size());
    bool abstract = name_[0] == '@';
    if (abstract) addr.sun_path[0] = '\0';
    socklen_t len =
        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size() + (abstract ? 0 : 1));
    bound_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0;
  }
  ~Receiver() {
    ::close(fd_);
    if (name_[0] == '/') ::unlink(name_.c_str());
  }
  bool bound() const { return bound_; }
  // The next datagram (the sender has already sent it, so this does not wait).
  std::string Receive() {
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    return n < 0 ? std::string("<nothing>") : std::string(buf, static_cast<size_t>(n));
  }

 private:
  std::string name_;
  int fd_ = -1;
  bool bound_ = false;
};

std::string TempSocketPath() {
  return "/tmp/stowage-sdnotify-" + std::to_string(::getpid()) + ".sock";
}

TEST(SdNotify, SendsToAPathSocket) {
  Receiver r(TempSocketPath());
  ASSERT_TRUE(r.bound());
  EXPECT_TRUE(NotifySocket(TempSocketPath(), "READY=1"));
  EXPECT_EQ(r.Receive(), "READY=1");
}

TEST(SdNotify, SendsToAnAbstractSocket) {
  std::string name = "@stowage-sdnotify-test-" + std::to_string(::getpid());
  Receiver r(name);
  ASSERT_TRUE(r.bound());
  EXPECT_TRUE(NotifySocket(name, "STOPPING=1"));
  EXPECT_EQ(r.Receive(), "STOPPING=1");
}

TEST(SdNotify, NotifyReadsTheEnvironment) {
  Receiver r(TempSocketPath());
  ASSERT_TRUE(r.bound());
  ::setenv("NOTIFY_SOCKET", TempSocketPath().c_str(), 1);
  EXPECT_TRUE(Notify(StatusLine("leading\nelection")));
  EXPECT_EQ(r.Receive(), "STATUS=leading election");
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(Notify("READY=1"));
  EXPECT_EQ(r.Receive(), "<nothing>");
  ::setenv("NOTIFY_SOCKET", "", 1);
  EXPECT_FALSE(Notify("READY=1"));
  ::unsetenv("NOTIFY_SOCKET");
}

TEST(SdNotify, FailsWithoutAListener) {
  EXPECT_FALSE(
      NotifySocket("/tmp/stowage-sdnotify-nobody-" + std::to_string(::getpid()), "READY=1"));
  EXPECT_FALSE(NotifySocket("relative/path", "READY=1"));
  EXPECT_FALSE(NotifySocket("/" + std::string(200, 'x'), "READY=1"));
  EXPECT_FALSE(NotifySocket("", "READY=1"));
}

}  // namespace
}  // namespace stowage::sdnotify::sdnotify_test
