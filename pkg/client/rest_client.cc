#include "pkg/client/rest_client.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <optional>

#include "pkg/api/decode.h"
#include "pkg/client/errors.h"
#include "pkg/client/line_splitter.h"
#include "pkg/common/logging.h"

namespace stowage::client {
namespace {

Duration ParseRetryAfter(std::string_view v, Duration cap) {
  int secs = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), secs);
  if (r.ec != std::errc() || secs < 0) return Duration::zero();
  return std::min<Duration>(std::chrono::seconds(secs), cap);
}

bool IsSuccess(int code) { return code >= 200 && code < 300; }

double Millis(Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::atomic<RequestObserver> g_observer{nullptr};

// "https://host:port/prefix" -> "host:port".
std::string HostOf(std::string_view server) {
  if (auto scheme = server.find("://"); scheme != std::string_view::npos) {
    server.remove_prefix(scheme + 3);
  }
  return std::string(server.substr(0, server.find('/')));
}

}  // namespace

void SetRequestObserver(RequestObserver observer) {
  g_observer.store(observer, std::memory_order_release);
}

void RestClient::Observe(std::string_view verb, const StatusOr<HttpResponse>& r,
                         MonoTime limiter_start, MonoTime start, MonoTime end, size_t request_bytes,
                         bool has_response_bytes, bool will_retry) const {
  RequestObserver observer = g_observer.load(std::memory_order_acquire);
  if (observer == nullptr) return;
  RequestObservation o;
  o.verb = verb;
  o.host = host_;
  o.code = r.ok() ? r->status : 0;
  o.latency = end - start;
  o.rate_limiter_wait = start - limiter_start;
  o.request_bytes = request_bytes;
  o.has_response_bytes = has_response_bytes && r.ok();
  o.response_bytes = r.ok() ? r->body.size() : 0;
  o.will_retry = will_retry;
  observer(o);
}

RestClient::RestClient(const RestConfig& config, std::unique_ptr<Transport> transport,
                       RetryPolicy retry, Clock& clock)
    : config_(config),
      host_(HostOf(config.server)),
      transport_(std::move(transport)),
      retry_(retry),
      clock_(clock),
      limiter_(config.qps, config.burst, clock) {}

StatusOr<std::unique_ptr<RestClient>> RestClient::New(const RestConfig& config) {
  auto t = NewHttpsTransport(config);
  if (!t.ok()) return t.status();
  RetryPolicy retry;
  retry.max_retries = config.max_retries;
  return std::make_unique<RestClient>(config, std::move(*t), retry);
}

StatusOr<std::string> RestClient::Get(std::string_view path) { return Do("GET", path, "", ""); }
StatusOr<std::string> RestClient::Get(std::string_view path, std::string_view accept) {
  return Do("GET", path, "", "", accept);
}
StatusOr<std::string> RestClient::Post(std::string_view path, std::string body) {
  return Do("POST", path, std::move(body), "");
}
StatusOr<std::string> RestClient::Post(std::string_view path, std::string body,
                                       std::string_view content_type) {
  return Do("POST", path, std::move(body), content_type);
}
StatusOr<std::string> RestClient::Put(std::string_view path, std::string body) {
  return Do("PUT", path, std::move(body), "");
}
StatusOr<std::string> RestClient::Patch(std::string_view path, std::string body,
                                        std::string_view content_type) {
  return Do("PATCH", path, std::move(body), content_type);
}
StatusOr<std::string> RestClient::Delete(std::string_view path) {
  return Do("DELETE", path, "", "");
}

bool RestClient::WouldRetry(std::string_view method, const StatusOr<HttpResponse>& r) const {
  bool idempotent = method == "GET";
  if (!r.ok()) return r.status().code() == StatusCode::kUnavailable || idempotent;
  int code = r->status;
  bool has_after = !r->retry_after.empty();
  return code == 429 || (code >= 500 && has_after) || (code >= 500 && code != 501 && idempotent);
}

