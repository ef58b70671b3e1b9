// FakeApiServer: the one scripted API server behind client::Transport for unit tests (the
// counterpart of LevelDB's in-memory Env). Every request is recorded. An answer comes from, in
// this order: a one-shot script matching the verb and path, a handler for the path, the list
// set for the path (GET; paginated when the request asks for a limit), the SetAnswer status
// picker, and finally 201 for POST and 200 otherwise, echoing the request body. Watches (Stream)
// stay open and deliver the lines the test pushes, in order, until the test ends the watch or
// the caller stops it. Thread-safe; handlers and the status picker run outside the lock, so
// they may block.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/client/transport.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::testing {

// An HTTP answer for scripts and handlers.
client::HttpResponse Response(int status, std::string body = "{}", std::string retry_after = {});
// A JSON answer.
client::HttpResponse JsonResponse(int status, const nlohmann::json& body);
// The path of a request target, without its query.
std::string PathOf(std::string_view target);

class FakeApiServer : public client::Transport {
 public:
  using json = nlohmann::json;
  using Handler = std::function<client::HttpResponse(const client::HttpRequest&)>;

  // --- answers
  // The items a list of path (e.g. "/api/v1/pods") returns, at resource_version. A request
  // with limit=N gets N items and a continue token for the rest.
  void SetList(const std::string& path, std::vector<json> items,
               std::string resource_version = "1");
  // Answers every request to path (any verb, any query) with h.
  void Handle(std::string_view path, Handler h);
  // Answers the next request with this verb and path (empty: any) once; scripts are consumed in
  // the order given. A non-OK answer is a transport failure (no HTTP response).
  void Script(std::string method, std::string path, StatusOr<client::HttpResponse> answer);
  // Answers the next request, whatever it is.
  void ScriptNext(StatusOr<client::HttpResponse> answer) { Script("", "", std::move(answer)); }
  // Picks the HTTP status of a request nothing else answered; nullopt: the default.
  void SetAnswer(std::function<std::optional<int>(const client::HttpRequest&)> answer);

  // --- watches (all keyed by the collection path, e.g. "/api/v1/pods")
  // Queues a watch event ("ADDED", "MODIFIED", "DELETED") for the watch of path.
  void Push(const std::string& path, const std::string& type, const json& object);
  // Queues a BOOKMARK event at resource_version.
  void PushBookmark(const std::string& path, const std::string& resource_version);
  // Queues an ERROR event carrying a Status with this code (410: the version is gone).
  void PushError(const std::string& path, int code, const std::string& message = "");
  // Queues raw bytes, delivered to the reader as one chunk (to test line framing).
  void PushRaw(const std::string& path, std::string bytes);
  // Ends the watch of path normally once the events queued before it are delivered; the next
  // watch of path receives what is queued after.
  void EndWatch(const std::string& path);
  // Answers the next watch of path with this (non-200) response instead of a stream.
  void ScriptWatch(const std::string& path, client::HttpResponse answer);

  // --- what was asked
  // Every request, in order (lists and watches included).
  std::vector<client::HttpRequest> Requests() const;
  // The requests with this method and exact target.
  std::vector<client::HttpRequest> Requests(std::string_view method, std::string_view target) const;
  // The requests with this method, any target.
  std::vector<client::HttpRequest> RequestsOf(std::string_view method) const;
  // The requests to path (query ignored), any verb.
  std::vector<client::HttpRequest> RequestsTo(std::string_view path) const;
  size_t Count(std::string_view path) const { return RequestsTo(path).size(); }
  // The watch requests of path made so far.
  std::vector<client::HttpRequest> Watches(std::string_view path) const;

  // client::Transport
  StatusOr<client::HttpResponse> RoundTrip(const client::HttpRequest& req) override;
  StatusOr<client::HttpResponse> Stream(const client::HttpRequest& req,
                                        const std::function<bool(std::string_view)>& on_data,
                                        std::stop_token stop) override;

 private:
  struct Scripted {
    std::string method;
    std::string path;
    StatusOr<client::HttpResponse> answer;
  };
  struct ListState {
    std::vector<json> items;
    std::string resource_version;
  };
  std::optional<client::HttpResponse> ListAnswer(const client::HttpRequest& req,
                                                 const std::string& path) REQUIRES(mu_);

  mutable Mutex mu_;
  CondVarAny cv_;
  std::map<std::string, ListState> lists_ GUARDED_BY(mu_);
  std::map<std::string, Handler> handlers_ GUARDED_BY(mu_);
  std::deque<Scripted> scripts_ GUARDED_BY(mu_);
  std::map<std::string, std::deque<client::HttpResponse>> watch_scripts_ GUARDED_BY(mu_);
  // Per path: lines to deliver; nullopt ends the watch.
  std::map<std::string, std::deque<std::optional<std::string>>> events_ GUARDED_BY(mu_);
  std::function<std::optional<int>(const client::HttpRequest&)> answer_ GUARDED_BY(mu_);
  std::vector<client::HttpRequest> requests_ GUARDED_BY(mu_);
};

// A RestClient over a FakeApiServer, without rate limit; the client owns the fake.
struct FakeClient {
  FakeApiServer* api;
  std::unique_ptr<client::RestClient> client;
  explicit FakeClient(Clock& clock = RealClock(), client::RetryPolicy retry = {.max_retries = 0});
};

}  // namespace stowage::testing
