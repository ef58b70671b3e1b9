#include "pkg/config/yaml_decoder.h"

#include <yaml-cpp/depthguard.h>

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "pkg/common/file.h"
#include "pkg/common/yaml_text.h"
#include "pkg/config/duration.h"

namespace stowage::config::internal {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  for (std::string_view x : set) {
    if (s == x) return true;
  }
  return false;
}

// strconv.ParseInt(s, 0, 64): a sign, then 0x/0o/0b or a leading-0 octal prefix, or decimal.
// Sets overflow (and returns nullopt) when the digits are valid but do not fit.
std::optional<int64_t> ParseGoInt(std::string_view s, bool& overflow) {
  overflow = false;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 1 && s[0] == '0') {
    const char p = static_cast<char>(s[1] | 0x20);
    if (p == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  if (s.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (end != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    overflow = true;
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (magnitude > limit) {
    overflow = true;
    return std::nullopt;
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

// go-yaml's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool LooksLikeFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

std::string Describe(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  const Scalar s = Resolve(node);
  switch (s.kind) {
    case ScalarKind::kNull: return "null";
    case ScalarKind::kBool: return std::string("bool ") + (s.boolean ? "true" : "false");
    case ScalarKind::kInt:
    case ScalarKind::kFloat: return "number " + s.text;
    case ScalarKind::kString: return "string " + GoQuote(s.text);
  }
  return "";
}

}  // namespace

Scalar Resolve(const YAML::Node& node) {
  if (node.IsNull() || !node.IsScalar()) return Scalar{};
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") {
    Scalar out;
    out.kind = ScalarKind::kString;
    out.text = FromYamlCpp(node.Scalar());
    return out;
  }
  return ResolvePlain(node.Scalar());
}

Scalar ResolvePlain(std::string_view text) {
  Scalar out;
  out.text = std::string(text);
  const std::string_view t = out.text;
  if (In(t, {"~", "null", "Null", "NULL", ""})) return out;  // kNull
  if (In(t, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    out.kind = ScalarKind::kBool;
    out.boolean = true;
    return out;
  }
  if (In(t, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    out.kind = ScalarKind::kBool;
    return out;
  }
  if (In(t, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"})) {
    out.kind = ScalarKind::kFloat;
    out.number = t[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return out;
  }
  if (In(t, {".nan", ".NaN", ".NAN"})) {
    out.kind = ScalarKind::kFloat;
    out.number = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const char c = t[0];
  if (c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')) {
    std::string plain;
    for (char ch : t) {
      if (ch != '_') plain += ch;
    }
    bool overflow = false;
    if (std::optional<int64_t> v = ParseGoInt(plain, overflow)) {
      out.kind = ScalarKind::kInt;
      out.integer = *v;
      out.number = static_cast<double>(*v);
      return out;
    }
    if (LooksLikeFloat(plain) || overflow) {
      double v = 0;
      const auto [end, ec] =
          std::from_chars(plain.data() + (plain[0] == '+' ? 1 : 0), plain.data() + plain.size(), v);
      if (end == plain.data() + plain.size() &&
          (ec == std::errc() || ec == std::errc::result_out_of_range)) {
        out.kind = ScalarKind::kFloat;
        out.number = v;
        out.int_overflow = overflow;
        return out;
      }
    }
  }
  out.kind = ScalarKind::kString;
  return out;
}

void Decoder::Fail(const FieldPath& path, std::string message) {
  errors_.push_back(path.str().empty() ? std::move(message) : path.str() + ": " + message);
}

bool Decoder::Spend(const FieldPath& path) {
  if (exhausted_) return false;
  if (++nodes_ > max_nodes_) {
    exhausted_ = true;
    Fail(path, "document too large: more than " + std::to_string(max_nodes_) +
                   " values (including alias expansions)");
    return false;
  }
  return true;
}

void Decoder::TypeError(const FieldPath& path, std::string_view expected, const YAML::Node& node) {
  Fail(path, "expected " + std::string(expected) + ", got " + Describe(node));
}

std::optional<Scalar> Decoder::Leaf(const YAML::Node& node, const FieldPath& path) {
  if (!Spend(path) || node.IsNull()) return std::nullopt;
  if (!node.IsScalar()) {
    TypeError(path, "a scalar", node);
    return std::nullopt;
  }
  Scalar s = Resolve(node);
  if (s.kind == ScalarKind::kNull) return std::nullopt;
  return s;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::string& out) {
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kString) return TypeError(path, "a string", node);
  out = std::move(s->text);
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::optional<std::string>& out) {
  out.reset();
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kString) return TypeError(path, "a string", node);
  out = std::move(s->text);
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, bool& out) {
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kBool) return TypeError(path, "a bool", node);
  out = s->boolean;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::optional<bool>& out) {
  out.reset();
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kBool) return TypeError(path, "a bool", node);
  out = s->boolean;
}

std::optional<int64_t> Decoder::Integer(const YAML::Node& node, const FieldPath& path, int64_t min,
                                        int64_t max, std::string_view type_name) {
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return std::nullopt;
  int64_t v = 0;
  if (s->kind == ScalarKind::kInt) {
    v = s->integer;
  } else if (s->kind == ScalarKind::kFloat && !s->int_overflow && std::isfinite(s->number) &&
             std::trunc(s->number) == s->number && std::fabs(s->number) < 9.2e18) {
    v = static_cast<int64_t>(s->number);  // 1e3 or 2.0 decode into integers upstream too
  } else {
    TypeError(path, "an integer", node);
    return std::nullopt;
  }
  if (v < min || v > max) {
    Fail(path, "value " + s->text + " overflows " + std::string(type_name));
    return std::nullopt;
  }
  return v;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, int32_t& out) {
  if (auto v = Integer(node, path, INT32_MIN, INT32_MAX, "int32")) out = static_cast<int32_t>(*v);
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::optional<int32_t>& out) {
  out.reset();
  if (auto v = Integer(node, path, INT32_MIN, INT32_MAX, "int32")) out = static_cast<int32_t>(*v);
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, int64_t& out) {
  if (auto v = Integer(node, path, INT64_MIN, INT64_MAX, "int64")) out = *v;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::optional<int64_t>& out) {
  out.reset();
  if (auto v = Integer(node, path, INT64_MIN, INT64_MAX, "int64")) out = *v;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, float& out) {
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kInt && s->kind != ScalarKind::kFloat) {
    return TypeError(path, "a number", node);
  }
  if (!std::isfinite(s->number) || std::fabs(s->number) > std::numeric_limits<float>::max()) {
    return Fail(path, "value " + s->text + " is not a finite float32");
  }
  out = static_cast<float>(s->number);
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, Duration& out) {
  std::optional<Duration> d;
  Get(node, path, d);
  if (d) out = *d;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::optional<Duration>& out) {
  out.reset();
  std::optional<Scalar> s = Leaf(node, path);
  if (!s) return;
  if (s->kind != ScalarKind::kString) return TypeError(path, "a duration string", node);
  StatusOr<Duration> d = ParseDuration(s->text);
  if (!d.ok()) return Fail(path, std::string(d.status().message()));
  out = *d;
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, std::vector<std::string>& out) {
  out.clear();
  Items(node, path, [&](const YAML::Node& item, const FieldPath& p) {
    std::string v;
    Get(item, p, v);
    out.push_back(std::move(v));
  });
}

void Decoder::Get(const YAML::Node& node, const FieldPath& path, api::StringMap& out) {
  std::vector<api::StringMap::Entry> entries;
  Fields(node, path, [&](const std::string& key, const YAML::Node& v, const FieldPath& p) {
    std::string value;
    Get(v, p, value);
    entries.emplace_back(key, std::move(value));
    return true;
  });
  out = api::StringMap(std::move(entries));
}

void Decoder::GetBytes(const YAML::Node& node, const FieldPath& path, std::string& out) {
  std::string text;
  Get(node, path, text);
  if (text.empty()) return;
  StatusOr<std::string> bytes = Base64Decode(text);
  if (!bytes.ok()) return Fail(path, "invalid base64: " + std::string(bytes.status().message()));
  out = std::move(*bytes);
}

namespace {

nlohmann::json ToGoJsonString(Decoder& d, const YAML::Node& node, const FieldPath& path,
                              size_t depth, size_t max_depth, const std::function<bool()>& spend) {
  if (!spend()) return nullptr;
  if (depth > max_depth) {
    d.Fail(path, "nested deeper than " + std::to_string(max_depth) + " levels");
    return nullptr;
  }
  if (node.IsMap()) {
    nlohmann::json obj = nlohmann::json::object();
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        d.Fail(path, "map keys must be strings");
        continue;
      }
      const Scalar k = Resolve(entry.first);
      std::string key = k.text;
      if (k.kind == ScalarKind::kBool) key = k.boolean ? "true" : "false";
      if (k.kind == ScalarKind::kInt) key = std::to_string(k.integer);
      if (obj.contains(key)) {
        d.Fail(path.Child(key), "duplicate field");
        continue;
      }
      obj[key] = ToGoJsonString(d, entry.second, path.Child(key), depth + 1, max_depth, spend);
    }
    return obj;
  }
  if (node.IsSequence()) {
    nlohmann::json arr = nlohmann::json::array();
    size_t i = 0;
    for (const auto& item : node) {
      arr.push_back(ToGoJsonString(d, item, path.Index(i++), depth + 1, max_depth, spend));
    }
    return arr;
  }
  const Scalar s = Resolve(node);
  switch (s.kind) {
    case ScalarKind::kNull: return nullptr;
    case ScalarKind::kBool: return s.boolean;
    case ScalarKind::kInt: return s.integer;
    case ScalarKind::kString: return s.text;
    case ScalarKind::kFloat:
      if (!std::isfinite(s.number)) {
        d.Fail(path, "value " + s.text + " cannot be represented in JSON");
        return nullptr;
      }
      // Go writes integral floats without a fraction; keep them integers so text round-trips.
      if (std::trunc(s.number) == s.number && std::fabs(s.number) < 9.2e18) {
        return static_cast<int64_t>(s.number);
      }
      return s.number;
  }
  return nullptr;
}

}  // namespace

std::string Decoder::ToJson(const YAML::Node& node, const FieldPath& path) {
  const std::function<bool()> spend = [&] { return Spend(path); };
  return ToGoJsonString(*this, node, path, 0, max_depth_, spend)
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status CurrentYamlError(const std::string& source) {
  try {
    throw;
  } catch (const YAML::DeepRecursion& e) {
    return InvalidArgumentError(source + ": nested too deeply (line " +
                                std::to_string(e.mark.line + 1) + ")");
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(source + ": invalid YAML: " + e.what());
  } catch (const std::exception& e) {
    return InternalError(source + ": " + e.what());
  } catch (...) {
    return InternalError(source + ": an unknown error");
  }
}

}  // namespace stowage::config::internal
