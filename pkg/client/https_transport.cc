// The HTTPS transport: the only file of pkg/client that includes Boost.Beast and Asio, so their
// compile cost is paid once. Each pooled connection owns a private io_context and every
// operation runs it to completion in the calling thread; that gives blocking calls with
// timeouts (Beast's timers only apply to asynchronous operations). A round trip has one
// deadline for all of it (connect, TLS, request, answer), checked between the pieces of the
// answer too, since Beast's timer alone does not stop a reader that data keeps arriving for.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/client/token_file.h"
#include "pkg/client/transport.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::client {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;  // Beast's timers' clock

constexpr Duration kDefaultTimeout = std::chrono::seconds(60);
constexpr Duration kMaxIdle = std::chrono::seconds(30);  // below the apiserver's idle timeout
// Room for every thread that may have a request open at once (the binding cycles' 128 PreBind
// threads and the rest): a connection the pool cannot keep is closed, and the next request pays
// a TLS handshake for itself and for the apiserver.
constexpr size_t kMaxIdleConnections = 192;
constexpr uint32_t kHeaderLimit = 64 * 1024;
constexpr size_t kStreamChunk = 64 * 1024;

// "5s", "500ms": a timeout as the configuration writes it, for errors.
std::string Format(Duration d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

struct ServerUrl {
  std::string host;  // without brackets for IPv6
  std::string port;
  std::string prefix;  // path prefix, without a trailing slash
  bool host_is_ip = false;
  bool tls = true;  // false only for an http:// server the configuration allows
};

StatusOr<ServerUrl> ParseServer(const RestConfig& c) {
  std::string_view s = c.server;
  ServerUrl u;
  if (s.starts_with("http://") && c.allow_plain_http) {
    u.tls = false;
    s.remove_prefix(7);
  } else if (s.starts_with("http://")) {
    return InvalidArgumentError("server " + c.server + " (" + c.source +
                                "): stowage talks to the API server over https only");
  } else if (!s.starts_with("https://")) {
    return InvalidArgumentError("server \"" + c.server + "\" (" + c.source +
                                "): expected a URL of the form https://host:port");
  } else {
    s.remove_prefix(8);
  }
  size_t slash = s.find('/');
  std::string_view hostport = s.substr(0, slash);
  if (slash != std::string_view::npos) {
    u.prefix = std::string(s.substr(slash));
    while (!u.prefix.empty() && u.prefix.back() == '/') u.prefix.pop_back();
  }
  if (hostport.starts_with('[')) {
    size_t close = hostport.find(']');
    if (close == std::string_view::npos)
      return InvalidArgumentError("server \"" + c.server + "\": bad IPv6 address");
    u.host = std::string(hostport.substr(1, close - 1));
    if (close + 1 < hostport.size() && hostport[close + 1] == ':') {
      u.port = std::string(hostport.substr(close + 2));
    }
  } else {
    size_t colon = hostport.rfind(':');
    u.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) u.port = std::string(hostport.substr(colon + 1));
  }
  if (u.port.empty()) u.port = u.tls ? "443" : "80";
  if (u.host.empty()) return InvalidArgumentError("server \"" + c.server + "\": missing host");
  boost::system::error_code ec;
  asio::ip::make_address(u.host, ec);
  u.host_is_ip = !ec;
  return u;
}

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// Adds every certificate of a PEM bundle to the context's trust store.
Status AddCaBundle(SSL_CTX* ctx, const std::string& pem, const std::string& source) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return InternalError("out of memory reading CA bundle");
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  BIO_free(bio);
  ERR_clear_error();  // the loop ends with a "no start line" error by design
  if (added == 0) {
    return InvalidArgumentError("certificate authority of " + source +
                                ": no PEM certificate found");
  }
  return OkStatus();
}

struct Connection {
  explicit Connection(ssl::context& ctx) : stream(ioc, ctx) {}
  asio::io_context ioc;
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  MonoTime idle_since{};
  bool open = false;    // connected and TLS established
  bool pooled = false;  // has been idle in the pool (the server may have closed it since)
};

// Runs one asynchronous operation on c's io_context until it completes; returns its error.
template <typename Start>
beast::error_code RunOp(Connection& c, Start&& start) {
  beast::error_code out;
  start([&out](beast::error_code ec, auto&&...) { out = ec; });
  c.ioc.restart();
  c.ioc.run();
  return out;
}

// Runs op on the connection's TLS stream, or on its TCP stream for a plain-HTTP server.
template <typename Op>
beast::error_code OnStream(Connection& c, bool tls, Op&& op) {
  if (tls) return op(c.stream);
  return op(beast::get_lowest_layer(c.stream));
}

