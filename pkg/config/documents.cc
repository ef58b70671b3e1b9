#include "pkg/config/documents.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "pkg/config/yaml_decoder.h"
#include "pkg/config/yaml_emitter.h"

namespace stowage::config {

StatusOr<std::vector<std::string>> DocumentsAsJson(std::string_view text, const std::string& source,
                                                   const DocumentLimits& limits) {
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
