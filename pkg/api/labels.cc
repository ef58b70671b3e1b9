#include "stowage/api/labels.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "pkg/api/name_validation.h"
#include "pkg/common/error_list.h"
#include "pkg/common/strconv.h"

namespace stowage::api {
namespace {

constexpr std::string_view kNodeNameField = "metadata.name";
constexpr size_t kMaxLabelNameLength = 63;
constexpr size_t kMaxLabelValueLength = 63;
constexpr size_t kMaxDNSSubdomainLength = 253;

constexpr std::string_view kNameShape =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

// What is wrong with a label key (a qualified name), as content.IsLabelKey reports it.
std::vector<std::string> LabelKeyProblems(std::string_view key) {
  std::vector<std::string> problems;
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      problems.push_back("a valid label key " + std::string(kNameShape) +
                         ", with an optional DNS subdomain prefix and '/' (e.g. "
                         "'example.com/MyName')");
      return problems;
    }
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      problems.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > kMaxDNSSubdomainLength) {
        problems.emplace_back("prefix part must be no more than 253 characters");
      }
      if (!IsDNS1123Subdomain(prefix)) {
        problems.emplace_back(
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character");
      }
    }
  }
  if (name.empty()) {
    problems.emplace_back("name part must be non-empty");
  } else {
    if (name.size() > kMaxLabelNameLength) {
      problems.emplace_back("name part must be no more than 63 characters");
    }
    if (!IsLabelToken(name)) problems.push_back("name part " + std::string(kNameShape));
  }
  return problems;
}

std::vector<std::string> LabelValueProblems(std::string_view value) {
  std::vector<std::string> problems;
  if (value.size() > kMaxLabelValueLength) {
    problems.emplace_back("must be no more than 63 characters");
  }
  if (!value.empty() && !IsLabelToken(value)) {
    problems.push_back("a valid label must be an empty string or " + std::string(kNameShape));
  }
  return problems;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

std::optional<SelectorOp> ParseOp(std::string_view op) {
  if (op == "In") return SelectorOp::kIn;
  if (op == "NotIn") return SelectorOp::kNotIn;
  if (op == "Exists") return SelectorOp::kExists;
  if (op == "DoesNotExist") return SelectorOp::kDoesNotExist;
  if (op == "Gt") return SelectorOp::kGt;
  if (op == "Lt") return SelectorOp::kLt;
  return std::nullopt;
}

void SortByKey(std::vector<Requirement>& requirements) {
  // Stable, so requirements on one key keep their order in String().
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
}

void AppendRequirement(std::string& out, const Requirement& r) {
  if (r.op == SelectorOp::kDoesNotExist) out += '!';
  out += r.key;
  switch (r.op) {
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist: return;
    case SelectorOp::kGt:
    case SelectorOp::kLt:
      out += r.op == SelectorOp::kGt ? '>' : '<';
      if (!r.values.empty()) out += r.values.front();
      return;
    case SelectorOp::kIn:
      if (r.equality && r.values.size() == 1) {
        out += '=';
        out += r.values.front();
        return;
      }
      out += " in (";
      break;
    case SelectorOp::kNotIn: out += " notin ("; break;
  }
  out += Join(r.values, ",");
  out += ')';
}

// Whether the sorted values hold value. Most requirements have one value (every matchLabels
// entry), where one equality test, which compares lengths first, replaces a bisection's two
// ordered comparisons.
bool Contains(const std::vector<std::string>& values, const std::string& value) {
  if (values.size() == 1) return values[0] == value;
  return std::binary_search(values.begin(), values.end(), value);
}
}  // namespace

bool Requirement::Matches(const StringMap& labels) const {
  const std::string* value = labels.Get(key);
  switch (op) {
    case SelectorOp::kIn: return value != nullptr && Contains(values, *value);
    case SelectorOp::kNotIn: return value == nullptr || !Contains(values, *value);
    case SelectorOp::kExists: return value != nullptr;
    case SelectorOp::kDoesNotExist: return value == nullptr;
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      if (value == nullptr) return false;
      // A label value that is not an integer matches neither.
      const std::optional<int64_t> n = ParseInt64(*value);
      if (!n) return false;
      return op == SelectorOp::kGt ? *n > number : *n < number;
    }
  }
  return false;
}

