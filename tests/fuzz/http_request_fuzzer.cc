// Fuzzes how the secure port reads a request from the bytes a client sends. The server's reading
// is tied to its TLS socket (internal::Connection), so this target repeats its steps on a memory
// buffer: Beast's request parser with the server's header and body limits, the Host check,
// then the Request the handlers see (SplitRequestTarget, lower-cased header names) and the
// parsing handlers do on it (query parameters, Accept negotiation, pretty-printing). Requests
// are read one after another from the input, as on a keep-alive connection.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pkg/common/http_negotiation.h"
#include "pkg/server/http.h"
#include "pkg/server/serving_options.h"

namespace {

namespace http = boost::beast::http;
using stowage::server::Request;

// Feeds bytes to the parser as the socket would deliver them, until it has what it asked for
// (header_only: the header; otherwise the whole message). Returns the bytes consumed, or nullopt
// when the server would have answered with an error or closed.
std::optional<size_t> Feed(http::request_parser<http::string_body>& parser, std::string_view in,
                           bool header_only) {
  size_t used = 0;
  boost::system::error_code ec;
  while (header_only ? !parser.is_header_done() : !parser.is_done()) {
    std::string_view rest = in.substr(used);
    if (rest.empty()) {
      parser.put_eof(ec);
      if (ec || !parser.is_done()) return std::nullopt;
      break;
    }
    size_t n = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    used += n;
    if (ec == http::error::need_more) {
      if (n == 0) {  // the rest of the input cannot complete what the parser needs
        parser.put_eof(ec);
        if (ec || !parser.is_done()) return std::nullopt;
        break;
      }
      ec = {};
      continue;
    }
    if (ec) return std::nullopt;
  }
  return used;
}

// What the handlers do with a request: routing reads the path; health checks read ?verbose and
// ?exclude; error bodies are negotiated from Accept and User-Agent.
void Handle(const Request& req) {
  (void)req.QueryParam("verbose");
  (void)req.QueryParams("exclude");
  (void)stowage::ParseAccept(req.Header("accept"));
  (void)stowage::IsPrettyPrint(req.Header("user-agent"), req.query);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const stowage::server::ServingOptions options;
  while (!in.empty()) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    auto used = Feed(parser, in, true);
    if (!used) return 0;
    in.remove_prefix(*used);
    const auto& head = parser.get();
    if (head.version() >= 11 && head.find(http::field::host) == head.end()) return 0;
    used = Feed(parser, in, false);
    if (!used) return 0;
    in.remove_prefix(*used);
    auto msg = parser.release();
    Request req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    if (!stowage::server::SplitRequestTarget(req.target, &req.path, &req.query)) return 0;
    for (const auto& field : msg) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      req.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    req.body = std::move(msg.body());
    Handle(req);
    if (!msg.keep_alive()) return 0;
  }
  return 0;
}
