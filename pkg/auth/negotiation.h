// How upstream lays out the Status body of a 401 or 403, reproduced from
// apiserver/pkg/endpoints/handlers/negotiation and responsewriters:
//   * the Accept header is parsed and ordered as goautoneg does, and its first clause matching
//     application/json, application/yaml or application/vnd.kubernetes.protobuf (in that order
//     of preference, wildcards allowed; clauses asking for a transformation "as=", a server
//     version "sv=" or an unknown stream are skipped) wins; no Accept header means JSON;
//   * JSON is pretty-printed when the clause says pretty=1, when the query's "pretty" parameter
//     is true, or, without that parameter, when the User-Agent starts with "curl", "Wget" or
//     "Mozilla/5.0" (so curl shows indented JSON and Prometheus gets compact JSON);
//   * when nothing matches (Accept: text/plain, say), upstream writes the Status indented.
// YAML and protobuf are not produced: a request preferring them gets compact JSON (a known
// difference). Pure functions.
#pragma once

#include <string_view>

#include "pkg/auth/response.h"

namespace stowage::auth {

BodyFormat NegotiateStatusFormat(std::string_view accept, std::string_view user_agent,
                                 std::string_view raw_query);

}  // namespace stowage::auth
