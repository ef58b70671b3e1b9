// Files of API objects as people write them (`kubectl get -o yaml`, multi-document YAML, one
// JSON document): each document as JSON text, its scalars typed as sigs.k8s.io/yaml types them.
// For `stowage simulate`'s snapshot and --add files; the configuration has its own strict loader.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::config {

// YAML nodes are counted as they are visited, aliases each time they are used, so a billion
// laughs stops at the budget: per document, and for the whole file no more than one node per
// byte beyond one document's worth (text without aliases has fewer).
struct DocumentLimits {
  size_t max_nodes_per_document = 1'000'000;
  size_t max_depth = 100;  // nesting of maps and lists
};

// The non-empty documents of text, in order. Errors name source and the document's number (from
// 1) or line.
StatusOr<std::vector<std::string>> DocumentsAsJson(std::string_view text, const std::string& source,
                                                   const DocumentLimits& limits = {});

// Block-style YAML of a JSON document, in go-yaml's layout (what `kubectl get -o yaml` writes);
// "" when json is not valid JSON.
std::string YamlOf(std::string_view json);

}  // namespace stowage::config
