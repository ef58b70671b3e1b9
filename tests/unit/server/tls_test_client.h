// A blocking HTTPS/1.1 test client on raw sockets and OpenSSL, for the secure-server tests: it
// controls the TLS versions, suites, ALPN and client certificate it offers, can dribble bytes,
// and reads responses with a socket timeout so that a hung server fails a test instead of
// hanging it. Header-only; one client per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::server::testing {

struct ClientOptions {
  int min_version = 0;  // OpenSSL version constant; 0 = library default
  int max_version = 0;
  std::string cipher_list;        // TLS <= 1.2 suites; "" = default
  bool security_level_0 = false;  // needed for OpenSSL 3 to even offer TLS 1.0/1.1
  std::vector<std::string> alpn;  // offered protocols, e.g. {"h2", "http/1.1"}
  std::string cert_pem;           // client certificate chain (optional)
  std::string key_pem;
  int timeout_seconds = 30;  // generous: a bound on hangs, not a timing assertion
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names
  std::string body;
  std::string Header(const std::string& lower_name) const {
    for (const auto& [n, v] : headers) {
      if (n == lower_name) return v;
    }
    return "";
  }
  int CountHeader(const std::string& lower_name) const {
    int n = 0;
    for (const auto& h : headers) n += h.first == lower_name;
    return n;
  }
};

// Writing to a connection the server has closed must fail the write, not kill the test binary.
inline const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

inline std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    out += std::string(out.empty() ? "" : "; ") + buf;
  }
  return out;
}

// A connected TCP socket to 127.0.0.1:port with send/receive timeouts; -1 on failure.
inline int ConnectTcp(uint16_t port, int timeout_seconds = 30) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{timeout_seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class TlsClient {
 public:
  static StatusOr<std::unique_ptr<TlsClient>> Connect(uint16_t port, const ClientOptions& o = {}) {
    std::unique_ptr<TlsClient> c(new TlsClient());
    c->ctx_ = SSL_CTX_new(TLS_client_method());
    if (o.security_level_0) SSL_CTX_set_security_level(c->ctx_, 0);
    if (o.min_version) SSL_CTX_set_min_proto_version(c->ctx_, o.min_version);
    if (o.max_version) SSL_CTX_set_max_proto_version(c->ctx_, o.max_version);
    if (!o.cipher_list.empty() && SSL_CTX_set_cipher_list(c->ctx_, o.cipher_list.c_str()) != 1) {
      return InvalidArgumentError("client cipher list: " + OpenSslErrors());
    }
    if (!o.alpn.empty()) {
      std::string wire;
      for (const auto& p : o.alpn) wire += static_cast<char>(p.size()) + p;
      SSL_CTX_set_alpn_protos(c->ctx_, reinterpret_cast<const unsigned char*>(wire.data()),
                              static_cast<unsigned>(wire.size()));
    }
    if (!o.cert_pem.empty()) {
      BIO* cb = BIO_new_mem_buf(o.cert_pem.data(), static_cast<int>(o.cert_pem.size()));
      X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
      BIO_free(cb);
      BIO* kb = BIO_new_mem_buf(o.key_pem.data(), static_cast<int>(o.key_pem.size()));
      EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
      BIO_free(kb);
      SSL_CTX_use_certificate(c->ctx_, cert);
      SSL_CTX_use_PrivateKey(c->ctx_, key);
      X509_free(cert);
      EVP_PKEY_free(key);
    }
    c->fd_ = ConnectTcp(port, o.timeout_seconds);
    if (c->fd_ < 0) return UnavailableError("connect failed");
    c->ssl_ = SSL_new(c->ctx_);
    SSL_set_fd(c->ssl_, c->fd_);
    SSL_set_tlsext_host_name(c->ssl_, "localhost");
    if (SSL_connect(c->ssl_) != 1) {
      return UnavailableError("TLS handshake failed: " + OpenSslErrors());
    }
    return c;
  }

  ~TlsClient() {
    if (ssl_) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    if (ctx_) SSL_CTX_free(ctx_);
  }

  Status Write(std::string_view data) {
    size_t done = 0;
    while (done < data.size()) {
      int n = SSL_write(ssl_, data.data() + done, static_cast<int>(data.size() - done));
      if (n <= 0) return UnavailableError("write failed: " + OpenSslErrors());
      done += static_cast<size_t>(n);
    }
    return OkStatus();
  }

  // Reads one response; for HEAD requests pass head = true (no body follows).
  StatusOr<HttpResponse> ReadResponse(bool head = false) {
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill())
        return UnavailableError("connection ended before the response headers: [" + buf_ + "]");
    }
    HttpResponse r;
    std::string head_text = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    size_t line_end = head_text.find("\r\n");
    std::string status_line = head_text.substr(0, line_end);
    if (status_line.size() < 12) return InternalError("bad status line " + status_line);
    r.status = std::stoi(status_line.substr(9, 3));
    size_t pos = line_end == std::string::npos ? head_text.size() : line_end + 2;
    while (pos < head_text.size()) {
      size_t next = head_text.find("\r\n", pos);
      if (next == std::string::npos) next = head_text.size();
      std::string line = head_text.substr(pos, next - pos);
      size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers.emplace_back(name, value);
      pos = next + 2;
    }
    if (head || r.status / 100 == 1 || r.status == 204 || r.status == 304) return r;
    std::string cl = r.Header("content-length");
    if (cl.empty()) return InternalError("response without Content-Length");
    size_t want = std::stoul(cl);
    while (buf_.size() < want) {
      if (!Fill()) return UnavailableError("connection ended inside the response body");
    }
    r.body = buf_.substr(0, want);
    buf_.erase(0, want);
    return r;
  }

  StatusOr<HttpResponse> Request(const std::string& method, const std::string& target,
                                 const std::string& extra_headers = "",
                                 const std::string& body = "") {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + extra_headers;
    if (!body.empty()) req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    Status s = Write(req);
    if (!s.ok()) return s;
    return ReadResponse(method == "HEAD");
  }
  StatusOr<HttpResponse> Get(const std::string& target) { return Request("GET", target); }

  // True when the server closed the connection: a read returns end of stream or an error other
  // than the socket timeout.
  bool ServerClosed() {
    char c;
    int n = SSL_read(ssl_, &c, 1);
    if (n > 0) {
      buf_.push_back(c);
      return false;
    }
    int err = SSL_get_error(ssl_, n);
    ERR_clear_error();
    return err != SSL_ERROR_WANT_READ;
  }

  SSL* ssl() { return ssl_; }
  std::string PeerSerialHex() const {
    X509* leaf = SSL_get0_peer_certificate(ssl_);
    if (leaf == nullptr) return "";
    BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), nullptr);
    char* hex = BN_bn2hex(bn);
    std::string out(hex);
    OPENSSL_free(hex);
    BN_free(bn);
    return out;
  }
  std::string Alpn() const {
    const unsigned char* p = nullptr;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl_, &p, &n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }

 private:
  TlsClient() = default;
  bool Fill() {
    char tmp[16384];
    int n = SSL_read(ssl_, tmp, sizeof(tmp));
    if (n <= 0) {
      ERR_clear_error();
      return false;
    }
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  std::string buf_;
};

// One request on a fresh connection.
inline StatusOr<HttpResponse> HttpsGet(uint16_t port, const std::string& target,
                                       const ClientOptions& o = {}) {
  auto c = TlsClient::Connect(port, o);
  if (!c.ok()) return c.status();
  return (*c)->Get(target);
}

}  // namespace stowage::server::testing
