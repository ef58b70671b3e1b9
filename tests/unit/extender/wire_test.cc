// The wire format against JSON written from upstream's extender/v1 types (Go field names, no
// json tags; null for nil pointers and maps).
#include "pkg/extender/wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::extender::wire_test {
namespace {

using json = nlohmann::json;
using testing::BuildNode;
using testing::BuildPod;
using ::testing::ElementsAre;
using ::testing::Pair;

std::vector<testing::NodeInfoPtr> TwoNodes() {
  return {testing::MakeNodeInfo(BuildNode().Name("n1").Label("gpu", "yes").Obj()),
          testing::MakeNodeInfo(BuildNode().Name("n2").Obj())};
}

TEST(EncodeExtenderArgs, NodeCacheCapableSendsNamesAndANullNodeList) {
  auto infos = TwoNodes();
  auto pod = BuildPod().Name("p").Namespace("ns").UID("u1").Req({{"cpu", "500m"}}).Obj();
  json args = json::parse(EncodeExtenderArgs(*pod, testing::Pointers(infos), true));
  EXPECT_TRUE(args["Nodes"].is_null());
  EXPECT_EQ(args["NodeNames"], json::parse(R"(["n1","n2"])"));
  EXPECT_EQ(args["Pod"]["metadata"]["name"], "p");
  EXPECT_EQ(args["Pod"]["metadata"]["namespace"], "ns");
  EXPECT_EQ(args["Pod"]["metadata"]["uid"], "u1");
  EXPECT_EQ(args["Pod"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "500m");
}

TEST(EncodeExtenderArgs, OtherwiseSendsTheWholeNodesAndNullNames) {
  auto infos = TwoNodes();
  auto pod = BuildPod().Name("p").Obj();
  json args = json::parse(EncodeExtenderArgs(*pod, testing::Pointers(infos), false));
  EXPECT_TRUE(args["NodeNames"].is_null());
  ASSERT_EQ(args["Nodes"]["items"].size(), 2u);
  EXPECT_EQ(args["Nodes"]["items"][0]["metadata"]["name"], "n1");
  EXPECT_EQ(args["Nodes"]["items"][0]["metadata"]["labels"]["gpu"], "yes");
  EXPECT_EQ(args["Nodes"]["items"][1]["status"]["allocatable"]["pods"], "32");
}

TEST(DecodeFilterResult, ReadsEveryField) {
  auto r = DecodeFilterResult(R"({"Nodes":null,"NodeNames":["n1"],
      "FailedNodes":{"n2":"no gpu"},"FailedAndUnresolvableNodes":{"n3":"gone"},"Error":""})");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->node_names.has_value());
  EXPECT_THAT(*r->node_names, ElementsAre("n1"));
  EXPECT_FALSE(r->node_items.has_value());
  EXPECT_THAT(r->failed, ElementsAre(Pair("n2", "no gpu")));
  EXPECT_THAT(r->failed_and_unresolvable, ElementsAre(Pair("n3", "gone")));
  EXPECT_EQ(r->error, "");
}

TEST(DecodeFilterResult, MatchesKeysIgnoringCaseAsGoDoes) {
  auto r = DecodeFilterResult(
      R"({"nodes":{"items":[{"metadata":{"name":"n2"}}]},"failedNodes":{"n1":"x"},"error":"e"})");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->node_items.has_value());
  EXPECT_THAT(*r->node_items, ElementsAre("n2"));
  EXPECT_THAT(r->failed, ElementsAre(Pair("n1", "x")));
  EXPECT_EQ(r->error, "e");
}

TEST(DecodeFilterResult, TellsAnEmptyListFromANullOne) {
  auto empty = DecodeFilterResult(R"({"NodeNames":[]})");
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->node_names.has_value());
  EXPECT_TRUE(empty->node_names->empty());
  auto null = DecodeFilterResult(R"({"NodeNames":null})");
  ASSERT_TRUE(null.ok());
  EXPECT_FALSE(null->node_names.has_value());
}

TEST(DecodeFilterResult, RefusesMalformedAnswers) {
  EXPECT_FALSE(DecodeFilterResult("not json").ok());
  EXPECT_FALSE(DecodeFilterResult(R"({"NodeNames":"n1"})").ok());
  EXPECT_FALSE(DecodeFilterResult(R"({"FailedNodes":{"n1":3}})").ok());
}

