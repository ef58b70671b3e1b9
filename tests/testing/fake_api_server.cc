#include "tests/testing/fake_api_server.h"

#include <algorithm>

namespace stowage::testing {

namespace {

// The value of a query parameter of target, or "" (test targets need no unescaping).
std::string QueryParam(std::string_view target, std::string_view name) {
  size_t q = target.find('?');
  if (q == std::string_view::npos) return "";
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name && eq != std::string_view::npos) {
      return std::string(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

bool IsWatch(std::string_view target) { return QueryParam(target, "watch") == "true"; }

}  // namespace

client::HttpResponse Response(int status, std::string body, std::string retry_after) {
  return client::HttpResponse{status, std::move(body), std::move(retry_after)};
}

client::HttpResponse JsonResponse(int status, const nlohmann::json& body) {
  return Response(status, body.dump());
}

std::string PathOf(std::string_view target) {
  return std::string(target.substr(0, target.find('?')));
}

void FakeApiServer::SetList(const std::string& path, std::vector<json> items,
                            std::string resource_version) {
  MutexLock l(mu_);
  lists_[path] = ListState{std::move(items), std::move(resource_version)};
}

void FakeApiServer::Handle(std::string_view path, Handler h) {
  MutexLock l(mu_);
  handlers_[std::string(path)] = std::move(h);
}

void FakeApiServer::Script(std::string method, std::string path,
                           StatusOr<client::HttpResponse> answer) {
  MutexLock l(mu_);
  scripts_.push_back(Scripted{std::move(method), std::move(path), std::move(answer)});
}

void FakeApiServer::SetAnswer(std::function<std::optional<int>(const client::HttpRequest&)> a) {
  MutexLock l(mu_);
  answer_ = std::move(a);
}

void FakeApiServer::Push(const std::string& path, const std::string& type, const json& object) {
  PushRaw(path, json{{"type", type}, {"object", object}}.dump() + "\n");
}

void FakeApiServer::PushBookmark(const std::string& path, const std::string& resource_version) {
  Push(path, "BOOKMARK", json{{"metadata", {{"resourceVersion", resource_version}}}});
}

void FakeApiServer::PushError(const std::string& path, int code, const std::string& message) {
  json status = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"status", "Failure"},
                 {"code", code},
                 {"reason", code == 410 ? "Expired" : "InternalError"},
                 {"message", message.empty() ? "error " + std::to_string(code) : message}};
  Push(path, "ERROR", status);
}

void FakeApiServer::PushRaw(const std::string& path, std::string bytes) {
  MutexLock l(mu_);
  events_[path].push_back(std::move(bytes));
  cv_.SignalAll();
}

void FakeApiServer::EndWatch(const std::string& path) {
  MutexLock l(mu_);
  events_[path].push_back(std::nullopt);
  cv_.SignalAll();
}

void FakeApiServer::ScriptWatch(const std::string& path, client::HttpResponse answer) {
  MutexLock l(mu_);
  watch_scripts_[path].push_back(std::move(answer));
}

std::vector<client::HttpRequest> FakeApiServer::Requests() const {
  MutexLock l(mu_);
  return requests_;
}

std::vector<client::HttpRequest> FakeApiServer::Requests(std::string_view method,
                                                         std::string_view target) const {
  std::vector<client::HttpRequest> out;
  for (auto& r : Requests()) {
    if (r.method == method && r.target == target) out.push_back(std::move(r));
  }
  return out;
}

std::vector<client::HttpRequest> FakeApiServer::RequestsOf(std::string_view method) const {
  std::vector<client::HttpRequest> out;
  for (auto& r : Requests()) {
    if (r.method == method) out.push_back(std::move(r));
  }
  return out;
}

std::vector<client::HttpRequest> FakeApiServer::RequestsTo(std::string_view path) const {
  std::vector<client::HttpRequest> out;
  for (auto& r : Requests()) {
    if (PathOf(r.target) == path) out.push_back(std::move(r));
  }
  return out;
}

std::vector<client::HttpRequest> FakeApiServer::Watches(std::string_view path) const {
  std::vector<client::HttpRequest> out;
  for (auto& r : RequestsTo(path)) {
    if (IsWatch(r.target)) out.push_back(std::move(r));
  }
  return out;
}

std::optional<client::HttpResponse> FakeApiServer::ListAnswer(const client::HttpRequest& req,
                                                              const std::string& path) {
  auto it = lists_.find(path);
  if (req.method != "GET" || it == lists_.end()) return std::nullopt;
  const ListState& list = it->second;
  std::string cont = QueryParam(req.target, "continue");
  std::string limit = QueryParam(req.target, "limit");
  size_t begin = cont.empty() ? 0 : std::stoul(cont);
  size_t end = list.items.size();
  if (!limit.empty() && std::stoul(limit) > 0) end = std::min(end, begin + std::stoul(limit));
  json meta = {{"resourceVersion", list.resource_version}};
  // The continue token is the offset of the next page: opaque to the client, as upstream's.
  if (end < list.items.size()) meta["continue"] = std::to_string(end);
  json items = json::array();
  for (size_t i = begin; i < end; ++i) items.push_back(list.items[i]);
  return JsonResponse(200, json{{"kind", "List"}, {"metadata", meta}, {"items", items}});
}

StatusOr<client::HttpResponse> FakeApiServer::RoundTrip(const client::HttpRequest& req) {
  std::string path = PathOf(req.target);
  Handler handler;
  std::function<std::optional<int>(const client::HttpRequest&)> answer;
  {
    MutexLock l(mu_);
    requests_.push_back(req);
    for (auto it = scripts_.begin(); it != scripts_.end(); ++it) {
      if ((it->method.empty() || it->method == req.method) &&
          (it->path.empty() || it->path == path)) {
        StatusOr<client::HttpResponse> scripted = std::move(it->answer);
        scripts_.erase(it);
        return scripted;
      }
    }
    if (auto h = handlers_.find(path); h != handlers_.end()) {
      handler = h->second;
    } else if (auto list = ListAnswer(req, path)) {
      return *list;
    } else {
      answer = answer_;
    }
  }
  // Handlers and answers run unlocked: they may block or call back into the fake.
  if (handler) return handler(req);
  std::optional<int> code = answer ? answer(req) : std::nullopt;
  int status = code.value_or(req.method == "POST" ? 201 : 200);
  if (status < 300) return Response(status, req.body.empty() ? "{}" : req.body);
  return JsonResponse(status,
                      json{{"kind", "Status"},
                           {"status", "Failure"},
                           {"code", status},
                           {"message", "answered " + std::to_string(status) + " by the test"}});
}

StatusOr<client::HttpResponse> FakeApiServer::Stream(
    const client::HttpRequest& req, const std::function<bool(std::string_view)>& on_data,
    std::stop_token stop) {
  std::string path = PathOf(req.target);
  MutexLock l(mu_);
  requests_.push_back(req);
  if (auto& scripted = watch_scripts_[path]; !scripted.empty()) {
    client::HttpResponse answer = std::move(scripted.front());
    scripted.pop_front();
    return answer;
  }
  for (;;) {
    while (events_[path].empty() && !stop.stop_requested()) cv_.Wait(mu_, stop);
    if (stop.stop_requested()) return Response(200, "");
    std::optional<std::string> line = std::move(events_[path].front());
    events_[path].pop_front();
    if (!line) return Response(200, "");
    // The consumer runs unlocked so that the test can feed more events meanwhile.
    l.Unlock();
    bool more = on_data(*line);
    l.Lock();
    if (!more) return Response(200, "");
  }
}

FakeClient::FakeClient(Clock& clock, client::RetryPolicy retry) {
  auto owned = std::make_unique<FakeApiServer>();
  api = owned.get();
  client::RestConfig cfg;
  cfg.server = "https://127.0.0.1:6443";
  cfg.qps = 0;  // unlimited: the fake answers at once
  client = std::make_unique<client::RestClient>(cfg, std::move(owned), retry, clock);
}

}  // namespace stowage::testing
