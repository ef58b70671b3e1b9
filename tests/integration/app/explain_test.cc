// `stowage explain` against the real apiserver: the verdicts and the pick for a schedulable pod,
// the scheduler's own message for an unschedulable one, the gate of a gated one, JSON output,
// and then the running scheduler's decisions for the same pods, which must agree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/builders.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::explain_test {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;
using ::testing::StartsWith;

constexpr char kNs[] = "explain";

// Runs `stowage explain` with args; its exit code and everything it printed (stdout and the
// log on stderr share the file).
std::pair<int, std::string> Explain(const std::vector<std::string>& args) {
  static int seq = 0;
  const std::string log = SharedCluster().dir() + "/explain-" + std::to_string(seq++) + ".out";
  std::vector<std::string> argv = {STOWAGE_BINARY, "explain"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--kubeconfig=" + SharedCluster().kubeconfig());
  testing::Process p;
  Status s = p.Start(argv, log);
  EXPECT_TRUE(s.ok()) << s;
  auto code = p.Wait(60s);
  EXPECT_TRUE(code.has_value()) << p.Log();
  return {code.value_or(-1), p.Log()};
}

std::string NodeOf(const std::string& name) {
  auto pod = client::GetObject<api::Pod>(SharedCluster().Admin(), kNs, name);
  return pod.ok() ? pod->spec.node_name : "";
}

// The first line of text holding needle, or "".
std::string LineWith(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at);
  const size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1));
}

class ExplainCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto& admin = SharedCluster().Admin();
    ASSERT_TRUE(testing::EnsureNamespace(admin, kNs).ok());
    auto node = [](const std::string& name, const std::string& cpu) {
      return testing::BuildNode()
          .Name(name)
          .Label("explain", "yes")
          .Capacity({{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}});
    };
    ASSERT_TRUE(testing::CreateNode(admin, node("explain-small", "2").Label("size", "small")).ok());
    ASSERT_TRUE(testing::CreateNode(admin, node("explain-big", "16")).ok());
    ASSERT_TRUE(testing::CreateNode(
                    admin, node("explain-tainted", "16").Taint("dedicated", "x", "NoSchedule"))
                    .ok());
    auto pod = [](const std::string& name, const std::string& cpu) {
      return testing::BuildPod()
          .Namespace(kNs)
          .Name(name)
          .NodeSelector({{"explain", "yes"}})
          .Req({{"cpu", cpu}});
    };
    ASSERT_TRUE(testing::CreatePod(admin, pod("fits", "4")).ok());
    ASSERT_TRUE(testing::CreatePod(admin, pod("too-big", "64")).ok());
    ASSERT_TRUE(
        testing::CreatePod(admin, pod("gated", "1").SchedulingGates({"example.com/wait"})).ok());
  }
  // The pods would otherwise keep later tests' schedulers busy.
  static void TearDownTestSuite() {
    for (const char* name : {"fits", "too-big", "gated", "scored"}) {
      (void)testing::DeletePod(SharedCluster().Admin(), kNs, name);
    }
  }
};

