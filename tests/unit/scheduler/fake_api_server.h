// FakeApiServer: a scripted API server behind client::Transport for scheduler unit tests. Lists
// answer with the objects set for a path; watches stay open and deliver the events the test
// pushes, in order; every other request is recorded and answered with the status the test's
// handler picks (201 for POST, 200 otherwise by default). Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/client/transport.h"
#include "pkg/common/mutex.h"

namespace stowage::scheduler::testing {

class FakeApiServer : public client::Transport {
 public:
  using json = nlohmann::json;

  // The items a list of path (e.g. "/api/v1/pods") returns.
  void SetList(const std::string& path, std::vector<json> items) {
    MutexLock l(mu_);
    lists_[path] = std::move(items);
  }
  // Queues a watch event ("ADDED", "MODIFIED", "DELETED") for the watch of path.
  void Push(const std::string& path, const std::string& type, const json& object) {
    MutexLock l(mu_);
    events_[path].push_back(json{{"type", type}, {"object", object}}.dump() + "\n");
    cv_.SignalAll();
  }
  // Picks the HTTP status of a request that is not a list or a watch; nullopt: the default.
  void SetAnswer(std::function<std::optional<int>(const client::HttpRequest&)> answer) {
    MutexLock l(mu_);
    answer_ = std::move(answer);
  }
  // The recorded requests (lists and watches excluded) with this method and target.
  std::vector<client::HttpRequest> Requests(std::string_view method, std::string_view target) {
    MutexLock l(mu_);
    std::vector<client::HttpRequest> out;
    for (const auto& r : requests_) {
      if (r.method == method && r.target == target) out.push_back(r);
    }
    return out;
  }

  StatusOr<client::HttpResponse> RoundTrip(const client::HttpRequest& req) override {
    std::string path = req.target.substr(0, req.target.find('?'));
    std::function<std::optional<int>(const client::HttpRequest&)> answer;
    {
      MutexLock l(mu_);
      if (req.method == "GET" && lists_.count(path)) {
        json list = {{"metadata", {{"resourceVersion", "1"}}}, {"items", lists_[path]}};
        return client::HttpResponse{200, list.dump(), ""};
      }
      requests_.push_back(req);
      answer = answer_;
    }
    std::optional<int> code = answer ? answer(req) : std::nullopt;
    int status = code.value_or(req.method == "POST" ? 201 : 200);
    if (status < 300) return client::HttpResponse{status, req.body.empty() ? "{}" : req.body, ""};
    json body = {{"kind", "Status"}, {"status", "Failure"}, {"code", status},
                 {"message", "answered " + std::to_string(status) + " by the test"}};
    return client::HttpResponse{status, body.dump(), ""};
  }

  StatusOr<client::HttpResponse> Stream(const client::HttpRequest& req,
                                        const std::function<bool(std::string_view)>& on_data,
                                        std::stop_token stop) override {
    std::string path = req.target.substr(0, req.target.find('?'));
    for (;;) {
      std::string line;
      {
        MutexLock l(mu_);
        while (events_[path].empty() && !stop.stop_requested()) cv_.Wait(mu_, stop);
        if (stop.stop_requested()) return client::HttpResponse{200, "", ""};
        line = std::move(events_[path].front());
        events_[path].pop_front();
      }
      if (!on_data(line)) return client::HttpResponse{200, "", ""};
    }
  }

 private:
  Mutex mu_;
  CondVarAny cv_;
  std::map<std::string, std::vector<json>> lists_ GUARDED_BY(mu_);
  std::map<std::string, std::deque<std::string>> events_ GUARDED_BY(mu_);
  std::function<std::optional<int>(const client::HttpRequest&)> answer_ GUARDED_BY(mu_);
  std::vector<client::HttpRequest> requests_ GUARDED_BY(mu_);
};

}  // namespace stowage::scheduler::testing
