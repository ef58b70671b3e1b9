// Internal to stowage_config: strict, path-reporting decoding of a parsed YAML tree into the
// structs of types.h. Not a public header (it exposes yaml-cpp).
//
// Upstream converts YAML to JSON (sigs.k8s.io/yaml, YAML 1.1 scalar rules) and decodes the JSON
// strictly. The Decoder reproduces the observable rules: a plain scalar is typed by its text
// (`16` is a number, `true`/`yes`/`on` are booleans, `~`/`null`/empty is null, anything else a
// string) while a quoted scalar is always a string; a field of the wrong type, an unknown field
// (names are case-sensitive) and a key given twice are errors naming the field's path; null
// leaves a field unset. Errors are collected, not thrown, so one pass reports them all.
//
// Aliases let a small file describe an exponentially large tree, so every node visited is
// charged against a budget, and raw (out-of-tree) args are walked with a depth limit.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/common/yaml_text.h"
#include "pkg/config/field_error.h"
#include "pkg/config/types.h"
#include "stowage/api/types.h"

namespace stowage::config::internal {

enum class ScalarKind : uint8_t { kNull, kBool, kInt, kFloat, kString };

// A scalar typed as sigs.k8s.io/yaml would type it.
struct Scalar {
  ScalarKind kind = ScalarKind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;          // kFloat, and kInt too (as a double)
  bool int_overflow = false;  // a kFloat that was written as an integer beyond int64
  std::string text;
};
Scalar Resolve(const YAML::Node& node);
// The type of an unquoted (plain) scalar with this text.
Scalar ResolvePlain(std::string_view text);

class Decoder {
 public:
  // max_nodes bounds the total work (aliases included); max_depth bounds raw args nesting.
  Decoder(size_t max_nodes, size_t max_depth) : max_nodes_(max_nodes), max_depth_(max_depth) {}

  void Fail(const FieldPath& path, std::string message);
  const std::vector<std::string>& errors() const { return errors_; }
  bool exhausted() const { return exhausted_; }
  size_t nodes() const { return nodes_; }

  // Calls fn(key, value, path_of_key) for each entry of a map (null counts as empty). fn
  // returns false for a key it does not know, which is then reported as an unknown field.
  template <typename Fn>
  void Fields(const YAML::Node& node, const FieldPath& path, Fn&& fn) {
    if (!Spend(path) || node.IsNull()) return;
    if (!node.IsMap()) return TypeError(path, "a map", node);
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (exhausted_) return;
      if (!entry.first.IsScalar()) {
        Fail(path, "map keys must be strings");
        continue;
      }
      const std::string key = FromYamlCpp(entry.first.Scalar());
      const FieldPath child = path.Child(key);
      if (!seen.insert(key).second) {
        Fail(child, "duplicate field");
        continue;
      }
      if (!fn(key, entry.second, child)) Fail(child, "unknown field");
    }
  }

  // Calls fn(item, path_of_item) for each item of a sequence (null counts as empty).
  template <typename Fn>
  void Items(const YAML::Node& node, const FieldPath& path, Fn&& fn) {
    if (!Spend(path) || node.IsNull()) return;
    if (!node.IsSequence()) return TypeError(path, "a list", node);
    size_t i = 0;
    for (const auto& item : node) {
      if (exhausted_) return;
      fn(item, path.Index(i++));
    }
  }

  // Scalars. Null leaves out untouched (non-optional) or unset (optional).
  void Get(const YAML::Node& node, const FieldPath& path, std::string& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::optional<std::string>& out);
  void Get(const YAML::Node& node, const FieldPath& path, bool& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::optional<bool>& out);
  void Get(const YAML::Node& node, const FieldPath& path, int32_t& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::optional<int32_t>& out);
  void Get(const YAML::Node& node, const FieldPath& path, int64_t& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::optional<int64_t>& out);
  void Get(const YAML::Node& node, const FieldPath& path, float& out);
  void Get(const YAML::Node& node, const FieldPath& path, Duration& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::optional<Duration>& out);
  void Get(const YAML::Node& node, const FieldPath& path, std::vector<std::string>& out);
  void Get(const YAML::Node& node, const FieldPath& path, api::StringMap& out);
  // A base64 string (Go []byte), decoded.
  void GetBytes(const YAML::Node& node, const FieldPath& path, std::string& out);

  // Any value as canonical JSON text (keys sorted), as upstream keeps unknown plugin args.
  std::string ToJson(const YAML::Node& node, const FieldPath& path);

 private:
  bool Spend(const FieldPath& path);
  void TypeError(const FieldPath& path, std::string_view expected, const YAML::Node& node);
  std::optional<Scalar> Leaf(const YAML::Node& node, const FieldPath& path);
  std::optional<int64_t> Integer(const YAML::Node& node, const FieldPath& path, int64_t min,
                                 int64_t max, std::string_view type_name);

  size_t max_nodes_;
  size_t max_depth_;
  size_t nodes_ = 0;
  bool exhausted_ = false;
  std::vector<std::string> errors_;
};

// JSON input (json_input.cc). Upstream treats a document whose first non-blank character is '{'
// as JSON. ParseJson returns the document as a YAML tree (strings as quoted scalars, repeated
// keys kept), or sets error.
bool LooksLikeJson(std::string_view text);
// Inside a catch block: the exception being handled (yaml-cpp's, or another) as an error naming
// source and, for nesting too deep, the line.
Status CurrentYamlError(const std::string& source);
YAML::Node ParseJson(std::string_view text, std::string& error);

// Decoders of the nested types (decode_args.cc).
void DecodeArgs(Decoder& d, const YAML::Node& node, const FieldPath& path,
                const std::string& plugin_name, PluginArgs& out);

}  // namespace stowage::config::internal
