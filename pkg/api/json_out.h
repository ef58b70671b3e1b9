// Writing JSON by hand, as Go's encoding/json writes it, for the writers of pkg/api (whole objects
// kept for extenders, the schema's JSON engine). Internal to pkg/api.
#pragma once

#include <charconv>
#include <string>
#include <string_view>

namespace stowage::api::json_out {

// s as a JSON string literal: quotes, backslashes and control characters escaped, and, as Go
// does, <, >, &, U+2028 and U+2029; a byte that is not valid UTF-8 becomes U+FFFD.
void AppendString(std::string& out, std::string_view s);

template <typename N>
void AppendNumber(std::string& out, N n) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), n);
  out.append(buf, ec == std::errc() ? end : buf);
}

}  // namespace stowage::api::json_out
