// The per-connection request loop on Beast's TLS stream.
#include "pkg/server/connection.h"

#include <strings.h>

#include <boost/asio/ssl/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <ctime>

#include "pkg/common/logging.h"

namespace stowage::server::internal {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;

constexpr size_t kReadChunk = 16 * 1024;
constexpr auto kCloseNotifyTimeout = std::chrono::seconds(1);

std::string FormatRemote(const asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.remote_endpoint(ec);
  if (ec) return "";
  std::string ip = ep.address().to_string();
  if (ep.address().is_v6()) ip = "[" + ip + "]";
  return ip + ":" + std::to_string(ep.port());
}

std::string HttpDate() {
  std::time_t now = std::time(nullptr);
  std::tm tm;
  gmtime_r(&now, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

bool IsQuietError(const boost::system::error_code& ec) {
  return ec == asio::error::operation_aborted || ec == beast::error::timeout ||
         ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::ssl::error::stream_truncated || ec == http::error::partial_message;
}

}  // namespace

Connection::Connection(std::shared_ptr<Core> core, asio::ip::tcp::socket socket, TlsContextPtr tls)
    : core_(std::move(core)),
      tls_(std::move(tls)),
      stream_(std::move(socket), *tls_),
      buffer_(core_->options.max_header_bytes + kReadChunk),
      continue_(http::status::continue_, 11),
      since_(RealClock().Now()) {
  remote_address_ = FormatRemote(beast::get_lowest_layer(stream_).socket());
}

void Connection::SetState(State s) {
  state_ = s;
  since_ = RealClock().Now();
}

void Connection::Start() {
  SetState(State::kHandshake);
  beast::get_lowest_layer(stream_).expires_after(core_->options.read_header_timeout);
  stream_.async_handshake(
      asio::ssl::stream_base::server,
      [self = shared_from_this()](boost::system::error_code ec) { self->OnHandshake(ec); });
}

void Connection::OnHandshake(boost::system::error_code ec) {
  if (closed_) return;
  if (ec) {
    // Go logs handshake errors at V(5) too (tlsHandshakeErrorWriter).
    VLOG(5, "http: TLS handshake error from {}: {}", remote_address_, ec.message());
    Close();
    return;
  }
  peer_chain_ = PeerCertificateChainDer(stream_.native_handle());
  WaitForRequest();
}

void Connection::WaitForRequest() {
  if (close_after_response_ || core_->shutting_down) {
    GracefulClose();
    return;
  }
  SetState(State::kIdle);
  if (buffer_.size() > 0) {  // the client already sent (part of) the next request
    ReadHeader();
    return;
  }
  // The first request gets the header deadline from connect; later ones wait as idle keep-alives.
  beast::get_lowest_layer(stream_).expires_after(first_request_ ? core_->options.read_header_timeout
                                                                : core_->options.idle_timeout);
  stream_.async_read_some(buffer_.prepare(kReadChunk),
                          [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                            if (self->closed_) return;
                            if (ec) {
                              if (!IsQuietError(ec))
                                VLOG(5, "reading from {}: {}", self->remote_address_, ec.message());
                              self->Close();
                              return;
                            }
                            self->buffer_.commit(n);
                            self->ReadHeader();
                          });
}

void Connection::ReadHeader() {
  SetState(State::kReadingHeader);
  first_request_ = false;
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(core_->options.max_header_bytes));
  parser_->body_limit(core_->options.max_body_bytes);
  beast::get_lowest_layer(stream_).expires_after(core_->options.read_header_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](boost::system::error_code ec, size_t) { self->OnHeader(ec); });
}

void Connection::OnHeader(boost::system::error_code ec) {
  if (closed_) return;
  if (ec == http::error::header_limit) {
    RejectAndClose(431, "431 Request Header Fields Too Large");
    return;
  }
  if (ec == http::error::body_limit) {
    RejectAndClose(413, "413 Request Entity Too Large");
    return;
  }
  if (ec) {
    if (IsQuietError(ec) || ec == asio::error::connection_reset) {
      Close();
    } else {
      RejectAndClose(400, "400 Bad Request");
    }
    return;
  }
  const auto& req = parser_->get();
  if (req.version() >= 11 && req.find(http::field::host) == req.end()) {
    RejectAndClose(400, "400 Bad Request: missing required Host header");
    return;
  }
  if (parser_->is_done()) {
    Dispatch();
    return;
  }
  SetState(State::kReadingBody);
  auto expect = req[http::field::expect];
  if (expect.size() == 12 && strncasecmp(expect.data(), "100-continue", 12) == 0) {
    beast::get_lowest_layer(stream_).expires_after(core_->options.write_timeout);
    http::async_write(stream_, continue_,
                      [self = shared_from_this()](boost::system::error_code ec, size_t) {
                        if (self->closed_) return;
                        if (ec) {
                          self->Close();
                          return;
                        }
                        self->ReadBody();
                      });
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  beast::get_lowest_layer(stream_).expires_after(core_->options.read_body_timeout);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](boost::system::error_code ec, size_t) { self->OnBody(ec); });
}

