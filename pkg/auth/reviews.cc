#include "pkg/auth/reviews.h"

#include "pkg/api/auth_types.h"
#include "pkg/api/decode.h"
#include "pkg/api/encode.h"

namespace stowage::auth {
namespace {

// Review answers and the ConfigMap are small; anything far larger is not what we asked for.
constexpr size_t kMaxBodyBytes = 4u << 20;

Status CheckSize(std::string_view what, std::string_view body) {
  if (body.size() <= kMaxBodyBytes) return OkStatus();
  return InvalidArgumentError(std::string(what) + ": answer of " + std::to_string(body.size()) +
                              " bytes is too large");
}

api::Map<std::vector<std::string>> ExtraOf(const UserInfo& user) {
  std::vector<api::Map<std::vector<std::string>>::Entry> entries(user.extra.begin(),
                                                                 user.extra.end());
  return api::Map<std::vector<std::string>>(std::move(entries));
}

UserInfo UserOf(const api::ReviewUser& u) {
  UserInfo out{u.username, u.uid, u.groups, {}};
  for (const auto& [key, values] : u.extra.entries()) out.extra.emplace(key, values);
  return out;
}

}  // namespace

std::string EncodeTokenReview(std::string_view token) {
  api::TokenReview review;
  review.token = token;
  return api::EncodeObject(review);
}

StatusOr<TokenReviewStatus> DecodeTokenReview(std::string_view body) {
  if (Status s = CheckSize("TokenReview", body); !s.ok()) return s;
  auto review = api::Decode<api::TokenReview>(body);
  if (!review.ok()) return review.status();
  return TokenReviewStatus{review->authenticated, UserOf(review->user), review->error};
}

std::string EncodeSubjectAccessReview(const UserInfo& user, std::string_view verb,
                                      std::string_view path) {
  api::SubjectAccessReview review;
  review.path = path;
  review.verb = verb;
  review.user = user.name;
  review.groups = user.groups;
  review.extra = ExtraOf(user);
  review.uid = user.uid;
  return api::EncodeObject(review);
}

StatusOr<SubjectAccessReviewStatus> DecodeSubjectAccessReview(std::string_view body) {
  if (Status s = CheckSize("SubjectAccessReview", body); !s.ok()) return s;
  auto review = api::Decode<api::SubjectAccessReview>(body);
  if (!review.ok()) return review.status();
  return SubjectAccessReviewStatus{review->allowed, review->denied, review->reason};
}

StatusOr<std::map<std::string, std::string>> DecodeConfigMapData(std::string_view body) {
  if (Status s = CheckSize("ConfigMap", body); !s.ok()) return s;
  auto cm = api::Decode<api::ConfigMap>(body);
  if (!cm.ok()) return cm.status();
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : cm->data.entries()) out.emplace(key, value);
  return out;
}

std::string ClientErrorText(const Status& s, std::string_view method, std::string_view path) {
  std::string_view m = s.message();
  std::string prefix = std::string(method) + " " + std::string(path) + ": HTTP ";
  if (m.substr(0, prefix.size()) != prefix) return std::string(m);
  size_t sep = m.find(": ", prefix.size());
  if (sep == std::string_view::npos) return std::string(m);  // no server message
  return std::string(m.substr(sep + 2));
}

StatusOr<std::vector<std::string>> DecodeStringList(std::string_view text) {
  if (text.empty()) return std::vector<std::string>();
  if (Status s = CheckSize("string list", text); !s.ok()) return s;
  return api::DecodeStrings(text);
}

}  // namespace stowage::auth
