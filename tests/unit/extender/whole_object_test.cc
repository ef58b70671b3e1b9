// Extenders get whole objects: a Pod and a Node with every upstream field set, decoded as an
// informer that keeps whole objects decodes them, give the very requests upstream's scheduler
// sends for them (tests/fixtures/schema/Extender*.json, marshalled by Go from upstream's types by
// scripts/generate/schema), compared path by path.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/extender/wire.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"

namespace stowage::extender::whole_object_test {
namespace {

using json = nlohmann::json;
using stowage::testing::ReadFixture;

// Every path where a and b differ, as "path: a vs b" (a path missing from one side shows as
// null), so a failure names the fields lost or changed.
void Diff(const json& a, const json& b, const std::string& path, std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      Diff(it.value(), b.contains(it.key()) ? b[it.key()] : json(), path + "." + it.key(), out);
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) Diff(json(), it.value(), path + "." + it.key(), out);
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i)
      Diff(a[i], b[i], path + "[" + std::to_string(i) + "]", out);
  } else if (a != b) {
    out.push_back(path + ": " + a.dump().substr(0, 80) + " vs " + b.dump().substr(0, 80));
  }
}

std::vector<std::string> Diff(const json& stowage, const json& upstream) {
  std::vector<std::string> out;
  Diff(stowage, upstream, "", out);
  return out;
}

// Counts the leaf paths of j, to show the comparison covers the whole object.
size_t Leaves(const json& j) {
  if (j.is_object() || j.is_array()) {
    size_t n = 0;
    for (const auto& v : j) n += Leaves(v);
    return n;
  }
  return 1;
}

class WholeObjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pod = api::Decode<api::Pod>(ReadFixture("schema/WholePod.json"), api::Keep::kWhole);
    ASSERT_TRUE(pod.ok()) << pod.status();
    pod_ = std::make_shared<const api::Pod>(std::move(*pod));
    auto node = api::Decode<api::Node>(ReadFixture("schema/WholeNode.json"), api::Keep::kWhole);
    ASSERT_TRUE(node.ok()) << node.status();
    node_ = stowage::testing::MakeNodeInfo(std::make_shared<const api::Node>(std::move(*node)));
  }

  std::shared_ptr<const api::Pod> pod_;
  stowage::testing::NodeInfoPtr node_;
};

TEST_F(WholeObjectTest, FilterArgsAreUpstreamsPathByPath) {
  json ours = json::parse(EncodeExtenderArgs(*pod_, {node_.get()}, false));
  json upstream = json::parse(ReadFixture("schema/ExtenderArgs.json"));
  EXPECT_EQ(Diff(ours, upstream), std::vector<std::string>{});
  // The fixture sets every field of upstream's types, so the pod alone has hundreds of paths.
  EXPECT_GT(Leaves(upstream["Pod"]), 500u);
}

TEST_F(WholeObjectTest, PreemptionArgsAreUpstreamsPathByPath) {
  framework::NodeToVictims victims;
  auto& v = victims[node_->name()];
  v.pods.push_back(framework::NewPodInfo(pod_));
  v.num_pdb_violations = 1;
  json ours = json::parse(EncodePreemptionArgs(*pod_, victims, false));
  json upstream = json::parse(ReadFixture("schema/ExtenderPreemptionArgs.json"));
  EXPECT_EQ(Diff(ours, upstream), std::vector<std::string>{});
}

// What the informer drops (kind, apiVersion, managedFields) and keeps (the last-applied
// annotation, which the compact metadata drops).
TEST_F(WholeObjectTest, KeepsWhatUpstreamsInformerKeeps) {
  json whole = json::parse(*pod_->whole.json);
  EXPECT_FALSE(whole.contains("kind"));
  EXPECT_FALSE(whole.contains("apiVersion"));
  EXPECT_FALSE(whole["metadata"].contains("managedFields"));
  EXPECT_TRUE(whole["spec"]["containers"][0].contains("env"));
  EXPECT_TRUE(json::parse(*node_->node()->whole.json)["status"].contains("addresses"));
}

// Without whole objects (no extender configured) nothing is kept.
TEST(WholeObject, KeptOnlyWhenAsked) {
  auto pod = api::Decode<api::Pod>(ReadFixture("schema/WholePod.json"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE(pod->whole);
  auto list = api::DecodeList<api::Node>("{\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[" +
                                             ReadFixture("schema/WholeNode.json") + "]}",
                                         api::Keep::kWhole);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_TRUE(list->items[0]->whole);
}

// Strings are written back with their escapes: quotes, control characters and Go's HTML escapes.
TEST(WholeObject, StringsKeepTheirValue) {
  const std::string value = "q\"\\\n\t\x01<&>\u2028\u00e9";
  const std::string pod_json = json{{"kind", "Pod"},
                                    {"metadata", {{"name", "p"}, {"annotations", {{"a", value}}}}},
                                    {"spec", {{"containers", {{{"name", "c"}}}}}}}
                                   .dump();
  auto pod = api::Decode<api::Pod>(pod_json, api::Keep::kWhole);
  ASSERT_TRUE(pod.ok()) << pod.status();
  json whole = json::parse(*pod->whole.json);
  EXPECT_EQ(whole["metadata"]["annotations"]["a"], value);
  EXPECT_NE(pod->whole.json->find("\\u003c\\u0026\\u003e"), std::string::npos);
}

}  // namespace
}  // namespace stowage::extender::whole_object_test
