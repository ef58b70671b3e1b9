// JSON documents are read with a JSON parser, as upstream reads them (its decoder recognises
// JSON by a leading '{' and skips YAML altogether), and handed to the Decoder as a YAML tree:
// strings become quoted scalars, numbers/booleans/null plain ones, and repeated keys are kept so
// the Decoder reports them.
#include <nlohmann/json.hpp>
#include <vector>

#include "pkg/config/yaml_decoder.h"

namespace stowage::config::internal {
namespace {

constexpr size_t kMaxJsonDepth = 512;

YAML::Node StringNode(const std::string& s) {
  YAML::Node n(s);
  n.SetTag("!");  // a quoted scalar: always a string
  return n;
}

// Builds the tree from parser events. Containers are linked into their parent when opened and
// filled afterwards (YAML::Node handles share their data).
class TreeBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return Add(YAML::Node(YAML::NodeType::Null)); }
  bool boolean(bool v) override { return Add(YAML::Node(v ? "true" : "false")); }
  bool number_integer(number_integer_t v) override { return Add(YAML::Node(std::to_string(v))); }
  bool number_unsigned(number_unsigned_t v) override { return Add(YAML::Node(std::to_string(v))); }
  bool number_float(number_float_t, const string_t& text) override { return Add(YAML::Node(text)); }
  bool string(string_t& v) override { return Add(StringNode(v)); }
  bool binary(binary_t&) override { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) override { return Open(YAML::Node(YAML::NodeType::Map)); }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(YAML::Node(YAML::NodeType::Sequence)); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    return Fail(ex.what());
  }

  const YAML::Node& root() const { return root_; }
  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  bool Add(const YAML::Node& value) {
    if (stack_.empty()) {
      root_ = value;
    } else if (stack_.back().IsMap()) {
      stack_.back().force_insert(StringNode(key_), value);
    } else {
      stack_.back().push_back(value);
    }
    return true;
  }

  bool Open(const YAML::Node& container) {
    if (stack_.size() >= kMaxJsonDepth) return Fail("nested too deeply");
    Add(container);
    stack_.push_back(container);
    return true;
  }

  bool Close() {
    stack_.pop_back();
    return true;
  }

  YAML::Node root_;
  std::vector<YAML::Node> stack_;
  std::string key_;
  std::string error_;
};

}  // namespace

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{';
  }
  return false;
}

YAML::Node ParseJson(std::string_view text, std::string& error) {
  TreeBuilder builder;
  const bool ok = nlohmann::json::sax_parse(text, &builder);
  if (!ok || !builder.error().empty()) {
    error = builder.error().empty() ? "invalid JSON" : builder.error();
    return YAML::Node();
  }
  return builder.root();
}

}  // namespace stowage::config::internal
