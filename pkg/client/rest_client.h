// RestClient: the verbs of the Kubernetes REST API over a Transport, with the client-side rate
// limit, retries of transient failures with backoff, Retry-After for 429 and 503, and mapping of
// HTTP errors to Status codes (errors.h). Thread-safe; one instance is shared by every informer
// and writer of a process, as a client-go clientset is.
//
// Retries: a request that never reached the server is retried whatever its verb; a 429, or a 5xx
// carrying Retry-After, is retried whatever its verb (the server did not process it); other 5xx
// answers and connections lost mid-answer are retried for GET only. Credentials never appear in
// logs or errors.
//
// Every attempt of a request is reported to the process-wide RequestObserver, if one is set
// (SetRequestObserver), which is how client-go's rest_client_* metrics are fed without this
// package depending on the metrics package.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "pkg/client/rate_limiter.h"
#include "pkg/client/rest_config.h"
#include "pkg/client/transport.h"
#include "stowage/common/status.h"

namespace stowage::client {

struct RetryPolicy {
  int max_retries = 5;
  Duration initial_backoff = std::chrono::milliseconds(200);
  Duration max_backoff = std::chrono::seconds(5);
  Duration max_retry_after = std::chrono::seconds(60);
};

inline constexpr std::string_view kMergePatch = "application/merge-patch+json";
inline constexpr std::string_view kStrategicMergePatch = "application/strategic-merge-patch+json";
inline constexpr std::string_view kJsonPatch = "application/json-patch+json";

// One attempt of a request, as client-go's request metrics see it.
struct RequestObservation {
  std::string_view verb;         // "GET", "POST", ...
  std::string_view host;         // the server's host:port, e.g. "127.0.0.1:6443"
  int code = 0;                  // HTTP status; 0 when no response was received
  Duration latency{};            // from sending the request to the response (or the error)
  Duration rate_limiter_wait{};  // spent waiting for the client-side rate limiter
  size_t request_bytes = 0;
  bool has_response_bytes = false;  // false for watch streams
  size_t response_bytes = 0;
  bool will_retry = false;  // the client retries after this attempt
};
using RequestObserver = void (*)(const RequestObservation&);

// Installs the observer every RestClient of the process reports its request attempts to;
// nullptr removes it. Set it once at startup; it is called concurrently from many threads, so
// it must be thread-safe, and it should be cheap.
void SetRequestObserver(RequestObserver observer);

class RestClient {
 public:
  RestClient(const RestConfig& config, std::unique_ptr<Transport> transport, RetryPolicy retry = {},
             Clock& clock = RealClock());
  // A client over the real HTTPS transport.
  static StatusOr<std::unique_ptr<RestClient>> New(const RestConfig& config);

  StatusOr<std::string> Get(std::string_view path);
  // A GET whose answer is asked for as accept (kProtobuf, say).
  StatusOr<std::string> Get(std::string_view path, std::string_view accept);
  StatusOr<std::string> Post(std::string_view path, std::string body);
  // A POST whose body is of content_type (kProtobuf, say); the answer is still JSON.
  StatusOr<std::string> Post(std::string_view path, std::string body,
                             std::string_view content_type);
  StatusOr<std::string> Put(std::string_view path, std::string body);
  StatusOr<std::string> Patch(std::string_view path, std::string body,
                              std::string_view content_type);
  StatusOr<std::string> Delete(std::string_view path);

  // Opens a watch (path includes "watch=true" and the resource version) and calls on_line for
  // each event line as it arrives. Returns OK when the server closes the stream normally, when
  // on_line returns false, or when stop is requested; the mapped error otherwise. Opening the
  // stream is rate-limited and retried like any GET; a stream that breaks is not retried here
  // (the reflector decides how to resume).
  // idle_timeout bounds the silence between two reads; it should exceed the server-side
  // timeoutSeconds of the watch.
  Status Watch(std::string_view path, const std::function<bool(std::string_view)>& on_line,
               std::stop_token stop, Duration idle_timeout = std::chrono::minutes(11));
  // As Watch, but asks for the stream as accept (kProtobufWatch, say) and passes its bytes as
  // they arrive to on_data, which frames them: it returns false to end the watch, setting
  // error when the stream is malformed.
  Status WatchBytes(std::string_view path, std::string_view accept,
                    const std::function<bool(std::string_view, Status& error)>& on_data,
                    std::stop_token stop, Duration idle_timeout);

  const RestConfig& config() const { return config_; }

 private:
  StatusOr<std::string> Do(std::string_view method, std::string_view path, std::string body,
                           std::string_view content_type, std::string_view accept = {});
  // Whether the answer r is of a kind ShouldRetry retries (attempts left aside).
  bool WouldRetry(std::string_view method, const StatusOr<HttpResponse>& r) const;
  // Decides whether to retry after an attempt and sleeps accordingly; false means give up.
  bool ShouldRetry(std::string_view method, const StatusOr<HttpResponse>& r, int attempt,
                   Duration& backoff, std::stop_token stop);

  void Observe(std::string_view verb, const StatusOr<HttpResponse>& r, MonoTime limiter_start,
               MonoTime start, MonoTime end, size_t request_bytes, bool has_response_bytes,
               bool will_retry) const;

  const RestConfig config_;
  const std::string host_;  // host:port of config_.server, the metrics' host label
  std::unique_ptr<Transport> transport_;
  const RetryPolicy retry_;
  Clock& clock_;
  RateLimiter limiter_;
};

}  // namespace stowage::client
