#include "pkg/config/documents.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "pkg/common/go_quote.h"
#include "pkg/config/yaml_decoder.h"
#include "pkg/config/yaml_emitter.h"

namespace stowage::config {

namespace {

// YAML admits only printable characters (tab, line feed and carriage return aside from the
// controls), in UTF-8; go-yaml refuses the rest, and yaml-cpp's LoadAll loops on some of them,
// growing without end. So they are refused first, by line.
Status CheckText(std::string_view text, const std::string& source) {
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    const auto c = static_cast<unsigned char>(text[i]);
    int32_t rune = c;
    if (c >= 0x80) rune = DecodeRune(text, i, len);
    const char* bad = nullptr;
    if (rune < 0) {
      bad = "bytes that are not UTF-8";
    } else if ((rune < 0x20 && rune != '\t' && rune != '\n' && rune != '\r') || rune == 0x7f ||
               (rune >= 0x80 && rune <= 0x9f && rune != 0x85)) {
      bad = "a control character";
    }
    if (bad) {
      return InvalidArgumentError(source + ": invalid YAML: line " + std::to_string(line) + ": " +
                                  bad);
    }
    if (c == '\n') ++line;
    i += len;
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<std::string>> DocumentsAsJson(std::string_view text, const std::string& source,
                                                   const DocumentLimits& limits) {
  if (Status s = CheckText(text, source); !s.ok()) return s;
  std::vector<std::string> out;
  try {
    std::vector<YAML::Node> docs;
    if (internal::LooksLikeJson(text)) {
      std::string error;
      docs.push_back(internal::ParseJson(text, error));
      if (!error.empty()) return InvalidArgumentError(source + ": invalid JSON: " + error);
    } else {
      docs = YAML::LoadAll(std::string(text));
    }
    size_t left = text.size() + limits.max_nodes_per_document;
    for (size_t i = 0; i < docs.size(); ++i) {
      if (!docs[i] || docs[i].IsNull()) continue;
      const std::string where = "document " + std::to_string(i + 1);
      const size_t budget = std::min(left, limits.max_nodes_per_document);
      internal::Decoder d(budget, limits.max_depth);
      std::string json = d.ToJson(docs[i], FieldPath(where));
      if (d.exhausted()) {
        return ResourceExhaustedError(source + ": " + where + ": more than " +
                                      std::to_string(budget) +
                                      " YAML nodes (aliases count each time they are used)");
      }
      left -= d.nodes();
      if (!d.errors().empty()) return InvalidArgumentError(source + ": " + d.errors().front());
      out.push_back(std::move(json));
    }
  } catch (...) {
    return internal::CurrentYamlError(source);
  }
  return out;
}

std::string YamlOf(std::string_view json) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  return doc.is_discarded() ? "" : internal::EmitYaml(doc);
}

}  // namespace stowage::config
