// Number parsing with Go's strconv rules, for values whose syntax Kubernetes defines through Go
// (quantity exponents, Gt/Lt selector bounds).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stowage {

// strconv.ParseInt(s, 10, 64): an optional sign, then at least one decimal digit and nothing
// else; nullopt on any other input or on overflow.
std::optional<int64_t> ParseInt64(std::string_view s);

}  // namespace stowage
