#include "pkg/config/yaml_emitter.h"

#include <vector>

#include "pkg/config/yaml_decoder.h"

namespace stowage::config::internal {
namespace {

using json = nlohmann::json;

constexpr char kHex[] = "0123456789abcdef";
constexpr size_t kMaxImplicitKey = 1000;

// Whether s can be written unquoted as far as YAML syntax goes (indicators, spaces, comments).
bool PlainSyntaxAllowed(std::string_view s) {
  if (s.empty()) return false;
  if (std::string_view(" -?:,[]{}#&*!|>'\"%@`.").find(s.front()) != std::string_view::npos) {
    return false;
  }
  if (s.back() == ' ' || s.back() == ':') return false;
  return s.find(": ") == std::string_view::npos && s.find(" #") == std::string_view::npos;
}

bool Printable(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string ScalarText(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::string: return YamlString(v.get_ref<const std::string&>());
    case json::value_t::object: return "{}";
    case json::value_t::array: return "[]";
    default: return v.dump();  // numbers: shortest round-trip form
  }
}

// The keys of an object in output order: sorted, apiVersion and kind included, as upstream's
// encoder (JSON turned into a map, then YAML) writes them.
std::vector<const std::string*> OrderedKeys(const json& obj) {
  std::vector<const std::string*> keys;
  for (auto it = obj.begin(); it != obj.end(); ++it) keys.push_back(&it.key());
  return keys;
}

bool IsNonEmptyCollection(const json& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

void EmitSequence(std::string& out, const json& seq, size_t indent, bool inline_first);

// The entries of a non-empty object, one per line at indent; when inline_first, the first line
// continues the current one (after "- ").
void EmitMapping(std::string& out, const json& obj, size_t indent, bool inline_first) {
  bool first = true;
  for (const std::string* key : OrderedKeys(obj)) {
    if (!(first && inline_first)) out.append(indent, ' ');
    first = false;
    const std::string rendered = YamlString(*key);
    const json& v = obj.at(*key);
    if (rendered.size() > kMaxImplicitKey) {
      // YAML caps implicit keys at 1024 characters; longer ones need the explicit "? " form.
      out += "? " + rendered + "\n";
      out.append(indent, ' ');
      out += ':';
      if (IsNonEmptyCollection(v)) {
        out += '\n';
        if (v.is_object()) {
          EmitMapping(out, v, indent + 2, false);
        } else {
          EmitSequence(out, v, indent + 2, false);
        }
      } else {
        out += ' ' + ScalarText(v) + '\n';
      }
      continue;
    }
    out += rendered;
    out += ':';
    if (v.is_object() && !v.empty()) {
      out += '\n';
      EmitMapping(out, v, indent + 2, false);
    } else if (v.is_array() && !v.empty()) {
      out += '\n';
      EmitSequence(out, v, indent, false);  // go-yaml puts items at the key's indentation
    } else {
      out += ' ';
      out += ScalarText(v);
      out += '\n';
    }
  }
}

void EmitSequence(std::string& out, const json& seq, size_t indent, bool inline_first) {
  bool first = true;
  for (const json& item : seq) {
    if (!(first && inline_first)) out.append(indent, ' ');
    first = false;
    out += "- ";
    if (item.is_object() && IsNonEmptyCollection(item)) {
      EmitMapping(out, item, indent + 2, true);
    } else if (item.is_array() && IsNonEmptyCollection(item)) {
      EmitSequence(out, item, indent + 2, true);
    } else {
      out += ScalarText(item);
      out += '\n';
    }
  }
}

}  // namespace

// As go-yaml: plain when possible; single quotes when only YAML syntax is in the way; double
// quotes (with escapes) when a plain scalar would read as another type (null, bool, number) or
// the text has control characters.
std::string YamlString(std::string_view s) {
  const bool reads_as_string = !s.empty() && ResolvePlain(s).kind == ScalarKind::kString;
  const bool printable = Printable(s);
  if (reads_as_string && printable && PlainSyntaxAllowed(s)) return std::string(s);
  std::string out;
  if (reads_as_string && printable) {
    out = "'";
    for (char ch : s) {
      out += ch;
      if (ch == '\'') out += '\'';
    }
    return out + "'";
  }
  out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

std::string EmitYaml(const json& doc) {
  std::string out;
  if (IsNonEmptyCollection(doc) && doc.is_object()) {
    EmitMapping(out, doc, 0, false);
  } else if (IsNonEmptyCollection(doc)) {
    EmitSequence(out, doc, 0, false);
  } else {
    out = ScalarText(doc) + "\n";
  }
  return out;
}

}  // namespace stowage::config::internal
