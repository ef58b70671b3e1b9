#include "stowage/plugin_config/raw_args.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "pkg/common/go_quote.h"

namespace stowage::config {
namespace {

using json = nlohmann::json;

// The expectation a value failed, or empty when it was stored.
template <typename T>
std::string Store(const json& v, T* out);

template <>
std::string Store(const json& v, int64_t* out) {
  if (!v.is_number_integer()) return "expected an integer";
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    return "integer out of range";
  }
  *out = v.get<int64_t>();
  return "";
}
template <>
std::string Store(const json& v, int32_t* out) {
  int64_t wide = 0;
  if (std::string e = Store(v, &wide); !e.empty()) return e;
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max()) {
    return "integer out of range";
  }
  *out = static_cast<int32_t>(wide);
  return "";
}
template <>
std::string Store(const json& v, double* out) {
  if (!v.is_number()) return "expected a number";
  *out = v.get<double>();
  return "";
}
template <>
std::string Store(const json& v, bool* out) {
  if (!v.is_boolean()) return "expected a boolean";
  *out = v.get<bool>();
  return "";
}
template <>
std::string Store(const json& v, std::string* out) {
  if (!v.is_string()) return "expected a string";
  *out = v.get<std::string>();
  return "";
}
template <>
std::string Store(const json& v, std::vector<std::string>* out) {
  if (!v.is_array()) return "expected a list of strings";
  std::vector<std::string> items;
  for (const json& item : v) {
    if (!item.is_string()) return "expected a list of strings";
    items.push_back(item.get<std::string>());
  }
  *out = std::move(items);
  return "";
}

// What a mistyped value was, as the configuration's own errors say it: `string "x"`,
// `number 1.5`, `bool true`, `array`, `object`.
std::string Got(const json& v) {
  if (v.is_string()) return "string " + GoQuote(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "bool true" : "bool false";
  if (v.is_number()) return "number " + v.dump();
  return v.is_array() ? "array" : "object";
}

}  // namespace

stowage::Status DecodeRawArgs(std::string_view plugin, const PluginArgs& args,
                              const ArgsFields& fields) {
  const std::string where = "plugin \"" + std::string(plugin) + "\": args: ";
  if (std::holds_alternative<std::monostate>(args)) return OkStatus();
  const auto* raw = std::get_if<RawArgs>(&args);
  if (raw == nullptr) {
    return InvalidArgumentError(where + "expected untyped args, got " +
                                std::string(ArgsKind(args)));
  }
  json doc = json::parse(raw->json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgumentError(where + "not valid JSON");
  if (doc.is_null()) return OkStatus();
  if (!doc.is_object()) return InvalidArgumentError(where + "expected an object");
  for (const auto& [key, value] : doc.items()) {
    const ArgsFields::Field* field = nullptr;
    for (const auto& f : fields.fields()) {
      if (f.name == key) field = &f;
    }
    if (field == nullptr) return InvalidArgumentError(where + "unknown field \"" + key + "\"");
    if (value.is_null()) continue;  // as Go's decoder, null leaves the default
    // Captured by name: clang 14 cannot capture a structured binding.
    std::string error =
        std::visit([&v = value](auto* out) { return Store(v, out); }, field->target);
    if (!error.empty()) {
      if (error.starts_with("expected")) error += ", got " + Got(value);
      return InvalidArgumentError(where + "field \"" + key + "\": " + error);
    }
  }
  return OkStatus();
}

}  // namespace stowage::config
