// Hash maps keyed by std::string that can be searched with a std::string_view, so lookups on
// hot paths do not build a temporary string.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

}  // namespace stowage

#pragma GCC visibility pop
