#include "pkg/dra/node_match.h"

#include <algorithm>
#include <set>
#include <string>

#include "stowage/api/labels.h"

namespace stowage::dra {

StatusOr<bool> NodeMatches(const api::Node& node, std::string_view node_name, bool all_nodes,
                           const api::NodeSelector* node_selector) {
  if (!node_name.empty()) return node.metadata.name == node_name;
  if (all_nodes) return true;
  if (node_selector != nullptr) {
    // Upstream builds a strict selector here: one bad term fails the whole match.
    api::NodeSelectorMatcher matcher = api::NodeSelectorMatcher::Compile(*node_selector);
    if (!matcher.error().ok()) {
      return InvalidArgumentError("failed to parse node selector: " +
                                  std::string(matcher.error().message()));
    }
    return matcher.Matches(node);
  }
  return false;
}

namespace {

bool SameRequirement(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  if (a.key != b.key || a.op != b.op) return false;
  // Values compare as sets, as upstream does.
  return std::set<std::string>(a.values.begin(), a.values.end()) ==
         std::set<std::string>(b.values.begin(), b.values.end());
}

void AddMissing(const std::vector<api::NodeSelectorRequirement>& from,
                std::vector<api::NodeSelectorRequirement>& to) {
  for (const auto& req : from) {
    bool present = std::any_of(to.begin(), to.end(),
                               [&](const auto& have) { return SameRequirement(have, req); });
    if (!present) to.push_back(req);
  }
}

}  // namespace

StatusOr<std::optional<api::NodeSelector>> CreateNodeSelector(
    const std::vector<SliceDevice>& devices, const std::string* target_node) {
  api::NodeSelectorTerm term;
  for (const auto& [slice, device] : devices) {
    const std::optional<std::string>* node_name = &slice->node_name;
    const std::optional<api::NodeSelector>* node_selector = &slice->node_selector;
    if (slice->per_device_node_selection.value_or(false)) {
      node_name = &device->node_name;
      node_selector = &device->node_selector;
    }
    if (!node_name->value_or("").empty() || device->binds_to_node.value_or(false)) {
      if (target_node == nullptr) return std::optional<api::NodeSelector>();
      api::NodeSelector by_name;
      by_name.terms.push_back(api::NodeSelectorTerm{
          .match_expressions = {},
          .match_fields = {{.key = "metadata.name", .op = "In", .values = {*target_node}}}});
      return std::optional<api::NodeSelector>(std::move(by_name));
    }
    if (!node_selector->has_value()) continue;
    const auto& terms = (*node_selector)->terms;
    if (terms.size() > 1) {
      return InvalidArgumentError("unsupported ResourceSlice.NodeSelector with " +
                                  std::to_string(terms.size()) + " terms");
    }
    if (terms.size() == 1 && target_node != nullptr) {
      AddMissing(terms[0].match_fields, term.match_fields);
      AddMissing(terms[0].match_expressions, term.match_expressions);
    }
  }
  if (term.match_fields.empty() && term.match_expressions.empty()) {
    return std::optional<api::NodeSelector>();
  }
  api::NodeSelector selector;
  selector.terms.push_back(std::move(term));
  return std::optional<api::NodeSelector>(std::move(selector));
}

}  // namespace stowage::dra
