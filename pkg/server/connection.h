// Internal to pkg/server: one accepted TLS connection and its HTTP/1.1 request loop.
//
//   handshake → wait for a request's first byte → read headers (→ "100 Continue") → read body
//   → run the handler on a worker → write the response → keep-alive? wait again : close
//
// Every step but the handler runs on the I/O thread and has its own deadline (ServingOptions), so
// a client that stalls anywhere costs one idle socket until its deadline, never a thread.
// Oversized headers get 431 and oversized bodies 413, then the connection closes. All methods
// must be called on the I/O thread.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/server/server_core.h"
#include "pkg/server/tls_context.h"
#include "stowage/common/clock.h"

namespace stowage::server::internal {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<Core> core, boost::asio::ip::tcp::socket socket, TlsContextPtr tls);

  void Start();
  // Aborts the connection now (eviction, forced shutdown); idempotent.
  void Close();
  // Graceful shutdown: closes now if no request is in progress, otherwise after its response.
  void CloseWhenIdle();

  // True while the connection is not working on a request: handshaking, waiting for or reading
  // request headers, or closing. Graceful shutdown closes such a connection at once.
  bool Idle() const { return state_ <= State::kClosing; }
  // True while the server waits on the client: Idle(), or a request body still arriving. Such a
  // connection may be evicted at the connection limit; a body is included so that clients
  // stalling mid-request cannot hold every connection and keep health probes out.
  bool Evictable() const { return state_ <= State::kReadingBody; }
  MonoTime since() const { return since_; }

  std::list<std::shared_ptr<Connection>>::iterator registry_pos;

 private:
  enum class State {
    kHandshake,
    kIdle,
    kReadingHeader,
    kClosing,
    kReadingBody,
    kHandling,
    kWriting
  };
  void SetState(State s);
  void OnHandshake(boost::system::error_code ec);
  void WaitForRequest();
  void ReadHeader();
  void OnHeader(boost::system::error_code ec);
  void ReadBody();
  void OnBody(boost::system::error_code ec);
  void Dispatch();
  void OnResponse(Response res, const std::string& method, const std::string& target,
                  const std::string& user_agent, MonoTime start);
  void WriteResponse(Response res, bool head);
  void OnWritten(boost::system::error_code ec);
  // Answers a request the server rejects before any handler (400, 413, 431), then closes.
  void RejectAndClose(int status, const std::string& text);
  void GracefulClose();

  // core_ and tls_ are declared first so they outlive the stream that refers to them.
  std::shared_ptr<Core> core_;
  TlsContextPtr tls_;
  boost::beast::ssl_stream<boost::beast::tcp_stream> stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  boost::beast::http::response<boost::beast::http::empty_body> continue_;
  std::string remote_address_;
  std::vector<std::string> peer_chain_;
  State state_ = State::kHandshake;
  MonoTime since_;
  bool first_request_ = true;
  bool keep_alive_ = false;
  bool close_after_response_ = false;
  bool closed_ = false;
};

}  // namespace stowage::server::internal
