// A scripted API server behind client::Transport for auth unit tests: answers TokenReview,
// SubjectAccessReview and ConfigMap requests with handlers the test sets, and records every
// request. Thread-safe (handlers run outside the lock, so a handler may block).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/auth/reviews.h"
#include "pkg/client/rest_client.h"
#include "pkg/client/transport.h"
#include "pkg/common/mutex.h"

namespace stowage::auth::testing {

class FakeApi : public client::Transport {
 public:
  using Handler = std::function<client::HttpResponse(const client::HttpRequest&)>;

  void Handle(std::string_view path, Handler h) {
    MutexLock l(mu_);
    handlers_[std::string(path)] = std::move(h);
  }

  StatusOr<client::HttpResponse> RoundTrip(const client::HttpRequest& req) override {
    Handler h;
    std::string path = req.target.substr(0, req.target.find('?'));
    {
      MutexLock l(mu_);
      requests_.push_back(req);
      auto it = handlers_.find(path);
      if (it == handlers_.end()) {
        return client::HttpResponse{404, R"({"kind":"Status","code":404,"reason":"NotFound"})", ""};
      }
      h = it->second;
    }
    return h(req);
  }
  StatusOr<client::HttpResponse> Stream(const client::HttpRequest&,
                                        const std::function<bool(std::string_view)>&,
                                        std::stop_token) override {
    return UnimplementedError("no streams in the fake");
  }

  // The requests sent to path, in order.
  std::vector<client::HttpRequest> Requests(std::string_view path) const {
    MutexLock l(mu_);
    std::vector<client::HttpRequest> out;
    for (const auto& r : requests_) {
      if (r.target.substr(0, r.target.find('?')) == path) out.push_back(r);
    }
    return out;
  }
  size_t Count(std::string_view path) const { return Requests(path).size(); }

 private:
  mutable Mutex mu_;
  std::map<std::string, Handler> handlers_ GUARDED_BY(mu_);
  std::vector<client::HttpRequest> requests_ GUARDED_BY(mu_);
};

// A RestClient over a FakeApi, without rate limit or retries; the fake stays owned by the client.
struct FakeClient {
  FakeApi* api;
  std::unique_ptr<client::RestClient> client;
  explicit FakeClient(Clock& clock) {
    auto owned = std::make_unique<FakeApi>();
    api = owned.get();
    client::RestConfig cfg;
    cfg.server = "https://127.0.0.1:6443";
    cfg.qps = 0;
    client = std::make_unique<client::RestClient>(
        cfg, std::move(owned), client::RetryPolicy{0, {}, {}, {}}, clock);
  }
};

inline client::HttpResponse Json(int status, const nlohmann::json& j) {
  return client::HttpResponse{status, j.dump(), ""};
}

// A TokenReview answer.
inline client::HttpResponse TokenReviewAnswer(bool authenticated, const std::string& user = "",
                                              const std::vector<std::string>& groups = {},
                                              const std::string& error = "") {
  nlohmann::json status = {{"authenticated", authenticated}};
  if (!user.empty()) {
    status["user"] = {{"username", user}, {"uid", user + "-uid"}, {"groups", groups}};
  }
  if (!error.empty()) status["error"] = error;
  return Json(201, {{"kind", "TokenReview"}, {"apiVersion", "authentication.k8s.io/v1"},
                    {"status", status}});
}

// A SubjectAccessReview answer.
inline client::HttpResponse SarAnswer(bool allowed, const std::string& reason = "",
                                      bool denied = false) {
  nlohmann::json status = {{"allowed", allowed}};
  if (denied) status["denied"] = true;
  if (!reason.empty()) status["reason"] = reason;
  return Json(201, {{"kind", "SubjectAccessReview"},
                    {"apiVersion", "authorization.k8s.io/v1"},
                    {"status", status}});
}

// The ConfigMap kube-system/extension-apiserver-authentication with data.
inline client::HttpResponse ConfigMapAnswer(const std::map<std::string, std::string>& data) {
  return Json(200, {{"kind", "ConfigMap"},
                    {"apiVersion", "v1"},
                    {"metadata", {{"name", "extension-apiserver-authentication"},
                                  {"namespace", "kube-system"}}},
                    {"data", data}});
}

inline nlohmann::json BodyOf(const client::HttpRequest& r) { return nlohmann::json::parse(r.body); }

}  // namespace stowage::auth::testing
