// The differential corpus: every line of tests/fixtures/dra/allocator_corpus.jsonl holds random
// slices, classes and claims and what the pinned upstream allocator made of them on node n1
// (written by tests/cluster/cmd/dracorpus); stowage's allocator must reach the same outcome,
// pick the same devices in the same order and compute the same node selectors.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/dra/allocator.h"
#include "tests/unit/dra/fake_selector_compiler.h"

namespace stowage::dra::corpus_test {
namespace {

template <typename T>
std::shared_ptr<const T> DecodeOrDie(const nlohmann::json& j) {
  StatusOr<T> obj = api::Decode<T>(j.dump());
  EXPECT_TRUE(obj.ok()) << obj.status().message();
  return std::make_shared<T>(obj.ok() ? *obj : T{});
}

std::string DescribeSelector(const std::optional<api::NodeSelector>& selector) {
  if (!selector) return "any";
  std::string out;
  auto add = [&](const char* kind, const api::NodeSelectorRequirement& r) {
    if (!out.empty()) out += "; ";
    out += std::string(kind) + " " + r.key + " " + r.op + " ";
    for (size_t i = 0; i < r.values.size(); ++i) out += (i ? "," : "") + r.values[i];
  };
  for (const auto& term : selector->terms) {
    for (const auto& r : term.match_expressions) add("label", r);
    for (const auto& r : term.match_fields) add("field", r);
  }
  return out;
}

std::vector<std::string> Describe(const api::AllocationResult& result) {
  std::vector<std::string> lines;
  for (const auto& r : result.results) {
    std::string s = r.request + "=" + r.driver + "/" + r.pool + "/" + r.device;
    if (r.admin_access.value_or(false)) s += " admin";
    if (r.share_id) s += " shared";
    for (const auto& [name, q] : r.consumed_capacity.entries()) s += " " + name + ":" + q.String();
    if (!r.binding_conditions.empty()) {
      s += " binding:";
      for (size_t i = 0; i < r.binding_conditions.size(); ++i) {
        s += (i ? "," : "") + r.binding_conditions[i];
      }
      s += "/";
      for (size_t i = 0; i < r.binding_failure_conditions.size(); ++i) {
        s += (i ? "," : "") + r.binding_failure_conditions[i];
      }
    }
    if (!r.tolerations.empty()) s += " tolerations:" + std::to_string(r.tolerations.size());
    lines.push_back(s);
  }
  lines.push_back("node: " + DescribeSelector(result.node_selector));
  return lines;
}

DeviceId ParseId(const std::string& id) {
  const size_t a = id.find('/'), b = id.find('/', a + 1);
  return DeviceId{id.substr(0, a), id.substr(a + 1, b - a - 1), id.substr(b + 1)};
}

TEST(Corpus, AgreesWithUpstream) {
  std::ifstream in(std::string(STOWAGE_SOURCE_DIR) + "/tests/fixtures/dra/allocator_corpus.jsonl");
  ASSERT_TRUE(in) << "missing corpus";
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    const nlohmann::json tc = nlohmann::json::parse(line);
    SCOPED_TRACE(tc["name"].get<std::string>());
    ++cases;
    std::vector<ResourceSlicePtr> slices;
    for (const auto& j : tc["slices"]) slices.push_back(DecodeOrDie<api::ResourceSlice>(j));
    std::vector<DeviceClassPtr> classes;
    for (const auto& j : tc["classes"]) classes.push_back(DecodeOrDie<api::DeviceClass>(j));
    std::vector<ResourceClaimPtr> claims;
    for (const auto& j : tc["claims"]) claims.push_back(DecodeOrDie<api::ResourceClaim>(j));
    AllocatedState allocated;
    if (tc.contains("allocated") && tc["allocated"].is_array()) {
      for (const auto& j : tc["allocated"]) allocated.devices.insert(ParseId(j.get<std::string>()));
    }
    if (tc.contains("allocatedCapacity")) {
      for (const auto& [id, amounts] : tc["allocatedCapacity"].items()) {
        CapacityAmounts& held = allocated.aggregated_capacity[ParseId(id)];
        for (const auto& [name, value] : amounts.items()) {
          held[name] = api::Quantity::Parse(value.get<std::string>())->Nanos();
        }
      }
    }
    auto node = DecodeOrDie<api::Node>(tc["node"]);
    testing::FakeSelectorCompiler compiler;
    Allocator allocator(Features{}, allocated, classes, slices, compiler);
    StatusOr<Allocation> got = allocator.Allocate(*node, claims);

    const std::string outcome = tc["outcome"].get<std::string>();
    if (outcome == "error") {
      ASSERT_FALSE(got.ok()) << "want error: " << tc["error"];
      EXPECT_EQ(got.status().message(), tc["error"].get<std::string>());
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().message();
    if (outcome == "failedOnNode") {
      EXPECT_EQ(got->outcome, Allocation::Outcome::kFailedOnNode);
      EXPECT_EQ(got->message, tc["error"].get<std::string>());
    } else if (outcome == "unsatisfiable") {
      EXPECT_EQ(got->outcome, Allocation::Outcome::kUnsatisfiable);
    } else {
      ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
      const auto& want = tc["results"];
      ASSERT_EQ(got->results.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(Describe(got->results[i]), want[i].get<std::vector<std::string>>())
            << "claim " << i;
      }
    }
  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace stowage::dra::corpus_test
