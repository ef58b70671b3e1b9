// Transport: one HTTP exchange with the API server, with authentication attached. RestClient
// builds retries, rate limiting and error mapping on top of it; unit tests substitute a fake.
//
// A Transport returns a non-OK Status only when no HTTP response was obtained (connect, TLS,
// timeout, broken connection); any HTTP status code is a successful round trip. Errors say
// which server and what failed, and from which stage, so callers can tell whether the request
// may have reached the server: kUnavailable means it was never sent. Thread-safe: concurrent
// calls use separate pooled connections.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "pkg/client/rest_config.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::client {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string target;  // path and query, e.g. "/api/v1/pods?limit=500"
  std::string body;
  std::string content_type;  // for bodies; default application/json
  // RoundTrip: one deadline for the whole exchange (connect, TLS, request, answer), however the
  // answer trickles in. Stream: the connect and request, then each silent gap. Default 60 s.
  Duration timeout{};
  std::string accept;  // the Accept header; default application/json
  // RoundTrip: the most bytes of body taken from the answer; beyond it the exchange fails with
  // kResourceExhausted, before reading more. 0: api::kMaxListBytes (a page of a list).
  size_t max_response_bytes = 0;
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string retry_after;  // the Retry-After header, if any
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends req and reads the whole response.
  virtual StatusOr<HttpResponse> RoundTrip(const HttpRequest& req) = 0;
  // Sends req; for a 200 answer passes body bytes to on_data as they arrive until the server
  // ends the body, on_data returns false, or stop is requested (then the result is OK with
  // status 200 and an empty body). Other answers are returned whole.
  virtual StatusOr<HttpResponse> Stream(const HttpRequest& req,
                                        const std::function<bool(std::string_view)>& on_data,
                                        std::stop_token stop) = 0;
};

// The real transport: HTTPS over Boost.Beast and OpenSSL, TLS 1.2+, server certificate always
// verified, HTTP/1.1 keep-alive with a pool of idle connections. Fails if the configuration is
// unusable (bad URL, unreadable certificates, a token file that is not a small regular file).
// clock times the token file's re-reads and the pool's idle limit; deadlines run on the steady
// clock of Beast's timers.
StatusOr<std::unique_ptr<Transport>> NewHttpsTransport(const RestConfig& config,
                                                       const Clock& clock = RealClock());

}  // namespace stowage::client
