#include "pkg/auth/reviews.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

namespace stowage::auth {
namespace {

namespace dom = simdjson::dom;
using json = nlohmann::json;

// Review answers and the ConfigMap are small; anything far larger is not what we asked for.
constexpr size_t kMaxBodyBytes = 4u << 20;
constexpr size_t kMaxDepth = 64;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

dom::parser& ThreadParser() {
  thread_local dom::parser parser = [] {
    dom::parser p;
    [[maybe_unused]] auto ec = p.allocate(1 << 14, kMaxDepth);
    return p;
  }();
  return parser;
}

StatusOr<dom::object> ParseObject(std::string_view what, std::string_view body) {
  if (body.size() > kMaxBodyBytes) {
    return InvalidArgumentError(std::string(what) + ": answer of " + std::to_string(body.size()) +
                                " bytes is too large");
  }
  dom::element root;
  auto ec = ThreadParser().parse(body.data(), body.size(), true).get(root);
  if (ec != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(what) +
                                ": malformed JSON: " + simdjson::error_message(ec));
  }
  dom::object o;
  if (root.get_object().get(o) != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(what) + ": expected a JSON object");
  }
  return o;
}

// Optional members: absent or null leave the output alone; a wrong type is an error.
bool Missing(simdjson::simdjson_result<dom::element> r, dom::element& out) {
  if (r.get(out) != simdjson::SUCCESS) return true;
  return out.is_null();
}

Status ReadString(dom::object o, std::string_view key, std::string_view where, std::string& out) {
  dom::element e;
  if (Missing(o.at_key(key), e)) return OkStatus();
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(where) + "." + std::string(key) +
                                ": expected a string");
  }
  out.assign(v);
  return OkStatus();
}

Status ReadBool(dom::object o, std::string_view key, std::string_view where, bool& out) {
  dom::element e;
  if (Missing(o.at_key(key), e)) return OkStatus();
  if (e.get_bool().get(out) != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(where) + "." + std::string(key) +
                                ": expected a boolean");
  }
  return OkStatus();
}

Status ReadStrings(dom::element e, std::string_view where, std::vector<std::string>& out) {
  if (e.is_null()) return OkStatus();
  dom::array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string(where) + ": expected an array of strings");
  }
  for (dom::element item : a) {
    std::string_view v;
    if (item.get_string().get(v) != simdjson::SUCCESS) {
      return InvalidArgumentError(std::string(where) + ": expected an array of strings");
    }
    out.emplace_back(v);
  }
  return OkStatus();
}

Status ReadUser(dom::object u, UserInfo& out) {
  constexpr std::string_view kWhere = "status.user";
  if (Status s = ReadString(u, "username", kWhere, out.name); !s.ok()) return s;
  if (Status s = ReadString(u, "uid", kWhere, out.uid); !s.ok()) return s;
  dom::element e;
  if (!Missing(u.at_key("groups"), e)) {
    if (Status s = ReadStrings(e, "status.user.groups", out.groups); !s.ok()) return s;
  }
  if (!Missing(u.at_key("extra"), e)) {
    dom::object extra;
    if (e.get_object().get(extra) != simdjson::SUCCESS) {
      return InvalidArgumentError("status.user.extra: expected an object");
    }
    for (auto field : extra) {
      std::string key(field.key);
      auto& values = out.extra[key];
      if (Status s = ReadStrings(field.value, "status.user.extra." + key, values); !s.ok()) {
        return s;
      }
    }
  }
  return OkStatus();
}

}  // namespace

std::string EncodeTokenReview(std::string_view token) {
  json j = {{"apiVersion", "authentication.k8s.io/v1"},
            {"kind", "TokenReview"},
            {"spec", {{"token", std::string(token)}}}};
  return Dump(j);
}

StatusOr<TokenReviewStatus> DecodeTokenReview(std::string_view body) {
  auto o = ParseObject("TokenReview", body);
  if (!o.ok()) return o.status();
  TokenReviewStatus out;
  dom::element e;
  if (Missing(o->at_key("status"), e)) return out;  // no status: not authenticated
  dom::object st;
  if (e.get_object().get(st) != simdjson::SUCCESS) {
    return InvalidArgumentError("TokenReview: status: expected an object");
  }
  Status s = ReadBool(st, "authenticated", "status", out.authenticated);
  if (s.ok()) s = ReadString(st, "error", "status", out.error);
  if (s.ok() && !Missing(st.at_key("user"), e)) {
    dom::object u;
    if (e.get_object().get(u) != simdjson::SUCCESS) {
      s = InvalidArgumentError("status.user: expected an object");
    } else {
      s = ReadUser(u, out.user);
    }
  }
  if (!s.ok()) return s.WithPrefix("TokenReview");
  return out;
}

std::string EncodeSubjectAccessReview(const UserInfo& user, std::string_view verb,
                                      std::string_view path) {
  json attributes = {{"path", std::string(path)}, {"verb", std::string(verb)}};
  json spec = {{"nonResourceAttributes", std::move(attributes)}, {"user", user.name}};
  if (!user.groups.empty()) spec["groups"] = user.groups;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  if (!user.uid.empty()) spec["uid"] = user.uid;
  json j = {{"apiVersion", "authorization.k8s.io/v1"},
            {"kind", "SubjectAccessReview"},
            {"spec", std::move(spec)}};
  return Dump(j);
}

StatusOr<SubjectAccessReviewStatus> DecodeSubjectAccessReview(std::string_view body) {
  auto o = ParseObject("SubjectAccessReview", body);
  if (!o.ok()) return o.status();
  SubjectAccessReviewStatus out;
  dom::element e;
  if (Missing(o->at_key("status"), e)) return out;  // no status: no opinion
  dom::object st;
  if (e.get_object().get(st) != simdjson::SUCCESS) {
    return InvalidArgumentError("SubjectAccessReview: status: expected an object");
  }
  Status s = ReadBool(st, "allowed", "status", out.allowed);
  if (s.ok()) s = ReadBool(st, "denied", "status", out.denied);
  if (s.ok()) s = ReadString(st, "reason", "status", out.reason);
  if (!s.ok()) return s.WithPrefix("SubjectAccessReview");
  return out;
}

StatusOr<std::map<std::string, std::string>> DecodeConfigMapData(std::string_view body) {
  auto o = ParseObject("ConfigMap", body);
  if (!o.ok()) return o.status();
  std::map<std::string, std::string> out;
  dom::element e;
  if (Missing(o->at_key("data"), e)) return out;
  dom::object data;
  if (e.get_object().get(data) != simdjson::SUCCESS) {
    return InvalidArgumentError("ConfigMap: data: expected an object");
  }
  for (auto field : data) {
    std::string_view v;
    if (field.value.get_string().get(v) != simdjson::SUCCESS) {
      return InvalidArgumentError("ConfigMap: data." + std::string(field.key) +
                                  ": expected a string");
    }
    out.emplace(std::string(field.key), std::string(v));
  }
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
  std::vector<std::string> out;
  if (text.empty()) return out;
  if (text.size() > kMaxBodyBytes) return InvalidArgumentError("string list is too large");
  dom::element root;
  auto ec = ThreadParser().parse(text.data(), text.size(), true).get(root);
  if (ec != simdjson::SUCCESS) {
    return InvalidArgumentError(std::string("malformed JSON: ") + simdjson::error_message(ec));
  }
  if (Status s = ReadStrings(root, "value", out); !s.ok()) return s;
  return out;
}

}  // namespace stowage::auth
