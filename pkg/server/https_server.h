// SecureServer: stowage's secure port (kube-scheduler's 10259), an HTTPS/1.1 server built on
// Boost.Beast, Asio and OpenSSL.
//
//   auto server = SecureServer::Start(options, router_handler);   // listening when this returns
//   ... server->port() ...
//   server->Shutdown();                                           // or destroy it
//
// What it does (see ServingOptions for the knobs and defaults):
//   * TLS per tls_context.h: TLS 1.2+ with ECDHE-AEAD suites, ALPN http/1.1 only, optional
//     client-certificate request whose chain reaches the handler unverified.
//   * Certificate per serving_options.h: files re-read on change (new connections get the new
//     certificate, a bad replacement keeps the old one), or a self-signed one made in memory.
//   * HTTP/1.1 keep-alive, one request at a time per connection; handshake, header, body, write
//     and idle deadlines; 431 for oversized headers, 413 for oversized bodies; a connection cap
//     that evicts the longest-waiting idle connection.
//   * Handlers run on worker threads, never on the I/O thread; health paths have their own pool
//     so /healthz answers while other handlers block. A handler's exception becomes a 500.
//   * Adds Date, Content-Length and "Cache-Control: no-cache, private" (unless the handler set
//     Cache-Control); logs each request at V(5) (method, URI, latency, user agent, client, status).
//
// Thread-safety: port()/address() are safe anywhere; Shutdown() from one thread at a time. The
// handler is called concurrently from several threads. It must stay callable until Shutdown()
// returns — and, for a handler stuck past the shutdown grace, until it returns on its own thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "pkg/server/http.h"
#include "pkg/server/serving_options.h"
#include "stowage/common/status.h"

namespace stowage::server {

namespace internal {
struct Core;
}

class SecureServer {
 public:
  // Validates options, prepares the certificate, binds and starts serving. Errors say what was
  // wrong: a bad option, an unreadable or mismatched certificate, or "failed to listen on
  // <addr>:<port>: <reason>".
  static StatusOr<std::unique_ptr<SecureServer>> Start(ServingOptions options, Handler root);

  ~SecureServer();  // Shutdown()
  SecureServer(const SecureServer&) = delete;
  SecureServer& operator=(const SecureServer&) = delete;

  // The bound port (the ephemeral one when options.port was 0).
  uint16_t port() const { return port_; }
  // "ip:port" as bound, e.g. "0.0.0.0:10259" or "[::]:10259".
  const std::string& address() const { return address_; }

  // Stops accepting, closes idle connections, lets requests in flight finish and write their
  // response for up to options.shutdown_grace, then closes everything. Idempotent.
  void Shutdown();

  // Connections currently open, for tests.
  size_t OpenConnectionsForTest() const;

 private:
  explicit SecureServer(std::shared_ptr<internal::Core> core) : core_(std::move(core)) {}

  std::shared_ptr<internal::Core> core_;
  std::thread io_thread_;
  uint16_t port_ = 0;
  std::string address_;
  bool shut_down_ = false;
};

}  // namespace stowage::server
