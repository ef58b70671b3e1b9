// HttpExtender over the scripted transport: what each verb sends, how answers and failures
// become results or errors, interest by managed resources, and the settings New refuses.
#include "pkg/extender/http_extender.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testing/builders.h"
#include "tests/testing/fake_api_server.h"
#include "tests/testing/fake_handle.h"

namespace stowage::extender::http_extender_test {
namespace {

using json = nlohmann::json;
using testing::BuildNode;
using testing::BuildPod;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::JsonResponse;
using ::testing::Pair;
using testing::Response;

struct Fixture {
  testing::FakeApiServer* api = nullptr;
  std::unique_ptr<HttpExtender> ext;
  std::vector<testing::NodeInfoPtr> infos = {
      testing::MakeNodeInfo(BuildNode().Name("n1").Obj()),
      testing::MakeNodeInfo(BuildNode().Name("n2").Obj(),
                            {BuildPod().Name("v").UID("uv").Node("n2").Obj()})};

  explicit Fixture(config::Extender c) {
    auto t = std::make_unique<testing::FakeApiServer>();
    api = t.get();
    ext = std::make_unique<HttpExtender>(c, std::move(t));
  }
  std::vector<const framework::NodeInfo*> nodes() const { return testing::Pointers(infos); }
};

config::Extender Config() {
  config::Extender c;
  c.url_prefix = "http://127.0.0.1:1/scheduler/";
  c.filter_verb = "filter";
  c.prioritize_verb = "prioritize";
  c.bind_verb = "bind";
  c.preempt_verb = "preempt";
  c.weight = 2;
  c.node_cache_capable = true;
  return c;
}

TEST(HttpExtender, FilterPostsToTheVerbWithTheDefaultTimeoutAndMapsNamesBack) {
  Fixture f(Config());
  f.api->ScriptNext(JsonResponse(200, {{"NodeNames", {"n2"}}, {"FailedNodes", {{"n1", "no"}}}}));
  framework::ExtenderFilterResult r;
  auto pod = BuildPod().Name("p").Obj();
  ASSERT_TRUE(f.ext->Filter(*pod, f.nodes(), r).ok());
  ASSERT_EQ(r.feasible.size(), 1u);
  EXPECT_EQ(r.feasible[0], f.infos[1].get());
  EXPECT_THAT(r.failed, ElementsAre(Pair("n1", "no")));
  auto reqs = f.api->Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/filter");
  EXPECT_EQ(reqs[0].timeout, std::chrono::seconds(5));
  EXPECT_EQ(json::parse(reqs[0].body)["NodeNames"], json::parse(R"(["n1","n2"])"));
}

TEST(HttpExtender, FilterRefusesANodeItWasNotSent) {
  Fixture f(Config());
  f.api->ScriptNext(JsonResponse(200, {{"NodeNames", {"n9"}}}));
  framework::ExtenderFilterResult r;
  Status s = f.ext->Filter(*BuildPod().Name("p").Obj(), f.nodes(), r);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("claims a filtered node \"n9\" which is not found in the input node list"));
}

TEST(HttpExtender, ErrorsNameTheVerbAndTheUrl) {
  Fixture f(Config());
  framework::ExtenderFilterResult r;
  auto pod = BuildPod().Name("p").Obj();
  f.api->ScriptNext(Response(500));
  EXPECT_EQ(f.ext->Filter(*pod, f.nodes(), r).message(),
            "failed filter with extender at URL http://127.0.0.1:1/scheduler/filter, code 500");
  f.api->ScriptNext(JsonResponse(200, {{"Error", "gpu inventory down"}}));
  EXPECT_EQ(f.ext->Filter(*pod, f.nodes(), r).message(), "gpu inventory down");
  f.api->ScriptNext(DeadlineExceededError("timed out"));
  Status timeout = f.ext->Filter(*pod, f.nodes(), r);
  EXPECT_EQ(timeout.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(timeout.message()), HasSubstr("http://127.0.0.1:1/scheduler/filter"));
}

TEST(HttpExtender, TheConfiguredTimeoutIsSent) {
  config::Extender c = Config();
  c.http_timeout = std::chrono::milliseconds(300);
  Fixture f(c);
  f.api->ScriptNext(JsonResponse(200, json::array()));
  std::vector<framework::HostPriority> out;
  ASSERT_TRUE(f.ext->Prioritize(*BuildPod().Name("p").Obj(), f.nodes(), out).ok());
  EXPECT_EQ(f.api->Requests().at(0).timeout, std::chrono::milliseconds(300));
}

// An answer may be as large as the limit, or four times the request when that is more: a filter
// answer without nodeCacheCapable echoes the nodes it was sent.
TEST(HttpExtender, TheResponseLimitIsTheFlagsOrFourTimesTheRequest) {
  config::Extender c = Config();
  c.node_cache_capable = false;
  Fixture f(c);
  auto pod = BuildPod().Name("p").Obj();
  framework::ExtenderFilterResult r;
  f.api->ScriptNext(JsonResponse(200, json::object()));
  ASSERT_TRUE(f.ext->Filter(*pod, f.nodes(), r).ok());
  EXPECT_EQ(f.api->Requests().at(0).max_response_bytes, size_t{16} << 20);

  std::vector<testing::NodeInfoPtr> big = {testing::MakeNodeInfo(
      BuildNode().Name("n1").Annotation("a", std::string(size_t{5} << 20, 'x')).Obj())};
  f.api->ScriptNext(JsonResponse(200, json::object()));
  ASSERT_TRUE(f.ext->Filter(*pod, testing::Pointers(big), r).ok());
  const client::HttpRequest sent = f.api->Requests().at(1);
  EXPECT_GT(sent.body.size(), size_t{5} << 20);
  EXPECT_EQ(sent.max_response_bytes, 4 * sent.body.size());

  auto t = std::make_unique<testing::FakeApiServer>();
  testing::FakeApiServer* api = t.get();
  HttpExtender raised(c, std::move(t), size_t{64} << 20);
  api->ScriptNext(JsonResponse(200, json::object()));
  ASSERT_TRUE(raised.Filter(*pod, f.nodes(), r).ok());
  EXPECT_EQ(api->Requests().at(0).max_response_bytes, size_t{64} << 20);
}

TEST(HttpExtender, VerblessCallsAnswerWithoutAsking) {
  config::Extender c = Config();
  c.filter_verb.clear();
  c.prioritize_verb.clear();
  Fixture f(c);
  framework::ExtenderFilterResult r;
  auto pod = BuildPod().Name("p").Obj();
  ASSERT_TRUE(f.ext->Filter(*pod, f.nodes(), r).ok());
  EXPECT_EQ(r.feasible.size(), 2u);
  std::vector<framework::HostPriority> scores;
  ASSERT_TRUE(f.ext->Prioritize(*pod, f.nodes(), scores).ok());
  EXPECT_EQ(scores.size(), 2u);
  EXPECT_TRUE(f.api->Requests().empty());
  EXPECT_FALSE(f.ext->IsFilter());
  EXPECT_FALSE(f.ext->IsPrioritizer());
}

TEST(HttpExtender, BindSendsTheBindingAndReportsTheExtendersError) {
  Fixture f(Config());
  auto pod = BuildPod().Name("p").Namespace("ns").UID("u").Obj();
  f.api->ScriptNext(JsonResponse(200, {{"Error", ""}}));
  EXPECT_TRUE(f.ext->Bind(*pod, "n1").ok());
  EXPECT_EQ(json::parse(f.api->Requests().at(0).body),
            json::parse(R"({"PodName":"p","PodNamespace":"ns","PodUID":"u","Node":"n1"})"));
  f.api->ScriptNext(JsonResponse(200, {{"Error", "no room"}}));
  EXPECT_EQ(f.ext->Bind(*pod, "n1").message(), "no room");
}

TEST(HttpExtender, PreemptionResolvesTheVictimsKeptOnTheSnapshot) {
  Fixture f(Config());
  testing::FakeNodeInfoLister lister;
  lister.Set(f.infos);
  framework::NodeToVictims proposed;
  proposed["n2"].pods = f.infos[1]->pods();
  framework::NodeToVictims kept;
  auto pod = BuildPod().Name("p").Obj();
  f.api->ScriptNext(
      JsonResponse(200, json::parse(R"({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"uv"}],
                           "NumPDBViolations":0}}})")));
  ASSERT_TRUE(f.ext->ProcessPreemption(*pod, proposed, lister, kept).ok());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept["n2"].pods.at(0)->pod->metadata.name, "v");
  f.api->ScriptNext(JsonResponse(
      200, json::parse(R"({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"other"}]}}})")));
  Status s = f.ext->ProcessPreemption(*pod, proposed, lister, kept);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("claims to preempt pod (UID: other) on node: n2, but the pod is not "
                        "found on that node"));
}

