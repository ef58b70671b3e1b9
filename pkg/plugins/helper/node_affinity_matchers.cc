#include "stowage/plugins/helper/node_affinity_matchers.h"

#include <string>
#include <vector>

#include "pkg/common/error_list.h"

namespace stowage::plugins::helper {

const api::NodeSelector* RequiredNodeSelector(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity || !affinity->node_affinity->required) return nullptr;
  return &*affinity->node_affinity->required;
}

RequiredNodeAffinity RequiredNodeAffinity::FromPod(const api::Pod& pod) {
  RequiredNodeAffinity out;
  if (!pod.spec.node_selector.empty()) {
    out.node_selector_ = api::Selector::FromMap(pod.spec.node_selector);
  }
  if (const api::NodeSelector* required = RequiredNodeSelector(pod)) {
    out.required_ = api::NodeSelectorMatcher::Compile(*required);
  }
  return out;
}

MatchResult RequiredNodeAffinity::Match(const api::Node& node) const {
  if (node_selector_ && !node_selector_->Matches(node.metadata.labels)) return {};
  if (!required_) return {true, false};
  const bool matched = required_->Matches(node);
  return {matched, !matched && !required_->error().ok()};
}

StatusOr<PreferredSchedulingTerms> PreferredSchedulingTerms::Compile(
    const std::vector<api::PreferredSchedulingTerm>& terms) {
  PreferredSchedulingTerms out;
  std::vector<std::string> errors;
  for (size_t i = 0; i < terms.size(); ++i) {
    const api::PreferredSchedulingTerm& term = terms[i];
    if (term.weight == 0 ||
        (term.preference.match_expressions.empty() && term.preference.match_fields.empty())) {
      continue;
    }
    StatusOr<api::NodeSelectorTermMatcher> compiled =
        api::NodeSelectorTermMatcher::Compile(term.preference);
    if (!compiled.ok()) {
      errors.push_back("[" + std::to_string(i) +
                       "].preference: " + std::string(compiled.status().message()));
      continue;
    }
    out.terms_.emplace_back(std::move(compiled).value(), term.weight);
  }
  if (!errors.empty()) return InvalidArgumentError(Join(errors, "; "));
  return out;
}

int64_t PreferredSchedulingTerms::Score(const api::Node& node) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (term.Matches(node.metadata.labels, node.metadata.name)) score += weight;
  }
  return score;
}

}  // namespace stowage::plugins::helper
