#include "tests/testing/loopback_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace stowage::testing {
namespace {

// Reads the request headers and its Content-Length body; empty when the client went away.
std::string ReadRequest(int fd) {
  std::string in;
  char buf[4096];
  size_t end = std::string::npos;
  while ((end = in.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return "";
    in.append(buf, static_cast<size_t>(n));
  }
  size_t length = 0;
  if (size_t at = in.find("Content-Length: "); at != std::string::npos && at < end) {
    length = std::stoul(in.substr(at + 16));
  }
  while (in.size() < end + 4 + length) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return "";
    in.append(buf, static_cast<size_t>(n));
  }
  return in;
}

}  // namespace

LoopbackServer::LoopbackServer(Answer answer, bool keep_alive)
    : answer_(std::move(answer)), keep_alive_(keep_alive) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
      ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return;  // port() stays 0
  }
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

LoopbackServer::~LoopbackServer() {
  stopping_ = true;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> connections;
  {
    MutexLock l(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);  // wakes a blocked send or recv
    connections.swap(connections_);
  }
  for (auto& t : connections) t.join();
  MutexLock l(mu_);
  for (int fd : fds_) ::close(fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int LoopbackServer::Connections() const {
  MutexLock l(mu_);
  return static_cast<int>(sent_.size());
}

size_t LoopbackServer::MaxSent() const {
  MutexLock l(mu_);
  return sent_.empty() ? 0 : *std::max_element(sent_.begin(), sent_.end());
}

void LoopbackServer::Accept() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;  // shut down
    // A small send buffer keeps what the kernel holds beyond what the client read small.
    int sndbuf = 64 << 10;
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    MutexLock l(mu_);
    fds_.push_back(fd);
    sent_.push_back(0);
    const size_t index = sent_.size() - 1;
    connections_.emplace_back([this, fd, index] { Serve(fd, index); });
  }
}

void LoopbackServer::Serve(int fd, size_t index) {
  do {
    const std::string request = ReadRequest(fd);
    if (request.empty()) {
      if (!stopping_) ++closed_;
      return;
    }
    answer_(request, [&](std::string_view bytes) {
      while (!bytes.empty() && !stopping_) {
        ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<size_t>(n));
        MutexLock l(mu_);
        sent_[index] += static_cast<size_t>(n);
      }
      return !stopping_.load();
    });
  } while (keep_alive_ && !stopping_);
  char buf[4096];
  while (!stopping_) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0 && ::recv(fd, buf, sizeof(buf), 0) <= 0) return;
  }
}

}  // namespace stowage::testing