StatusOr<Requirement> MakeRequirement(std::string_view key, std::string_view op,
                                      const std::vector<std::string>& values) {
  // Every problem is reported at once, as upstream aggregates them.
  std::vector<std::string> problems;
  if (std::vector<std::string> key_problems = LabelKeyProblems(key); !key_problems.empty()) {
    problems.push_back("invalid key: " + Join(key_problems, "; "));
  }
  Requirement r;
  r.key = std::string(key);
  const std::optional<SelectorOp> parsed = ParseOp(op);
  if (!parsed) {
    problems.push_back("unsupported operator " + Quote(op) +
                       ": must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt");
  } else {
    r.op = *parsed;
    switch (r.op) {
      case SelectorOp::kIn:
      case SelectorOp::kNotIn:
        if (values.empty()) problems.push_back("operator " + std::string(op) + " needs values");
        break;
      case SelectorOp::kExists:
      case SelectorOp::kDoesNotExist:
        if (!values.empty()) problems.push_back("operator " + std::string(op) + " takes no values");
        break;
      case SelectorOp::kGt:
      case SelectorOp::kLt:
        if (values.size() != 1) {
          problems.push_back("operator " + std::string(op) + " needs exactly one value");
        }
        for (const std::string& v : values) {
          if (std::optional<int64_t> n = ParseInt64(v)) {
            r.number = *n;
          } else {
            problems.push_back("value " + Quote(v) + " of operator " + std::string(op) +
                               " is not an integer");
          }
        }
        break;
    }
  }
  for (const std::string& v : values) {
    if (std::vector<std::string> value_problems = LabelValueProblems(v); !value_problems.empty()) {
      problems.push_back("invalid value " + Quote(v) + ": " + Join(value_problems, "; "));
    }
  }
  if (!problems.empty()) {
    return InvalidArgumentError("label requirement on key " + Quote(key) + ": " +
                                Join(problems, "; "));
  }
  r.values = values;
  if (r.op == SelectorOp::kIn || r.op == SelectorOp::kNotIn) {
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
  }
  return r;
}

StatusOr<Selector> Selector::FromLabelSelector(const LabelSelector* selector) {
  if (selector == nullptr) return Nothing();
  if (selector->match_labels.empty() && selector->match_expressions.empty()) return Everything();
  Selector out(false);
  out.requirements_.reserve(selector->match_labels.size() + selector->match_expressions.size());
  for (const auto& [key, value] : selector->match_labels.entries()) {
    StatusOr<Requirement> r = MakeRequirement(key, "In", {value});
    if (!r.ok()) return r.status().WithPrefix("matchLabels");
    r->equality = true;
    out.requirements_.push_back(std::move(r).value());
  }
  for (size_t i = 0; i < selector->match_expressions.size(); ++i) {
    const LabelSelectorRequirement& expr = selector->match_expressions[i];
    const std::string where = "matchExpressions[" + std::to_string(i) + "]";
    // Gt and Lt exist only in node selectors.
    if (expr.op != "In" && expr.op != "NotIn" && expr.op != "Exists" && expr.op != "DoesNotExist") {
      return InvalidArgumentError(where + ": " + Quote(expr.op) +
                                  " is not a valid label selector operator");
    }
    StatusOr<Requirement> r = MakeRequirement(expr.key, expr.op, expr.values);
    if (!r.ok()) return r.status().WithPrefix(where);
    out.requirements_.push_back(std::move(r).value());
  }
  SortByKey(out.requirements_);
  return out;
}

