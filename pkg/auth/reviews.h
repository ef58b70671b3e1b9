// The JSON of the API objects delegated auth exchanges with the API server: TokenReview
// (authentication.k8s.io/v1), SubjectAccessReview (authorization.k8s.io/v1) and the data of
// ConfigMap kube-system/extension-apiserver-authentication, through the schema's JSON engines
// (pkg/api/schema/auth.txt). Encoding never fails (invalid UTF-8 is replaced, as Go's encoder
// does); decoding treats the body as untrusted and reports what was wrong without throwing.
// Thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/auth/user_info.h"
#include "stowage/common/status.h"

namespace stowage::auth {

inline constexpr std::string_view kTokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews";
inline constexpr std::string_view kSubjectAccessReviewPath =
    "/apis/authorization.k8s.io/v1/subjectaccessreviews";
inline constexpr std::string_view kAuthenticationConfigMapPath =
    "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

// The body of a TokenReview for token (no audiences: kube-scheduler sets none).
std::string EncodeTokenReview(std::string_view token);

struct TokenReviewStatus {
  bool authenticated = false;
  UserInfo user;
  std::string error;  // status.error: why the token was not accepted, if the server says
};
StatusOr<TokenReviewStatus> DecodeTokenReview(std::string_view body);

// The body of a SubjectAccessReview asking whether user may use verb on the non-resource path.
std::string EncodeSubjectAccessReview(const UserInfo& user, std::string_view verb,
                                      std::string_view path);

struct SubjectAccessReviewStatus {
  bool allowed = false;
  bool denied = false;
  std::string reason;
};
StatusOr<SubjectAccessReviewStatus> DecodeSubjectAccessReview(std::string_view body);

// The data map of a ConfigMap object.
StatusOr<std::map<std::string, std::string>> DecodeConfigMapData(std::string_view body);

// The text client-go would give for a failed request: for an HTTP error answer, the server's
// own message without RestClient's "<method> <path>: HTTP <code> <phrase>: " prefix; otherwise
// the whole message. Upstream shows this text in its 500 answers.
std::string ClientErrorText(const Status& s, std::string_view method, std::string_view path);

// A JSON array of strings, as the ConfigMap's requestheader-* values are written; "" is an
// empty list.
StatusOr<std::vector<std::string>> DecodeStringList(std::string_view json);

}  // namespace stowage::auth
