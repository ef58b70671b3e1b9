#include "pkg/auth/negotiation.h"

#include "pkg/common/http_negotiation.h"

namespace stowage::auth {
namespace {

struct Offered {
  std::string_view type, subtype;
  bool streams;
};
// legacyscheme's codecs, in preference order.
constexpr Offered kOffered[] = {{"application", "json", true},
                                {"application", "yaml", false},
                                {"application", "vnd.kubernetes.protobuf", true}};

}  // namespace

BodyFormat NegotiateStatusFormat(std::string_view accept, std::string_view user_agent,
                                 std::string_view raw_query) {
  bool pretty_param = false;
  const Offered* chosen = nullptr;
  if (accept.empty()) {
    chosen = &kOffered[0];
  } else {
    for (const AcceptClause& c : ParseAccept(accept)) {
      for (const Offered& o : kOffered) {
        bool matches = (c.type == o.type && (c.subtype == o.subtype || c.subtype == "*")) ||
                       (c.type == "*" && c.subtype == "*");
        if (!matches) continue;
        bool ok = true;
        bool pretty = false;
        for (const auto& [k, v] : c.params) {
          if (k == "as" || k == "g" || k == "v") ok = false;  // no transformations here
          if (k == "stream" && !v.empty() && (!o.streams || v != "watch")) ok = false;
          if (k == "sv" && !v.empty()) ok = false;
          if (k == "pretty") pretty = v == "1";
        }
        if (!ok) continue;
        chosen = &o;
        pretty_param = pretty;
        break;
      }
      if (chosen != nullptr) break;
    }
  }
  if (chosen == nullptr) return BodyFormat::kPretty;  // "not acceptable": WriteRawJSON indents
  if (chosen != &kOffered[0]) return BodyFormat::kCompact;  // YAML or protobuf: compact JSON
  return pretty_param || IsPrettyPrint(user_agent, raw_query) ? BodyFormat::kPretty
                                                              : BodyFormat::kCompact;
}

}  // namespace stowage::auth
