#include "pkg/client/rest_client.h"

#include <algorithm>
#include <charconv>

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

}  // namespace

RestClient::RestClient(const RestConfig& config, std::unique_ptr<Transport> transport,
                       RetryPolicy retry, Clock& clock)
    : config_(config),
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
StatusOr<std::string> RestClient::Post(std::string_view path, std::string body) {
  return Do("POST", path, std::move(body), "");
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

bool RestClient::ShouldRetry(std::string_view method, const StatusOr<HttpResponse>& r,
                             int attempt, Duration& backoff, std::stop_token stop) {
  if (attempt >= retry_.max_retries) return false;
  bool idempotent = method == "GET";
  Duration wait = backoff;
  if (!r.ok()) {
    bool never_sent = r.status().code() == StatusCode::kUnavailable;
    if (!never_sent && !idempotent) return false;
  } else {
    int code = r->status;
    Duration after = ParseRetryAfter(r->retry_after, retry_.max_retry_after);
    bool has_after = !r->retry_after.empty();
    if (code == 429 || (code >= 500 && has_after)) {
      if (has_after) wait = after;
    } else if (code >= 500 && code != 501 && idempotent) {
    } else {
      return false;
    }
  }
  backoff = std::min(backoff * 2, retry_.max_backoff);
  VLOG(2, "retrying {} after {:.0f}ms (attempt {})", method, Millis(wait), attempt + 1);
  return clock_.Sleep(wait, stop);
}

StatusOr<std::string> RestClient::Do(std::string_view method, std::string_view path,
                                     std::string body, std::string_view content_type) {
  HttpRequest req{std::string(method), std::string(path), std::move(body),
                  std::string(content_type), config_.timeout};
  Duration backoff = retry_.initial_backoff;
  for (int attempt = 0;; ++attempt) {
    limiter_.Wait();
    MonoTime start = clock_.Now();
    auto r = transport_->RoundTrip(req);
    VLOG(6, "{} {} {} in {:.1f}ms", method, path,
         r.ok() ? std::to_string(r->status) : r.status().ToString(), Millis(clock_.Now() - start));
    if (r.ok() && IsSuccess(r->status)) return std::move(r->body);
    if (ShouldRetry(method, r, attempt, backoff, {})) continue;
    if (!r.ok()) return r.status();
    return HttpError(method, path, r->status, r->body);
  }
}

Status RestClient::Watch(std::string_view path,
                         const std::function<bool(std::string_view)>& on_line,
                         std::stop_token stop, Duration idle_timeout) {
  HttpRequest req{"GET", std::string(path), "", "", idle_timeout};
  Duration backoff = retry_.initial_backoff;
  for (int attempt = 0;; ++attempt) {
    if (!limiter_.Wait(stop)) return OkStatus();
    LineSplitter lines(api::kMaxObjectBytes);
    Status split_error;
    bool delivered = false;
    auto on_data = [&](std::string_view data) {
      delivered = true;
      split_error = lines.Feed(data, on_line);
      return split_error.ok() && !lines.stopped();
    };
    auto r = transport_->Stream(req, on_data, stop);
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
