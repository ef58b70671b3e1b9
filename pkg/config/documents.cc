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

// The documents of a YAML stream, cut at the `---` and `...` lines (which YAML forbids inside
// content), each with the line it starts on. yaml-cpp's LoadAll is not used: on some inputs
// (",n!." is one) it loops without end, growing; each piece is loaded alone with Load instead.
std::vector<std::pair<std::string_view, size_t>> SplitDocuments(std::string_view text) {
  std::vector<std::pair<std::string_view, size_t>> docs;
  size_t start = 0, start_line = 1, line_no = 1;
  for (size_t pos = 0; pos < text.size(); ++line_no) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    const bool start_marker = line.starts_with("---");
    if ((start_marker || line.starts_with("...")) &&
        (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')) {
      docs.emplace_back(text.substr(start, pos - start), start_line);
      // Content may follow `---` on its line; nothing follows `...`.
      start = start_marker ? pos + 3 : std::min(eol + 1, text.size());
      start_line = start_marker ? line_no : line_no + 1;
    }
    pos = eol + 1;
  }
  docs.emplace_back(text.substr(std::min(start, text.size())), start_line);
  return docs;
}

}  // namespace

StatusOr<std::vector<std::string>> DocumentsAsJson(std::string_view text, const std::string& source,
                                                   const DocumentLimits& limits) {
  if (Status s = CheckText(text, source); !s.ok()) return s;
  std::vector<std::string> out;
  size_t left = text.size() + limits.max_nodes_per_document;
  auto convert = [&](const YAML::Node& doc) -> Status {
    const std::string where = "document " + std::to_string(out.size() + 1);
    const size_t budget = std::min(left, limits.max_nodes_per_document);
    internal::Decoder d(budget, limits.max_depth);
    std::string json = d.ToJson(doc, FieldPath(where));
    if (d.exhausted()) {
      return ResourceExhaustedError(source + ": " + where + ": more than " +
                                    std::to_string(budget) +
                                    " YAML nodes (aliases count each time they are used)");
    }
    left -= d.nodes();
    if (!d.errors().empty()) return InvalidArgumentError(source + ": " + d.errors().front());
    out.push_back(std::move(json));
    return OkStatus();
  };
  if (internal::LooksLikeJson(text)) {
    try {
      std::string error;
      const YAML::Node doc = internal::ParseJson(text, error);
      if (!error.empty()) return InvalidArgumentError(source + ": invalid JSON: " + error);
      if (Status s = convert(doc); !s.ok()) return s;
    } catch (...) {
      return internal::CurrentYamlError(source);
    }
    return out;
  }
  for (const auto& [piece, line] : SplitDocuments(text)) {
    try {
      const YAML::Node doc = YAML::Load(std::string(piece));
      if (!doc || doc.IsNull()) continue;
      if (Status s = convert(doc); !s.ok()) return s;
    } catch (...) {
      return internal::CurrentYamlError(source + " (the document from line " +
                                        std::to_string(line) + ")");
    }
  }
  return out;
}

std::string YamlOf(std::string_view json) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  return doc.is_discarded() ? "" : internal::EmitYaml(doc);
}

}  // namespace stowage::config