Selector Selector::FromMap(const StringMap& set) {
  Selector out(false);
  out.requirements_.reserve(set.size());
  // Upstream builds these without validation, and StringMap is already sorted by key.
  for (const auto& [key, value] : set.entries()) {
    Requirement r;
    r.key = key;
    r.op = SelectorOp::kIn;
    r.values = {value};
    r.equality = true;
    out.requirements_.push_back(std::move(r));
  }
  return out;
}

bool Selector::Matches(const StringMap& labels) const {
  if (nothing_) return false;
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&labels](const Requirement& r) { return r.Matches(labels); });
}

std::string Selector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    AppendRequirement(out, requirements_[i]);
  }
  return out;
}

StatusOr<NodeSelectorTermMatcher> NodeSelectorTermMatcher::Compile(const NodeSelectorTerm& term) {
  NodeSelectorTermMatcher out;
  if (term.match_expressions.empty() && term.match_fields.empty()) return out;
  out.empty_ = false;
  std::vector<std::string> problems;
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    const NodeSelectorRequirement& expr = term.match_expressions[i];
    StatusOr<Requirement> r = MakeRequirement(expr.key, expr.op, expr.values);
    if (r.ok()) {
      out.labels_.push_back(std::move(r).value());
    } else {
      problems.push_back("matchExpressions[" + std::to_string(i) +
                         "]: " + std::string(r.status().message()));
    }
  }
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    const NodeSelectorRequirement& expr = term.match_fields[i];
    const std::string where = "matchFields[" + std::to_string(i) + "]: ";
    if (expr.op != "In" && expr.op != "NotIn") {
      problems.push_back(where + "unsupported operator " + Quote(expr.op) + " for field " +
                         Quote(expr.key) + ": must be In or NotIn");
    } else if (expr.values.size() != 1) {
      problems.push_back(where + "operator " + expr.op + " on field " + Quote(expr.key) +
                         " needs exactly one value");
    } else {
      Requirement r;
      r.key = expr.key;
      r.op = expr.op == "In" ? SelectorOp::kIn : SelectorOp::kNotIn;
      r.values = expr.values;
      out.fields_.push_back(std::move(r));
    }
  }
  if (!problems.empty()) return InvalidArgumentError(Join(problems, "; "));
  SortByKey(out.labels_);
  return out;
}

bool NodeSelectorTermMatcher::Matches(const StringMap& node_labels,
                                      std::string_view node_name) const {
  if (empty_) return false;
  for (const Requirement& r : labels_) {
    if (!r.Matches(node_labels)) return false;
  }
  // Upstream's field set is empty for a node without a name, and then it skips matchFields.
  if (node_name.empty()) return true;
  for (const Requirement& f : fields_) {
    const std::string_view actual = f.key == kNodeNameField ? node_name : std::string_view();
    const bool equal = actual == f.values.front();
    if (f.op == SelectorOp::kIn ? !equal : equal) return false;
  }
  return true;
}

NodeSelectorMatcher NodeSelectorMatcher::Compile(const NodeSelector& selector) {
  NodeSelectorMatcher out;
  std::vector<std::string> problems;
  for (size_t i = 0; i < selector.terms.size(); ++i) {
    const NodeSelectorTerm& term = selector.terms[i];
    // An empty term matches nothing, so it is dropped.
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    StatusOr<NodeSelectorTermMatcher> compiled = NodeSelectorTermMatcher::Compile(term);
    if (compiled.ok()) {
      out.terms_.push_back(std::move(compiled).value());
    } else {
      problems.push_back("nodeSelectorTerms[" + std::to_string(i) +
                         "]: " + std::string(compiled.status().message()));
    }
  }
  if (!problems.empty()) out.error_ = InvalidArgumentError(Join(problems, "; "));
  return out;
}

bool NodeSelectorMatcher::Matches(const StringMap& node_labels, std::string_view node_name) const {
  return std::any_of(terms_.begin(), terms_.end(), [&](const NodeSelectorTermMatcher& term) {
    return term.Matches(node_labels, node_name);
  });
}

}  // namespace stowage::api
