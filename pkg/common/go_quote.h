// Go's ways of quoting a string, for messages that must read exactly as Kubernetes writes them
// (field errors, API Status bodies, authorization denials).
#pragma once

#include <string>
#include <string_view>

namespace stowage {

// Go's %q of s (strconv.Quote): printable UTF-8 kept, everything else escaped.
std::string GoQuote(std::string_view s);
// s as a JSON string literal, quotes included, escaped as Go's encoding/json does (HTML
// characters, U+2028/U+2029 and invalid UTF-8 included).
std::string GoJsonString(std::string_view s);

}  // namespace stowage