TEST(HttpExtender, InterestFollowsManagedResourcesInRequestsLimitsAndInitContainers) {
  config::Extender c = Config();
  EXPECT_TRUE(Fixture(c).ext->IsInterested(*BuildPod().Name("any").Obj()));
  c.managed_resources.push_back({.name = "example.com/gpu"});
  Fixture f(c);
  EXPECT_FALSE(f.ext->IsInterested(*BuildPod().Name("cpu").Req({{"cpu", "1"}}).Obj()));
  EXPECT_TRUE(f.ext->IsInterested(*BuildPod().Name("req").Req({{"example.com/gpu", "1"}}).Obj()));
  EXPECT_TRUE(f.ext->IsInterested(*BuildPod().Name("lim").Lim({{"example.com/gpu", "1"}}).Obj()));
  EXPECT_TRUE(
      f.ext->IsInterested(*BuildPod().Name("init").InitReq({{"example.com/gpu", "1"}}).Obj()));
}

TEST(New, RefusesWhatWouldWeakenTls) {
  config::Extender c = Config();
  c.tls_config.emplace().insecure = true;
  c.url_prefix = "https://127.0.0.1:1";
  auto insecure = New(c);
  ASSERT_FALSE(insecure.ok());
  EXPECT_THAT(std::string(insecure.status().message()), HasSubstr("insecure"));
  c = Config();
  c.enable_https = true;
  auto plain = New(c);
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(std::string(plain.status().message()), HasSubstr("not https://"));
  c.tls_config.emplace().ca_file = "/nonexistent/ca.crt";
  c.url_prefix = "https://127.0.0.1:1";
  EXPECT_FALSE(New(c).ok());
}

TEST(New, BuildsAPlainHttpExtender) {
  auto e = New(Config());
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->Name(), "http://127.0.0.1:1/scheduler/");
  EXPECT_EQ((*e)->weight(), 2);
}

}  // namespace
}  // namespace stowage::extender::http_extender_test
