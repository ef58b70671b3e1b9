// Internal to stowage_config: block-style YAML text of a JSON document, in the layout of
// go-yaml (which upstream's encoder uses): two-space indentation, list items at their key's
// indentation, "{}" and "[]" for empty collections, strings quoted only when a plain scalar
// would read back as something else.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace stowage::config::internal {

// Emits doc (normally an object). Within every object the keys follow in their (sorted) order,
// "apiVersion" and "kind" among them.
std::string EmitYaml(const nlohmann::json& doc);

// A string as a YAML scalar, styled as go-yaml styles it: plain when that reads back as the same
// string, single-quoted when only YAML syntax is in the way, else double-quoted with escapes.
std::string YamlString(std::string_view s);

}  // namespace stowage::config::internal