TEST(DecodeHostPriorityList, ReadsHostsAndScores) {
  auto r = DecodeHostPriorityList(R"([{"Host":"n1","Score":7},{"host":"n2","score":0}])");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].host, "n1");
  EXPECT_EQ((*r)[0].score, 7);
  EXPECT_EQ((*r)[1].host, "n2");
  auto null = DecodeHostPriorityList("null");
  ASSERT_TRUE(null.ok());
  EXPECT_TRUE(null->empty());
  EXPECT_FALSE(DecodeHostPriorityList(R"({"Host":"n1"})").ok());
  EXPECT_FALSE(DecodeHostPriorityList(R"([{"Host":"n1","Score":"high"}])").ok());
}

TEST(DecodeHostPriorityList, AScoreThatIsNoInt64IsAnError) {
  // Found by the extender_answer fuzz target: a number beyond int64 was cast to one.
  for (const char* score : {"710001639710584329737900", "9223372036854775808", "1.5", "1e3"}) {
    auto r = DecodeHostPriorityList(std::string(R"([{"Host":"n1","Score":)") + score + "}]");
    ASSERT_FALSE(r.ok()) << score;
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("cannot unmarshal number"))
        << r.status();
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("into Score of type int64"))
        << r.status();
  }
  auto max = DecodeHostPriorityList(R"([{"Host":"n1","Score":9223372036854775807}])");
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ((*max)[0].score, INT64_MAX);
}

TEST(Binding, ArgsAndResult) {
  auto pod = BuildPod().Name("p").Namespace("ns").UID("u1").Obj();
  EXPECT_EQ(json::parse(EncodeBindingArgs(*pod, "n1")),
            json::parse(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u1","Node":"n1"})"));
  auto ok = DecodeBindingResult(R"({"Error":""})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "");
  auto refused = DecodeBindingResult(R"({"Error":"node full"})");
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(*refused, "node full");
  EXPECT_FALSE(DecodeBindingResult("{").ok());
}

TEST(Preemption, ArgsCarryPodsOrTheirUids) {
  auto preemptor = BuildPod().Name("p").UID("u0").Obj();
  framework::NodeToVictims victims;
  victims["n1"].pods.push_back(framework::NewPodInfo(BuildPod().Name("v").UID("u1").Obj()));
  victims["n1"].num_pdb_violations = 1;
  json meta = json::parse(EncodePreemptionArgs(*preemptor, victims, true));
  EXPECT_TRUE(meta["NodeNameToVictims"].is_null());
  EXPECT_EQ(meta["NodeNameToMetaVictims"],
            json::parse(R"({"n1":{"Pods":[{"UID":"u1"}],"NumPDBViolations":1}})"));
  json full = json::parse(EncodePreemptionArgs(*preemptor, victims, false));
  EXPECT_TRUE(full["NodeNameToMetaVictims"].is_null());
  EXPECT_EQ(full["NodeNameToVictims"]["n1"]["Pods"][0]["metadata"]["name"], "v");
  EXPECT_EQ(full["NodeNameToVictims"]["n1"]["NumPDBViolations"], 1);
  EXPECT_EQ(full["Pod"]["metadata"]["uid"], "u0");
}

TEST(Preemption, ResultGivesTheUidsKeptPerNode) {
  auto r = DecodePreemptionResult(
      R"({"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"u1"},{"UID":"u2"}],"NumPDBViolations":2},"n2":null}})");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_THAT(r->at("n1").uids, ElementsAre("u1", "u2"));
  EXPECT_EQ(r->at("n1").num_pdb_violations, 2);
  EXPECT_TRUE(r->at("n2").uids.empty());
}

TEST(ExtenderNodeScore, ScalesTheTenPointScoreByWeightToTheHundredPointRange) {
  EXPECT_EQ(framework::ExtenderNodeScore(10, 1), 100);
  EXPECT_EQ(framework::ExtenderNodeScore(7, 3), 210);
  EXPECT_EQ(framework::ExtenderNodeScore(0, 5), 0);
}

}  // namespace
}  // namespace stowage::extender::wire_test