TEST_F(ExplainCommand, ASchedulablePodGetsEachNodesVerdictAndThePick) {
  auto [code, out] = Explain({std::string(kNs) + "/fits"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("Pod explain/fits, profile default-scheduler"));
  const std::string cpu = LineWith(out, "Insufficient cpu");
  EXPECT_THAT(cpu, HasSubstr("NodeResourcesFit"));
  // 4 cpu asked of a 2-cpu node: more than it has at all, so preemption cannot help.
  EXPECT_THAT(cpu, HasSubstr("UnschedulableAndUnresolvable"));
  EXPECT_THAT(cpu, HasSubstr("explain-small"));
  const std::string taint = LineWith(out, "untolerated taint");
  EXPECT_THAT(taint, HasSubstr("TaintToleration"));
  EXPECT_THAT(taint, HasSubstr("UnschedulableAndUnresolvable"));
  EXPECT_THAT(taint, HasSubstr("explain-tainted"));
  EXPECT_THAT(out, HasSubstr("Pick: explain-big\n"));
}

TEST_F(ExplainCommand, AnUnschedulablePodGetsTheSchedulersMessage) {
  auto [code, out] = Explain({std::string(kNs) + "/too-big", "-o", "json"});
  ASSERT_EQ(code, 0) << out;
  const size_t brace = out.find("{\n");
  ASSERT_NE(brace, std::string::npos) << out;
  const size_t end = out.rfind("}\n");
  auto j = nlohmann::json::parse(out.substr(brace, end + 2 - brace), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["pod"], "explain/too-big");
  EXPECT_TRUE(j["scores"].empty());
  const std::string message = j["unschedulable"];
  EXPECT_THAT(message, HasSubstr("2 Insufficient cpu"));
  EXPECT_THAT(message, HasSubstr("1 node(s) had untolerated taint(s)"));
  int verdicts = 0;
  for (const auto& v : j["filter"])
    verdicts += v["node"].get<std::string>().rfind("explain-", 0) == 0;
  EXPECT_EQ(verdicts, 3);
}

TEST_F(ExplainCommand, AGatedPodSaysWhichGateHoldsIt) {
  auto [code, out] = Explain({std::string(kNs) + "/gated"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("PreEnqueue: held out of the queue by SchedulingGates"));
  EXPECT_THAT(out, HasSubstr("example.com/wait"));
}

// kubectl finds the plugin on PATH; it hands stowage the kubeconfig kubectl itself would use.
TEST_F(ExplainCommand, TheKubectlPluginAsksStowageWithKubectlsOwnConfig) {
  testing::Process p;
  const std::string log = SharedCluster().dir() + "/kubectl-stowage.out";
  const std::string path =
      std::string(KUBECTL_STOWAGE_DIR) + ":" + testing::TestCluster::BinDir() + ":/usr/bin:/bin";
  ASSERT_TRUE(p.Start({testing::TestCluster::BinDir() + "/kubectl", "stowage", "explain", "fits",
                       "-n", kNs, "--kubeconfig", SharedCluster().kubeconfig()},
                      log, {"PATH=" + path, std::string("STOWAGE=") + STOWAGE_BINARY})
                  .ok());
  auto code = p.Wait(60s);
  ASSERT_TRUE(code.has_value()) << p.Log();
  EXPECT_EQ(*code, 0) << p.Log();
  EXPECT_THAT(p.Log(), HasSubstr("Pod explain/fits, profile default-scheduler"));
  EXPECT_THAT(p.Log(), HasSubstr("Pick: explain-big\n"));
}

// The -o html page in a real browser (Debian's Chromium, headless): clicking the Total header
// sorts the feasible nodes by their totals, ascending then descending. On failure a screenshot
// is kept in the working directory.
TEST_F(ExplainCommand, TheHtmlPageSortsInAHeadlessBrowser) {
  if (access("/usr/bin/chromium", X_OK) != 0) GTEST_SKIP() << "chromium is not installed";
  const std::string dir = SharedCluster().dir();
  testing::Process p;
  ASSERT_TRUE(p.Start({"/bin/sh", "-c",
                       std::string("exec \"$0\" explain explain/gated -o html --kubeconfig=\"$1\" "
                                   ">\"$2\""),
                       STOWAGE_BINARY, SharedCluster().kubeconfig(), dir + "/gated.html"},
                      dir + "/explain-html.log")
                  .ok());
  ASSERT_EQ(p.Wait(60s).value_or(-1), 0) << p.Log();
  auto page = ReadFile(dir + "/gated.html");
  ASSERT_TRUE(page.ok());
  // The page as a user opens it, plus a script that clicks as a user would and notes the order.
  std::string probe = *page;
  probe.insert(probe.rfind("</body>"), R"(<script>
function totals(){return [].map.call(document.querySelectorAll('#scores tbody tr'),
  function(r){return r.cells[2].textContent;}).join(',');}
var th=document.querySelectorAll('#scores th')[2];
th.click();var up=totals();th.click();
document.body.setAttribute('data-sorted',up+'|'+totals());
</script>)");
  std::ofstream(dir + "/probe.html") << probe;
  testing::Process browser;
  ASSERT_TRUE(browser
                  .Start({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", "file://" + dir + "/probe.html"},
                         dir + "/chromium.log")
                  .ok());
  ASSERT_EQ(browser.Wait(120s).value_or(-1), 0) << browser.Log();
  const std::string dom = browser.Log();
  std::smatch m;
  const bool found =
      std::regex_search(dom, m, std::regex(R"re(data-sorted="([0-9,]*)\|([0-9,]*)")re"));
  auto numbers = [](const std::string& csv) {
    std::vector<int> out;
    for (size_t at = 0; at < csv.size();) {
      size_t comma = csv.find(',', at);
      out.push_back(std::stoi(csv.substr(at, comma - at)));
      at = comma == std::string::npos ? csv.size() : comma + 1;
    }
    return out;
  };
  std::vector<int> up = found ? numbers(m[1]) : std::vector<int>{};
  std::vector<int> down = found ? numbers(m[2]) : std::vector<int>{};
  const bool ok = found && up.size() >= 2 && std::is_sorted(up.begin(), up.end()) &&
                  std::is_sorted(down.rbegin(), down.rend()) && up.front() < up.back();
  if (!ok) {
    testing::Process shot;
    (void)shot.Start({"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                      "--window-size=1200,900", "--screenshot=explain-html-failure.png",
                      "file://" + dir + "/gated.html"},
                     dir + "/chromium-shot.log");
    (void)shot.Wait(120s);
  }
  EXPECT_TRUE(ok) << "sorted totals (ascending|descending): " << (found ? m[0].str() : "none")
                  << "; a screenshot is in explain-html-failure.png; the DOM:\n"
                  << dom.substr(0, 4000);
  EXPECT_THAT(dom, HasSubstr("<td>explain-big</td>"));
}

TEST_F(ExplainCommand, BadRequestsFailWithTheirReason) {
  auto [code, out] = Explain({std::string(kNs) + "/no-such-pod"});
  EXPECT_EQ(code, 1);
  EXPECT_THAT(out, HasSubstr("pod explain/no-such-pod not found"));
  auto [code2, out2] = Explain({std::string(kNs) + "/fits", "-o", "yaml"});
  EXPECT_EQ(code2, 1);
  EXPECT_THAT(out2, HasSubstr("unknown output format \"yaml\""));
}

// A pod that fits only where a lower-priority pod runs: explain runs preemption as a dry run,
// naming the node and the victim, and evicts and nominates nothing.
TEST_F(ExplainCommand, APreemptorGetsItsVictimsWithNothingEvicted) {
  auto& admin = SharedCluster().Admin();
  for (const auto& [name, value] :
       std::map<std::string, int>{{"explain-low", 10}, {"explain-high", 1000}}) {
    auto pc = admin.Post(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        R"({"metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) + "}");
    ASSERT_TRUE(pc.ok() || client::IsAlreadyExists(pc.status())) << pc.status();
  }
  auto pod = [](const std::string& name, const std::string& cls) {
    return testing::BuildPod()
        .Namespace(kNs)
        .Name(name)
        .PriorityClassName(cls)
        .NodeSelector({{"explain", "yes"}, {"size", "small"}})
        .Req({{"cpu", "1500m"}});
  };
  ASSERT_TRUE(testing::CreatePod(admin, pod("low", "explain-low").Node("explain-small")).ok());
  ASSERT_TRUE(testing::CreatePod(admin, pod("urgent", "explain-high")).ok());
  auto [code, out] = Explain({std::string(kNs) + "/urgent"});
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("Preemption (dry run): would nominate explain-small and evict "
                             "explain/low\n"));
  auto [code2, json] = Explain({std::string(kNs) + "/urgent", "-o", "json"});
  EXPECT_EQ(code2, 0) << json;
  EXPECT_THAT(json, HasSubstr(R"("victims": [)"));
  auto low = client::GetObject<api::Pod>(admin, kNs, "low");
  ASSERT_TRUE(low.ok());
  EXPECT_FALSE(low->metadata.deletion_timestamp.has_value());
  auto urgent = client::GetObject<api::Pod>(admin, kNs, "urgent");
  ASSERT_TRUE(urgent.ok());
  EXPECT_EQ(urgent->status.nominated_node_name, "");
  // A pod no eviction can help gets the dry run's verdict too.
  auto [code3, big] = Explain({std::string(kNs) + "/too-big"});
  EXPECT_EQ(code3, 0) << big;
  EXPECT_THAT(big, HasSubstr("Preemption (dry run): no node where evicting"));
  // Gone before the running scheduler of the next test would preempt for real.
  (void)testing::DeletePod(admin, kNs, "urgent");
  (void)testing::DeletePod(admin, kNs, "low");
}

// Last: the running scheduler places the pods, and its decisions are the ones explained.
TEST_F(ExplainCommand, TheRunningSchedulerAgrees) {
  auto [code, out] = Explain({std::string(kNs) + "/too-big"});
  ASSERT_EQ(code, 0) << out;
  const size_t at = out.find("Unschedulable: ");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string explained = out.substr(at + 15, out.find('\n', at) - at - 15);
  Instance in({"--leader-elect=false",
               "--authentication-kubeconfig=" + SharedCluster().kubeconfig(),
               "--authorization-kubeconfig=" + SharedCluster().kubeconfig()});
  ASSERT_TRUE(testing::Eventually([] { return NodeOf("fits") == "explain-big"; }, 60s)) << in.Log();
  ASSERT_TRUE(testing::Eventually([] { return !ScheduledMessage(kNs, "too-big").empty(); }, 60s))
      << in.Log();
  // The scheduler appends preemption's verdict to the same FitError text.
  EXPECT_THAT(ScheduledMessage(kNs, "too-big"), StartsWith(explained));

  // The running scheduler answers the same on its secure port, behind delegated authorization.
  const std::string admin = *ReadFile(SharedCluster().dir() + "/token");
  const std::string url = in.url("/debug/explain?pod=explain/too-big");
  EXPECT_EQ(Curl(url).code, 403);
  HttpResult live = Curl(url, admin);
  EXPECT_EQ(live.code, 200) << live.body;
  EXPECT_THAT(live.body, HasSubstr("Unschedulable: " + explained));
  // And it says where the pod waits: in unschedulable, after the attempt those plugins rejected.
  EXPECT_THAT(live.body, HasSubstr("Queue: unschedulable for "));
  // Other tests' nodes in the shared cluster add NodeAffinity and others to the list.
  EXPECT_THAT(LineWith(live.body, "Queue: "), HasSubstr("last rejected by "));
  EXPECT_THAT(LineWith(live.body, "Queue: "), HasSubstr("NodeResourcesFit"));
  HttpResult json = Curl(url + "&output=json", admin);
  EXPECT_FALSE(nlohmann::json::parse(json.body, nullptr, false).is_discarded()) << json.body;
  EXPECT_EQ(Curl(in.url("/debug/explain?pod=explain/fits"), admin).code, 409);
  EXPECT_EQ(Curl(in.url("/debug/explain?pod=explain/nope"), admin).code, 404);
  EXPECT_EQ(Curl(in.url("/debug/explain"), admin).code, 400);
}

// Upstream's kube-scheduler logs each plugin's weighted score of each node at -v=10: explain's
// scores of a gated pod must be those, once the gate is lifted and upstream schedules it.
TEST_F(ExplainCommand, ScoresAreTheOnesUpstreamLogsAtV10) {
  auto& admin = SharedCluster().Admin();
  ASSERT_TRUE(testing::CreatePod(admin, testing::BuildPod()
                                            .Namespace(kNs)
                                            .Name("scored")
                                            .NodeSelector({{"explain", "yes"}})
                                            .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                                            .SchedulingGates({"example.com/wait"}))
                  .ok());
  auto [code, out] = Explain({std::string(kNs) + "/scored", "-o", "json"});
  ASSERT_EQ(code, 0) << out;
  const size_t brace = out.find("{\n");
  auto j = nlohmann::json::parse(out.substr(brace, out.rfind("}\n") + 2 - brace), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  std::map<std::pair<std::string, std::string>, int64_t> ours;  // (node, plugin) -> weighted
  for (const auto& s : j["scores"]) {
    for (const auto& p : s["plugins"]) ours[{s["node"], p["plugin"]}] = p["weighted"];
  }
  ASSERT_FALSE(ours.empty()) << out;

  ASSERT_TRUE(admin
                  .Patch(std::string("/api/v1/namespaces/") + kNs + "/pods/scored",
                         R"({"spec":{"schedulingGates":null}})", client::kMergePatch)
                  .ok());
  testing::Process upstream;
  const std::string log = SharedCluster().dir() + "/explain-upstream.log";
  ASSERT_TRUE(upstream
                  .Start({testing::TestCluster::BinDir() + "/kube-scheduler",
                          "--kubeconfig=" + SharedCluster().kubeconfig(), "--leader-elect=false",
                          "--secure-port=0", "-v=10"},
                         log)
                  .ok());
  ASSERT_TRUE(testing::Eventually([] { return !NodeOf("scored").empty(); }, 60s))
      << "upstream did not bind the pod; its log: " << log;
  upstream.Signal(SIGTERM);
  (void)upstream.Wait(30s);
  const std::string text = upstream.Log();
  const std::regex line(
      R"re("Plugin scored node for pod" pod="explain/scored" plugin="([^"]+)" node="([^"]+)" score=(\d+))re");
  int compared = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    const std::string plugin = (*it)[1], node = (*it)[2];
    const int64_t score = std::stoll((*it)[3]);
    auto found = ours.find({node, plugin});
    if (found == ours.end()) {
      // A plugin that skipped the pod is left out by explain; upstream logs it at 0.
      EXPECT_EQ(score, 0) << plugin << " on " << node;
      continue;
    }
    EXPECT_EQ(found->second, score) << plugin << " on " << node;
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(ours.size())) << "upstream's log: " << log;
  std::vector<std::string> best = j["best"];
  EXPECT_THAT(best, ::testing::Contains(NodeOf("scored")));
}

}  // namespace
}  // namespace stowage::apptest::explain_test
