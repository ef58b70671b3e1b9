// Answers of the authentication and authorization APIs (TokenReview, SubjectAccessReview, the
// authentication ConfigMap) for auth unit tests, and a fake client whose unanswered requests
// get 404 as from an API server without the object.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/auth/reviews.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::auth::testing {

using stowage::testing::FakeApiServer;

// A RestClient over a FakeApiServer without retries; requests no handler answers get 404.
struct FakeClient : stowage::testing::FakeClient {
  explicit FakeClient(Clock& clock) : stowage::testing::FakeClient(clock) {
    api->SetAnswer([](const client::HttpRequest&) -> std::optional<int> { return 404; });
  }
};

// A TokenReview answer.
inline client::HttpResponse TokenReviewAnswer(bool authenticated, const std::string& user = "",
                                              const std::vector<std::string>& groups = {},
                                              const std::string& error = "") {
  nlohmann::json status = {{"authenticated", authenticated}};
  if (!user.empty()) {
    status["user"] = {{"username", user}, {"uid", user + "-uid"}, {"groups", groups}};
  }
  if (!error.empty()) status["error"] = error;
  return stowage::testing::JsonResponse(
      201,
      {{"kind", "TokenReview"}, {"apiVersion", "authentication.k8s.io/v1"}, {"status", status}});
}

// A SubjectAccessReview answer.
inline client::HttpResponse SarAnswer(bool allowed, const std::string& reason = "",
                                      bool denied = false) {
  nlohmann::json status = {{"allowed", allowed}};
  if (denied) status["denied"] = true;
  if (!reason.empty()) status["reason"] = reason;
  return stowage::testing::JsonResponse(201, {{"kind", "SubjectAccessReview"},
                                              {"apiVersion", "authorization.k8s.io/v1"},
                                              {"status", status}});
}

// The ConfigMap kube-system/extension-apiserver-authentication with data.
inline client::HttpResponse ConfigMapAnswer(const std::map<std::string, std::string>& data) {
  return stowage::testing::JsonResponse(
      200,
      {{"kind", "ConfigMap"},
       {"apiVersion", "v1"},
       {"metadata", {{"name", "extension-apiserver-authentication"}, {"namespace", "kube-system"}}},
       {"data", data}});
}

inline nlohmann::json BodyOf(const client::HttpRequest& r) { return nlohmann::json::parse(r.body); }

}  // namespace stowage::auth::testing
