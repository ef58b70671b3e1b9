// The request and response values exchanged between the secure server and its handlers.
//
// A Request is built by the server once the whole request (headers and body) has been read; a
// Handler turns it into a Response, which the server then writes. Both are plain values: a
// handler may run on any worker thread and must be safe to call concurrently with itself. The
// server, not the handler, adds Date, Content-Length and the default Cache-Control header, and
// drops the body of a HEAD response.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stowage::server {

struct Request {
  std::string method;  // "GET", "PUT", ...
  std::string target;  // as sent on the request line, e.g. "/healthz?verbose"
  std::string path;    // the target's path, percent-decoded (Go's URL.Path)
  std::string query;   // the raw query after '?', without the '?' (Go's URL.RawQuery)
  // Header fields in arrival order, names lower-cased.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The client's certificate chain as presented, leaf first, DER; empty when the client sent
  // none. The server does NOT verify it: authentication does.
  std::vector<std::string> peer_certificates_der;
  std::string remote_address;  // "ip:port", IPv6 as "[ip]:port" (Go's RemoteAddr)

  // The value of the first header named lower_name, or "" when absent.
  std::string_view Header(std::string_view lower_name) const;
  // The first value of a query parameter, decoded as Go's url.ParseQuery does ('+' is a space);
  // nullopt when the parameter is absent. "?verbose" has the value "".
  std::optional<std::string> QueryParam(std::string_view name) const;
  // Every value of a query parameter, in order (e.g. repeated ?exclude=a&exclude=b).
  std::vector<std::string> QueryParams(std::string_view name) const;
  bool HasQueryParam(std::string_view name) const { return QueryParam(name).has_value(); }
};

struct Response {
  int status = 200;
  // Sent as Content-Type unless empty.
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra header fields (name as it should appear on the wire, value).
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the first extra header whose name equals name ignoring case, or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const;
};

using Handler = std::function<Response(const Request&)>;

// Go's http.Error: the message plus a newline, text/plain, with X-Content-Type-Options: nosniff.
Response ErrorResponse(int status, std::string_view message);

// Percent-decodes s ("%2F" -> "/"); with plus_as_space '+' becomes ' ' (query strings).
// nullopt when an escape is malformed, as Go's url.PathUnescape/QueryUnescape reject it.
std::optional<std::string> PercentDecode(std::string_view s, bool plus_as_space);

// Splits a request target into its percent-decoded path and raw query. Accepts origin-form
// ("/p?q"), absolute-form ("https://host/p?q") and "*"; false for anything else or a bad escape.
bool SplitRequestTarget(std::string_view target, std::string* path, std::string* query);

// Calls handler with upstream's panic recovery (WithPanicRecovery): an exception is logged and
// becomes a 500 with upstream's message.
Response InvokeWithPanicRecovery(const Handler& handler, const Request& req);

}  // namespace stowage::server
