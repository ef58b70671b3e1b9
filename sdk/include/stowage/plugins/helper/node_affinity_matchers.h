// Compiled forms of a pod's node constraints, as component-helpers'
// scheduling/corev1/nodeaffinity builds them: RequiredNodeAffinity (spec.nodeSelector ANDed with
// requiredDuringSchedulingIgnoredDuringExecution) and PreferredSchedulingTerms (weighted
// preferences). Both are compiled once per pod and then matched against many nodes; they are
// immutable and safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The pod's requiredDuringSchedulingIgnoredDuringExecution node affinity, or null.
const api::NodeSelector* RequiredNodeSelector(const api::Pod& pod);

// The outcome of matching required affinity against a node.
struct MatchResult {
  bool matched = false;
  // Some required terms failed to parse and no valid term matched: upstream's Match returns an
  // error then (which Filter ignores and queueing hints treat as Queue).
  bool parse_error = false;
};

// nodeaffinity.RequiredNodeAffinity: a node must match the pod's nodeSelector (when non-empty)
// and one of the required terms (when required affinity is set; invalid terms never match, and
// a required affinity without terms matches nothing).
class RequiredNodeAffinity {
 public:
  static RequiredNodeAffinity FromPod(const api::Pod& pod);
  MatchResult Match(const api::Node& node) const;
  // True when the pod has neither a nodeSelector nor required affinity: every node matches.
  bool MatchesAll() const { return !node_selector_ && !required_; }

 private:
  std::optional<api::Selector> node_selector_;
  std::optional<api::NodeSelectorMatcher> required_;
};

// nodeaffinity.PreferredSchedulingTerms: the score of a node is the sum of the weights of the
// terms it matches. Terms of weight 0 and empty terms are dropped; any invalid term makes
// Compile fail.
class PreferredSchedulingTerms {
 public:
  static StatusOr<PreferredSchedulingTerms> Compile(
      const std::vector<api::PreferredSchedulingTerm>& terms);
  int64_t Score(const api::Node& node) const;
  bool empty() const { return terms_.empty(); }

 private:
  std::vector<std::pair<api::NodeSelectorTermMatcher, int64_t>> terms_;
};

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
