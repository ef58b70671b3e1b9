// LoopbackServer: a bare HTTP/1.1 server on 127.0.0.1 for tests of the real client, which a
// scripted Transport cannot stand in for: what it does with bytes on a socket (a lying
// Content-Length, an endless body, a header that trickles in). Each connection's request is
// read whole (headers and a Content-Length body), then handed to answer with a Writer; once
// answer returns the connection stays open and silent until the client closes it, or, with
// keep_alive, reads the next request from it. What each
// connection managed to send is counted, so a test can bound what a client took without timing
// it. Thread-safe; the destructor stops every connection and joins its thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::testing {

class LoopbackServer {
 public:
  // Sends bytes; false once the client is gone or the server is stopping.
  using Writer = std::function<bool(std::string_view)>;
  // request: the request as received, headers and body.
  using Answer = std::function<void(const std::string& request, const Writer& write)>;

  explicit LoopbackServer(Answer answer, bool keep_alive = false);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  // 0 when the server could not listen.
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int Connections() const;
  // Connections the client has closed (with keep_alive; counted when the next read ends).
  int ClosedByClient() const { return closed_.load(); }
  // The most bytes one connection sent.
  size_t MaxSent() const;

 private:
  void Accept();
  void Serve(int fd, size_t index);

  const Answer answer_;
  const bool keep_alive_;
  std::atomic<int> closed_{0};
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable Mutex mu_;
  std::vector<int> fds_ GUARDED_BY(mu_);
  std::vector<size_t> sent_ GUARDED_BY(mu_);
  std::vector<std::thread> connections_ GUARDED_BY(mu_);
};

}  // namespace stowage::testing