void Connection::OnBody(boost::system::error_code ec) {
  if (closed_) return;
  if (ec == http::error::body_limit) {
    RejectAndClose(413, "413 Request Entity Too Large");
    return;
  }
  if (ec) {
    Close();
    return;
  }
  Dispatch();
}

void Connection::Dispatch() {
  SetState(State::kHandling);
  beast::get_lowest_layer(stream_).expires_never();
  auto msg = parser_->release();
  parser_.reset();
  Request req;
  req.method = std::string(msg.method_string());
  req.target = std::string(msg.target());
  if (!SplitRequestTarget(req.target, &req.path, &req.query)) {
    RejectAndClose(400, "400 Bad Request");
    return;
  }
  keep_alive_ = msg.keep_alive();
  for (const auto& field : msg) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    req.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  req.body = std::move(msg.body());
  req.peer_certificates_der = peer_chain_;
  req.remote_address = remote_address_;

  auto self = shared_from_this();
  MonoTime start = RealClock().Now();
  WorkerPool& pool = core_->IsFastLane(req.path) ? core_->fast_pool : core_->pool;
  bool queued = pool.Submit([self, start, req = std::move(req)]() {
    Response res = InvokeWithPanicRecovery(self->core_->handler, req);
    std::string user_agent(req.Header("user-agent"));
    self->core_->PostToIo([self, res = std::move(res), method = req.method, target = req.target,
                           user_agent = std::move(user_agent), start]() mutable {
      self->OnResponse(std::move(res), method, target, user_agent, start);
    });
  });
  if (!queued) Close();
}

void Connection::OnResponse(Response res, const std::string& method, const std::string& target,
                            const std::string& user_agent, MonoTime start) {
  if (closed_) return;
  // WithCacheControl: responses are per-user and must not be cached unless a handler says so.
  if (!res.Header("Cache-Control")) res.headers.emplace_back("Cache-Control", "no-cache, private");
  // WithHTTPLogging at V(5); the Authorization header is never logged.
  VLOG(5, "HTTP verb=\"{}\" URI=\"{}\" latency=\"{:.6f}ms\" userAgent=\"{}\" srcIP=\"{}\" resp={}",
       method, target, std::chrono::duration<double, std::milli>(RealClock().Now() - start).count(),
       user_agent, remote_address_, res.status);
  WriteResponse(std::move(res), method == "HEAD");
}

void Connection::WriteResponse(Response res, bool head) {
  SetState(State::kWriting);
  response_ = {};
  response_.version(11);
  response_.result(static_cast<unsigned>(res.status));
  response_.set(http::field::date, HttpDate());
  if (!res.content_type.empty()) response_.set(http::field::content_type, res.content_type);
  for (auto& [name, value] : res.headers) response_.insert(name, value);
  bool keep = keep_alive_ && !close_after_response_ && !core_->shutting_down;
  response_.keep_alive(keep);
  bool no_body = res.status / 100 == 1 || res.status == 204 || res.status == 304;
  if (no_body) {
    response_.body().clear();
  } else if (head) {
    response_.content_length(res.body.size());
  } else {
    response_.body() = std::move(res.body);
    response_.content_length(response_.body().size());
  }
  keep_alive_ = keep;
  beast::get_lowest_layer(stream_).expires_after(core_->options.write_timeout);
  http::async_write(
      stream_, response_,
      [self = shared_from_this()](boost::system::error_code ec, size_t) { self->OnWritten(ec); });
}

void Connection::OnWritten(boost::system::error_code ec) {
  if (closed_) return;
  response_ = {};
  if (ec) {
    Close();
    return;
  }
  if (!keep_alive_) {
    GracefulClose();
    return;
  }
  WaitForRequest();
}

void Connection::RejectAndClose(int status, const std::string& text) {
  parser_.reset();
  keep_alive_ = false;
  close_after_response_ = true;
  Response res;
  res.status = status;
  res.body = text;
  res.headers.emplace_back("X-Content-Type-Options", "nosniff");
  WriteResponse(std::move(res), false);
}

void Connection::GracefulClose() {
  if (closed_) return;
  SetState(State::kClosing);
  // Send close_notify; the peer's reply is awaited briefly, then the socket is closed anyway.
  beast::get_lowest_layer(stream_).expires_after(kCloseNotifyTimeout);
  stream_.async_shutdown([self = shared_from_this()](boost::system::error_code) { self->Close(); });
}

void Connection::CloseWhenIdle() {
  if (Idle()) {
    Close();
  } else {
    close_after_response_ = true;
  }
}

void Connection::Close() {
  if (closed_) return;
  auto self = shared_from_this();  // Unregister drops the registry's reference
  closed_ = true;
  state_ = State::kClosing;
  auto& sock = beast::get_lowest_layer(stream_).socket();
  boost::system::error_code ignored;
  sock.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(stream_).close();
  core_->Unregister(this);
}

}  // namespace stowage::server::internal
