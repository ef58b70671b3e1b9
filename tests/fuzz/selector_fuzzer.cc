// Fuzzes label and node selectors (stowage/api/labels.h) as pods and nodes carry them: a label
// selector and a node selector are built from the input, compiled, and matched against a label
// set and a node name. stowage parses no selector strings from outside (the informers' field
// selectors are its own constants), so there is no string round trip to check; instead every
// match is compared with a plain reading of the selector's semantics, written out below, and
// String() must not depend on the order of the expressions.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/common/strconv.h"
#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/common/assert.h"

namespace {

using namespace stowage::api;

// Mostly keys, values and operators that are valid, so that most selectors compile and match.
std::string Pick(FuzzedDataProvider& in, const std::vector<std::string>& pool) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) return in.ConsumeRandomLengthString(80);
  return pool[in.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)];
}
const std::vector<std::string> kKeys = {"app", "tier", "example.com/zone", "metadata.name", "k"};
const std::vector<std::string> kValues = {"web",  "db", "", "1", "-5", "9223372036854775807",
                                          "a.b_c"};
const std::vector<std::string> kOps = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};

template <typename Requirement>
std::vector<Requirement> Requirements(FuzzedDataProvider& in) {
  std::vector<Requirement> out(in.ConsumeIntegralInRange<size_t>(0, 4));
  for (auto& r : out) {
    r.key = Pick(in, kKeys);
    r.op = Pick(in, kOps);
    r.values.resize(in.ConsumeIntegralInRange<size_t>(0, 3));
    for (auto& v : r.values) v = Pick(in, kValues);
  }
  return out;
}

// What one requirement means, read off the API documentation: `get` gives the value, if any.
template <typename Get>
bool Means(const std::string& op, const std::vector<std::string>& values, Get get) {
  std::optional<std::string> v = get();
  bool listed = v && std::find(values.begin(), values.end(), *v) != values.end();
  if (op == "In") return listed;
  if (op == "NotIn") return !listed;
  if (op == "Exists") return v.has_value();
  if (op == "DoesNotExist") return !v.has_value();
  std::optional<int64_t> have = v ? stowage::ParseInt64(*v) : std::nullopt;
  std::optional<int64_t> bound = stowage::ParseInt64(values.at(0));
  if (!have) return false;
  return op == "Gt" ? *have > *bound : *have < *bound;
}

std::optional<std::string> LabelOf(const StringMap& labels, const std::string& key) {
  const std::string* v = labels.Get(key);
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

void CheckLabelSelector(const LabelSelector& ls, const StringMap& labels) {
  auto s = Selector::FromLabelSelector(&ls);
  if (!s.ok()) return;
  bool expected = true;
  for (const auto& [k, v] : ls.match_labels.entries()) expected &= LabelOf(labels, k) == v;
  for (const auto& r : ls.match_expressions) {
    expected &= Means(r.op, r.values, [&] { return LabelOf(labels, r.key); });
  }
  RELEASE_ASSERT(s->Matches(labels) == expected, "label selector disagrees with its meaning");
  LabelSelector reversed = ls;
  std::reverse(reversed.match_expressions.begin(), reversed.match_expressions.end());
  auto r = Selector::FromLabelSelector(&reversed);
  RELEASE_ASSERT(r.ok(), "reordered expressions fail to compile");
  // Expressions on one key keep their order (upstream's stable sort), so compare only when
  // every key is distinct.
  std::vector<std::string> keys;
  for (const auto& e : ls.match_expressions) keys.push_back(e.key);
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) == keys.end()) {
    RELEASE_ASSERT(r->String() == s->String(), "String() depends on the expressions' order");
  }
}

void CheckNodeSelector(const NodeSelector& ns, const StringMap& labels, const std::string& name) {
  bool any = false;
  for (const NodeSelectorTerm& term : ns.terms) {
    auto compiled = NodeSelectorTermMatcher::Compile(term);
    if (!compiled.ok()) continue;
    bool expected = !term.match_expressions.empty() || !term.match_fields.empty();
    for (const auto& r : term.match_expressions) {
      expected &= Means(r.op, r.values, [&] { return LabelOf(labels, r.key); });
    }
    // A node without a name has no fields, and upstream then skips matchFields.
    for (const auto& r :
         name.empty() ? std::vector<NodeSelectorRequirement>() : term.match_fields) {
      // Fields other than metadata.name read as the empty string.
      std::string field = r.key == "metadata.name" ? name : "";
      expected &= Means(r.op, r.values, [&] { return std::optional<std::string>(field); });
    }
    RELEASE_ASSERT(compiled->Matches(labels, name) == expected, "node term disagrees");
    any |= expected;
  }
  NodeSelectorMatcher m = NodeSelectorMatcher::Compile(ns);
  RELEASE_ASSERT(m.Matches(labels, name) == any, "node selector is not the OR of its terms");
}

StringMap Labels(FuzzedDataProvider& in, size_t max) {
  std::vector<StringMap::Entry> entries(in.ConsumeIntegralInRange<size_t>(0, max));
  for (auto& [k, v] : entries) k = Pick(in, kKeys), v = Pick(in, kValues);
  return StringMap(std::move(entries));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  StringMap labels = Labels(in, 4);
  std::string node_name = Pick(in, kValues);
  LabelSelector ls;
  ls.match_labels = Labels(in, 2);
  ls.match_expressions = Requirements<LabelSelectorRequirement>(in);
  NodeSelector ns;
  ns.terms.resize(in.ConsumeIntegralInRange<size_t>(0, 3));
  for (auto& t : ns.terms) {
    t.match_expressions = Requirements<NodeSelectorRequirement>(in);
    t.match_fields = Requirements<NodeSelectorRequirement>(in);
  }
  CheckLabelSelector(ls, labels);
  CheckNodeSelector(ns, labels, node_name);
  return 0;
}