bool RestClient::ShouldRetry(std::string_view method, const StatusOr<HttpResponse>& r, int attempt,
                             Duration& backoff, std::stop_token stop) {
  if (attempt >= retry_.max_retries || !WouldRetry(method, r)) return false;
  Duration wait = backoff;
  if (r.ok() && !r->retry_after.empty() && (r->status == 429 || r->status >= 500)) {
    wait = ParseRetryAfter(r->retry_after, retry_.max_retry_after);
  }
  backoff = std::min(backoff * 2, retry_.max_backoff);
  VLOG(2, "retrying {} after {:.0f}ms (attempt {})", method, Millis(wait), attempt + 1);
  return clock_.Sleep(wait, stop);
}

StatusOr<std::string> RestClient::Do(std::string_view method, std::string_view path,
                                     std::string body, std::string_view content_type,
                                     std::string_view accept) {
  HttpRequest req{std::string(method),       std::string(path), std::move(body),
                  std::string(content_type), config_.timeout,   std::string(accept)};
  Duration backoff = retry_.initial_backoff;
  for (int attempt = 0;; ++attempt) {
    MonoTime limiter_start = clock_.Now();
    limiter_.Wait();
    MonoTime start = clock_.Now();
    auto r = transport_->RoundTrip(req);
    MonoTime end = clock_.Now();
    VLOG(6, "{} {} {} in {:.1f}ms", method, path,
         r.ok() ? std::to_string(r->status) : r.status().ToString(), Millis(end - start));
    if (r.ok() && IsSuccess(r->status)) {
      Observe(method, r, limiter_start, start, end, req.body.size(), true, false);
      return std::move(r->body);
    }
    // Reported before ShouldRetry, which sleeps out the backoff.
    bool retry = attempt < retry_.max_retries && WouldRetry(method, r);
    Observe(method, r, limiter_start, start, end, req.body.size(), true, retry);
    if (ShouldRetry(method, r, attempt, backoff, {})) continue;
    if (!r.ok()) return r.status();
    return HttpError(method, path, r->status, r->body);
  }
}

Status RestClient::Watch(std::string_view path,
                         const std::function<bool(std::string_view)>& on_line, std::stop_token stop,
                         Duration idle_timeout) {
  std::optional<LineSplitter> lines;
  return WatchBytes(
      path, "",
      [&](std::string_view data, Status& error) {
        if (!lines) lines.emplace(api::kMaxObjectBytes);
        error = lines->Feed(data, on_line);
        return error.ok() && !lines->stopped();
      },
      stop, idle_timeout);
}

Status RestClient::WatchBytes(std::string_view path, std::string_view accept,
                              const std::function<bool(std::string_view, Status&)>& on_data,
                              std::stop_token stop, Duration idle_timeout) {
  HttpRequest req{"GET", std::string(path), "", "", idle_timeout, std::string(accept)};
  Duration backoff = retry_.initial_backoff;
  for (int attempt = 0;; ++attempt) {
    MonoTime limiter_start = clock_.Now();
    if (!limiter_.Wait(stop)) return OkStatus();
    Status split_error;
    bool delivered = false;
    MonoTime start = clock_.Now();
    MonoTime first_data{};
    auto on_bytes = [&](std::string_view data) {
      if (!delivered) first_data = clock_.Now();
      delivered = true;
      return on_data(data, split_error) && split_error.ok();
    };
    auto r = transport_->Stream(req, on_bytes, stop);
    // The request's latency is the time to its answer, not the life of the stream.
    Observe("GET", r, limiter_start, start, delivered ? first_data : clock_.Now(), 0, false, false);
    if (!split_error.ok()) return split_error.WithPrefix("watch " + std::string(path));
    if (r.ok() && r->status == 200) return OkStatus();
    if (stop.stop_requested()) return OkStatus();
    // Once events were delivered, resuming is the caller's job (it knows the last version).
    if (!delivered && ShouldRetry("GET", r, attempt, backoff, stop)) continue;
    if (!r.ok()) return r.status();
    return HttpError("GET", path, r->status, r->body);
  }
}

}  // namespace stowage::client