class HttpsTransport final : public Transport {
 public:
  HttpsTransport(RestConfig config, ServerUrl url, const Clock& clock)
      : config_(std::move(config)),
        url_(std::move(url)),
        clock_(clock),
        ctx_(ssl::context::tls_client) {}

  Status Init() {
    SSL_CTX* ctx = ctx_.native_handle();
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!config_.ca_pem.empty()) {
      if (auto s = AddCaBundle(ctx, config_.ca_pem, config_.source); !s.ok()) return s;
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return InternalError("cannot load the system trust store: " + OpenSslError());
    }
    if (!config_.client_cert_pem.empty() || !config_.client_key_pem.empty()) {
      beast::error_code ec;
      ctx_.use_certificate_chain(asio::buffer(config_.client_cert_pem), ec);
      if (ec) {
        return InvalidArgumentError("client certificate of " + config_.source + ": " +
                                    ec.message());
      }
      ctx_.use_private_key(asio::buffer(config_.client_key_pem), ssl::context::pem, ec);
      if (ec) {
        return InvalidArgumentError("client key of " + config_.source + ": " + ec.message());
      }
    }
    host_header_ = url_.host_is_ip && url_.host.find(':') != std::string::npos
                       ? "[" + url_.host + "]:" + url_.port
                       : url_.host + ":" + url_.port;
    if (!config_.bearer_token_file.empty()) {
      token_file_.emplace(config_.bearer_token_file, config_.source, clock_);
      if (auto s = token_file_->Load(); !s.ok()) return s;
    }
    return OkStatus();
  }

  StatusOr<HttpResponse> RoundTrip(const HttpRequest& req) override {
    // The retry below spends what is left of the same deadline, not a new one.
    const auto deadline = SteadyClock::now() + TimeoutOf(req);
    for (int attempt = 0;; ++attempt) {
      auto conn = Acquire();
      bool reused = conn->pooled;
      auto r = Exchange(*conn, req, deadline);
      if (r.ok()) {
        Release(std::move(conn));
        return r;
      }
      // A pooled connection the server closed while idle fails before any answer; the
      // request is then safe to send again on a fresh connection if it is idempotent.
      if (reused && attempt == 0 && r.status().code() == StatusCode::kDataLoss &&
          req.method != "POST" && req.method != "PATCH") {
        continue;
      }
      return r;
    }
  }

  StatusOr<HttpResponse> Stream(const HttpRequest& req,
                                const std::function<bool(std::string_view)>& on_data,
                                std::stop_token stop) override {
    auto conn = NewConnection();
    Connection& c = *conn;
    // Cancelling the socket from the requesting thread ends the blocked read promptly.
    std::stop_callback on_stop(
        stop, [&c] { asio::post(c.ioc, [&c] { beast::get_lowest_layer(c.stream).cancel(); }); });
    Duration idle = TimeoutOf(req);
    if (auto s = Connect(c, SteadyClock::now() + idle, idle); !s.ok())
      return stop.stop_requested() ? Stopped() : StatusOr<HttpResponse>(s);
    if (auto s = Send(c, req, SteadyClock::now() + idle, idle); !s.ok())
      return stop.stop_requested() ? Stopped() : StatusOr<HttpResponse>(s);

    http::response_parser<http::buffer_body> p;
    p.header_limit(kHeaderLimit);
    p.body_limit(boost::none);  // a watch has no end; each event is bounded by the splitter
    beast::get_lowest_layer(c.stream).expires_after(idle);
    auto ec = OnStream(c, url_.tls, [&](auto& st) {
      return RunOp(c, [&](auto h) { http::async_read_header(st, c.buffer, p, h); });
    });
    if (ec) {
      return stop.stop_requested() ? Stopped()
                                   : StatusOr<HttpResponse>(ReadError(req, ec, idle, 0));
    }

    HttpResponse resp;
    resp.status = static_cast<int>(p.get().result_int());
    resp.retry_after = std::string(p.get()[http::field::retry_after]);
    std::vector<char> buf(kStreamChunk);
    while (!p.is_done()) {
      if (stop.stop_requested()) return Stopped();
      p.get().body().data = buf.data();
      p.get().body().size = buf.size();
      beast::get_lowest_layer(c.stream).expires_after(idle);
      ec = OnStream(c, url_.tls, [&](auto& st) {
        return RunOp(c, [&](auto h) { http::async_read_some(st, c.buffer, p, h); });
      });
      if (ec == http::error::need_buffer) ec = {};
      size_t n = buf.size() - p.get().body().size;
      if (n > 0) {
        std::string_view chunk(buf.data(), n);
        if (resp.status != 200) {
          if (resp.body.size() + n > api::kMaxObjectBytes) break;
          resp.body.append(chunk);
        } else if (!on_data(chunk)) {
          return Stopped();
        }
      }
      if (ec) {
        if (stop.stop_requested()) return Stopped();
        if (ec == beast::error::timeout) {
          return DeadlineExceededError(Describe(req) + ": timed out: silent for " + Format(idle));
        }
        return ReadError(req, ec, idle, 0);
      }
    }
    return resp;
  }

 private:
  static Duration TimeoutOf(const HttpRequest& req) {
    return req.timeout > Duration::zero() ? req.timeout : kDefaultTimeout;
  }

  static StatusOr<HttpResponse> Stopped() {
    HttpResponse r;
    r.status = 200;
    return r;
  }

  std::unique_ptr<Connection> NewConnection() { return std::make_unique<Connection>(ctx_); }

  // An idle HTTP/1.1 connection has nothing to read; if its socket is readable, the server
  // closed it (EOF or reset), e.g. because the apiserver restarted, and it must not be reused.
  static bool PeerClosed(Connection& c) {
    pollfd p{beast::get_lowest_layer(c.stream).socket().native_handle(), POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;
  }

  std::unique_ptr<Connection> Acquire() {
    MutexLock l(mu_);
    MonoTime now = clock_.Now();
    while (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      if (now - c->idle_since < kMaxIdle && !PeerClosed(*c)) return c;
    }
    return NewConnection();
  }

  void Release(std::unique_ptr<Connection> c) {
    if (!c->open) return;
    c->pooled = true;
    c->idle_since = clock_.Now();
    std::vector<std::unique_ptr<Connection>> stale;  // closed after the lock is released
    MutexLock l(mu_);
    // The oldest idle connections sit at the front (Acquire takes the newest): close those the
    // apiserver may be about to drop, so a burst's connections do not stay open for good.
    auto fresh = std::find_if(idle_.begin(), idle_.end(), [&](const auto& i) {
      return c->idle_since - i->idle_since < kMaxIdle;
    });
    stale.assign(std::make_move_iterator(idle_.begin()), std::make_move_iterator(fresh));
    idle_.erase(idle_.begin(), fresh);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(c));
  }

  StatusOr<HttpResponse> Exchange(Connection& c, const HttpRequest& req,
                                  SteadyClock::time_point deadline) {
    const Duration timeout = TimeoutOf(req);
    if (!c.open) {
      if (auto s = Connect(c, deadline, timeout); !s.ok()) return s;
      c.open = true;
    }
    if (auto s = Send(c, req, deadline, timeout); !s.ok()) return s;
    const size_t limit = req.max_response_bytes > 0 ? req.max_response_bytes : api::kMaxListBytes;
    http::response_parser<http::string_body> p;
    p.header_limit(kHeaderLimit);
    p.body_limit(limit);
    beast::get_lowest_layer(c.stream).expires_at(deadline);
    // The header alone first. http::async_read parses eagerly, and Boost 1.74's eager parser
    // goes on past a Content-Length above body_limit when body bytes came in the same read: it
    // clears the error and reserves whatever the server claimed. Whether they come together
    // is a race, which is how a third answer of "Content-Length: 4294967296" got through after
    // two were refused.
    auto ec = OnStream(c, url_.tls, [&](auto& st) {
      return RunOp(c, [&](auto h) { http::async_read_header(st, c.buffer, p, h); });
    });
    // Then the body piece by piece, the deadline checked between pieces: Beast's timer is
    // cancelled by a read that completes in the turn it expires, so while data keeps coming it
    // never fires.
    while (!ec && !p.is_done()) {
      if (SteadyClock::now() >= deadline) {
        ec = beast::error::timeout;
        break;
      }
      ec = OnStream(c, url_.tls, [&](auto& st) {
        return RunOp(c, [&](auto h) { http::async_read_some(st, c.buffer, p, h); });
      });
    }
    if (ec) return ReadError(req, ec, timeout, limit);
    HttpResponse resp;
    resp.status = static_cast<int>(p.get().result_int());
    resp.retry_after = std::string(p.get()[http::field::retry_after]);
    resp.body = std::move(p.get().body());
    if (!p.get().keep_alive()) {
      c.open = false;  // Release() drops it
      beast::error_code ignored;
      beast::get_lowest_layer(c.stream).socket().close(ignored);
    }
    return resp;
  }

  // deadline bounds the TCP connection and the TLS handshake; name resolution is synchronous
  // and bounded by the system resolver's own timeouts.
  Status Connect(Connection& c, SteadyClock::time_point deadline, Duration timeout) {
    tcp::resolver resolver(c.ioc);
    beast::error_code ec;
    auto endpoints = resolver.resolve(url_.host, url_.port, ec);
    if (ec) return UnavailableError("resolving " + config_.server + ": " + ec.message());
    beast::get_lowest_layer(c.stream).expires_at(deadline);
    ec = RunOp(c, [&](auto h) { beast::get_lowest_layer(c.stream).async_connect(endpoints, h); });
    if (ec) {
      return UnavailableError("connecting to " + config_.server + ": " + Why(ec, timeout));
    }
    if (!url_.tls) return OkStatus();

    SSL* ssl = c.stream.native_handle();
    const std::string& name = config_.tls_server_name.empty() ? url_.host : config_.tls_server_name;
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    boost::system::error_code ip_ec;
    asio::ip::make_address(name, ip_ec);
    if (!ip_ec) {
      X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, name.c_str());
      X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    }
    ec = RunOp(c, [&](auto h) { c.stream.async_handshake(ssl::stream_base::client, h); });
    if (ec) {
      long verify = SSL_get_verify_result(ssl);
      std::string why = verify != X509_V_OK
                            ? std::string("server certificate not trusted: ") +
                                  X509_verify_cert_error_string(verify) +
                                  " (check the certificate authority in " + config_.source + ")"
                            : Why(ec, timeout);
      ERR_clear_error();
      return UnavailableError("TLS handshake with " + config_.server + " failed: " + why);
    }
    return OkStatus();
  }

  Status Send(Connection& c, const HttpRequest& req, SteadyClock::time_point deadline,
              Duration timeout) {
    http::request<http::string_body> r;
    r.method(http::string_to_verb(req.method));
    r.target(url_.prefix + req.target);
    r.version(11);
    r.set(http::field::host, host_header_);
    r.set(http::field::user_agent, config_.user_agent);
    r.set(http::field::accept, req.accept.empty() ? std::string("application/json") : req.accept);
    if (std::string token = Token(); !token.empty()) {
      r.set(http::field::authorization, "Bearer " + token);
    }
    if (!req.body.empty()) {
      r.set(http::field::content_type,
            req.content_type.empty() ? "application/json" : req.content_type);
      r.body() = req.body;
    }
    r.keep_alive(true);
    r.prepare_payload();
    beast::get_lowest_layer(c.stream).expires_at(deadline);
    auto ec = OnStream(c, url_.tls, [&](auto& st) {
      return RunOp(c, [&](auto h) { http::async_write(st, r, h); });
    });
    if (ec) {
      return DataLossError(req.method + " " + req.target + " to " + config_.server +
                           ": connection lost while sending: " + Why(ec, timeout));
    }
    return OkStatus();
  }

  static std::string Why(beast::error_code ec, Duration timeout) {
    if (ec != beast::error::timeout) return ec.message();
    return "timed out: the deadline of " + Format(timeout) + " for the whole exchange passed";
  }

  // limit: the body limit the answer had (0: none).
  std::string Describe(const HttpRequest& req) const {
    return req.method + " " + req.target + " to " + config_.server;
  }

  Status ReadError(const HttpRequest& req, beast::error_code ec, Duration timeout, size_t limit) {
    std::string what = Describe(req);
    if (ec == beast::error::timeout) return DeadlineExceededError(what + ": " + Why(ec, timeout));
    if (ec == http::error::body_limit) {
      return ResourceExhaustedError(what + ": answer larger than the limit of " +
                                    std::to_string(limit) + " bytes");
    }
    if (ec == http::error::header_limit) {
      return ResourceExhaustedError(what + ": response headers larger than the limit");
    }
    return DataLossError(what + ": connection lost before a complete answer: " + ec.message());
  }

  std::string Token() { return token_file_ ? token_file_->Get() : config_.bearer_token; }

  const RestConfig config_;
  const ServerUrl url_;
  const Clock& clock_;
  ssl::context ctx_;
  std::string host_header_;
  Mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(mu_);
  std::optional<TokenFile> token_file_;  // set once by Init, before any request
};

}  // namespace

StatusOr<std::unique_ptr<Transport>> NewHttpsTransport(const RestConfig& config,
                                                       const Clock& clock) {
  auto url = ParseServer(config);
  if (!url.ok()) return url.status();
  auto t = std::make_unique<HttpsTransport>(config, std::move(*url), clock);
  if (auto s = t->Init(); !s.ok()) return s;
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace stowage::client
