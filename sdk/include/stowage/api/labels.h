// Label and node selectors, compiled once and matched many times.
//
// Selector follows apimachinery's labels.Selector as built by metav1.LabelSelectorAsSelector:
// a null selector matches nothing, an empty one matches everything, and requirements are ANDed.
// NodeSelectorMatcher follows component-helpers' nodeaffinity: terms are ORed, requirements
// within a term ANDed, an empty term matches nothing, matchFields supports only metadata.name
// with In/NotIn, and Gt/Lt compare integers. Compiled matchers are immutable and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::api {

enum class SelectorOp : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

// One compiled requirement. For In/NotIn, values are sorted and unique; for Gt/Lt, number holds
// the bound.
struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::kExists;
  std::vector<std::string> values;
  int64_t number = 0;
  // Set on the key=value requirements built from matchLabels or a label map (upstream's Equals
  // operator): they match as In with one value but print as "key=value".
  bool equality = false;

  bool Matches(const StringMap& labels) const;
};

// Validates and compiles one requirement, as labels.NewRequirement does: the key must be a
// qualified name, In/NotIn need values, Exists/DoesNotExist take none, Gt/Lt take one integer,
// and values must be valid label values. Errors name the key and the problem.
StatusOr<Requirement> MakeRequirement(std::string_view key, std::string_view op,
                                      const std::vector<std::string>& values);

class Selector {
 public:
  // Matches every label set.
  static Selector Everything() { return Selector(false); }
  // Matches no label set.
  static Selector Nothing() { return Selector(true); }
  // metav1.LabelSelectorAsSelector: nullptr gives Nothing, an empty selector Everything.
  static StatusOr<Selector> FromLabelSelector(const LabelSelector* selector);
  // labels.SelectorFromSet: every key equals its value; an empty map matches everything.
  static Selector FromMap(const StringMap& set);

  bool Matches(const StringMap& labels) const;
  bool MatchesNothing() const { return nothing_; }
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // The selector in labels.Selector's string form, e.g. "app=web,tier in (a,b)".
  std::string String() const;

 private:
  explicit Selector(bool nothing) : nothing_(nothing) {}
  bool nothing_;
  std::vector<Requirement> requirements_;  // sorted by key, as upstream sorts them
};

// One node selector term, compiled.
class NodeSelectorTermMatcher {
 public:
  static StatusOr<NodeSelectorTermMatcher> Compile(const NodeSelectorTerm& term);
  bool Matches(const StringMap& node_labels, std::string_view node_name) const;

 private:
  std::vector<Requirement> labels_;
  // Upstream does not check the key (API validation allows only metadata.name); any other key
  // reads as the empty string, as a missing field does there.
  std::vector<Requirement> fields_;
  bool empty_ = true;  // an empty term matches nothing
};

// A node selector (ORed terms). Invalid terms are kept as errors and never match, while the
// valid ones still do (nodeaffinity.LazyErrorNodeSelector).
class NodeSelectorMatcher {
 public:
  static NodeSelectorMatcher Compile(const NodeSelector& selector);
  bool Matches(const StringMap& node_labels, std::string_view node_name) const;
  bool Matches(const Node& node) const { return Matches(node.metadata.labels, node.metadata.name); }
  // The parse errors of invalid terms, joined; OK when every term compiled.
  const Status& error() const { return error_; }

 private:
  std::vector<NodeSelectorTermMatcher> terms_;
  Status error_;
};

}  // namespace stowage::api

#pragma GCC visibility pop
