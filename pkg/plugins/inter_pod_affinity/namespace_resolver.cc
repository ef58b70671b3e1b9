#include "pkg/plugins/inter_pod_affinity/namespace_resolver.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "pkg/plugins/inter_pod_affinity/query_key.h"

namespace stowage::plugins::inter_pod_affinity {
namespace {

bool NeedsMerge(const framework::AffinityTerm& t) {
  return !t.namespace_selector.Empty() && !t.namespace_selector.MatchesNothing();
}

bool NeedsMerge(const framework::PodAffinityTerms& terms) {
  auto any = [](const auto& list, auto term_of) {
    return std::any_of(list.begin(), list.end(),
                       [&](const auto& t) { return NeedsMerge(term_of(t)); });
  };
  auto plain = [](const framework::AffinityTerm& t) -> const framework::AffinityTerm& { return t; };
  auto weighted = [](const framework::WeightedAffinityTerm& t) -> const framework::AffinityTerm& {
    return t.term;
  };
  return any(terms.required_affinity, plain) || any(terms.required_anti_affinity, plain) ||
         any(terms.preferred_affinity, weighted) || any(terms.preferred_anti_affinity, weighted);
}

// Adds the namespaces the term's selector picks to its list and turns the selector off
// (upstream mergeAffinityTermNamespacesIfNotEmpty); an empty selector, matching every
// namespace, is kept as it is.
void MergeNamespaces(const std::vector<std::shared_ptr<const api::Namespace>>& all,
                     framework::AffinityTerm& term) {
  if (term.namespace_selector.Empty()) return;
  for (const auto& ns : all) {
    if (term.namespace_selector.Matches(ns->metadata.labels)) {
      term.namespaces.push_back(ns->metadata.name);
    }
  }
  std::sort(term.namespaces.begin(), term.namespaces.end());
  term.namespaces.erase(std::unique(term.namespaces.begin(), term.namespaces.end()),
                        term.namespaces.end());
  term.namespace_selector = api::Selector::Nothing();
}

}  // namespace

std::shared_ptr<const framework::PodAffinityTerms> NamespaceResolver::Resolve(
    const std::shared_ptr<const framework::PodAffinityTerms>& terms) {
  if (terms == nullptr || !NeedsMerge(*terms)) return terms;
  // Read before listing: a change that lands meanwhile moves the version past the one kept.
  const std::optional<uint64_t> version = namespaces_.Version();
  if (!version || version != version_ || cache_.size() >= kCapacity) {
    cache_.clear();
    version_ = version;
  }
  // The key names every field of the terms, since the result is a copy of them.
  key_.clear();
  AppendToKey(key_, terms->required_affinity);
  AppendToKey(key_, terms->required_anti_affinity);
  AppendToKey(key_, terms->preferred_affinity);
  AppendToKey(key_, terms->preferred_anti_affinity);
  AppendToKey(key_, terms->parse_error);
  if (version) {
    if (auto it = cache_.find(key_); it != cache_.end()) return it->second;
  }
  auto merged = std::make_shared<framework::PodAffinityTerms>(*terms);
  const auto all = namespaces_.List();
  for (auto& t : merged->required_affinity) MergeNamespaces(all, t);
  for (auto& t : merged->required_anti_affinity) MergeNamespaces(all, t);
  for (auto& t : merged->preferred_affinity) MergeNamespaces(all, t.term);
  for (auto& t : merged->preferred_anti_affinity) MergeNamespaces(all, t.term);
  if (version) cache_.emplace(key_, merged);
  return merged;
}

}  // namespace stowage::plugins::inter_pod_affinity
