// The objects of delegated authentication and authorization, which the secure port exchanges
// with the API server: TokenReview (authentication.k8s.io/v1), SubjectAccessReview
// (authorization.k8s.io/v1) and the ConfigMap kube-system/extension-apiserver-authentication.
// Compact structs like those of types.h, declared in pkg/api/schema/auth.txt; not plugin API.
#pragma once

#include <string>
#include <vector>

#include "stowage/api/types.h"

namespace stowage::api {

// user.Info as the reviews carry it; extra maps a key to its values.
struct ReviewUser {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  Map<std::vector<std::string>> extra;
  friend bool operator==(const ReviewUser&, const ReviewUser&) = default;
};

// A bearer token sent for review (spec) and the API server's verdict (status).
struct TokenReview {
  ObjectMeta metadata;
  std::string token;
  bool authenticated = false;
  ReviewUser user;
  std::string error;  // why the token was not accepted, if the server says
  friend bool operator==(const TokenReview&, const TokenReview&) = default;
};

// Whether a user may use a verb on a non-resource path (spec), and the answer (status).
struct SubjectAccessReview {
  ObjectMeta metadata;
  std::string path;
  std::string verb;
  std::string user;
  std::vector<std::string> groups;
  Map<std::vector<std::string>> extra;
  std::string uid;
  bool allowed = false;
  bool denied = false;
  std::string reason;
  friend bool operator==(const SubjectAccessReview&, const SubjectAccessReview&) = default;
};

// The data of a ConfigMap (the trust roots of delegated authentication).
struct ConfigMap {
  ObjectMeta metadata;
  StringMap data;
  friend bool operator==(const ConfigMap&, const ConfigMap&) = default;
};

}  // namespace stowage::api
