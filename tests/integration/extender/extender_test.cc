// Extenders against a real kube-apiserver + etcd and a real extender process
// (tests/cluster/cmd/testextender): each verb changing where pods go, an ignorable extender that
// is down being skipped, a failing one failing the pod with upstream's message, managedResources
// choosing which pods are sent, the timeout, and HTTPS with a client certificate. Each test has
// its own nodes (labelled with the test's name, which its pods select) and scheduler name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/process.h"
#include "tests/testing/running_scheduler.h"
#include "tests/testing/test_certs.h"

namespace stowage::extender_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using testing::RunningScheduler;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

// Polls the apiserver every 200 ms.
bool Eventually(const std::function<bool()>& cond, int seconds) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(200));
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path) << content;
  return path;
}

// A running testextender on a free port; its calls are recorded in record().
class Extender {
 public:
  explicit Extender(const std::string& name, std::vector<std::string> flags = {}) {
    port_ = testing::FreePort();
    record_ = "/tmp/stowage-ext-" + name + "-" + std::to_string(port_) + ".jsonl";
    std::remove(record_.c_str());
    std::vector<std::string> argv = {testing::TestCluster::BinDir() + "/testextender",
                                     "--listen=127.0.0.1:" + std::to_string(port_),
                                     "--record=" + record_,
                                     "--kubeconfig=" + SharedCluster().kubeconfig()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    Status s = proc_.Start(argv, record_ + ".log");
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(proc_.WaitForLog("READY", std::chrono::seconds(30))) << proc_.Log();
  }
  int port() const { return port_; }
  std::string url(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_);
  }
  // The calls recorded so far, one JSON line each.
  std::string record() const { return ReadAll(record_); }

 private:
  int port_ = 0;
  std::string record_;
  testing::Process proc_;
};

// A scheduler named name with the extenders given (YAML list items, indented by two).
std::string Config(const std::string& name, const std::string& extenders) {
  return testing::ProfilesConfig({name}) + "extenders:\n" + extenders;
}

// Nodes <test>-0 .. <test>-(n-1), labelled test=<test>, and the labels given per node.
void MakeNodes(const std::string& test, int n,
               const std::function<void(int, testing::NodeWrapper&)>& more = {}) {
  for (int i = 0; i < n; ++i) {
    testing::NodeWrapper node = BuildClusterNode().Name(test + "-" + std::to_string(i));
    node.Label("test", test);
    if (more) more(i, node);
    ASSERT_TRUE(testing::CreateNode(Admin(), node).ok());
  }
}

testing::PodWrapper TestPod(const std::string& test, const std::string& name,
                            const std::string& cpu = "100m") {
  return BuildPod()
      .Namespace(test)
      .Name(name)
      .SchedulerName(test)
      .NodeSelector({{"test", test}})
      .Req({{"cpu", cpu}});
}

std::string NodeOf(const std::string& ns, const std::string& name, int seconds = 30) {
  std::string node;
  Eventually(
      [&] {
        auto p = client::GetObject<api::Pod>(Admin(), ns, name);
        if (p.ok()) node = p->spec.node_name;
        return !node.empty();
      },
      seconds);
  return node;
}

// The PodScheduled=False message of the pod, once it has one.
std::string UnschedulableMessage(const std::string& ns, const std::string& name) {
  std::string msg;
  Eventually(
      [&] {
        auto p = client::GetObject<api::Pod>(Admin(), ns, name);
        if (!p.ok()) return false;
        for (const auto& c : p->status.conditions) {
          if (c.type == "PodScheduled" && c.status == "False") msg = c.message;
        }
        return !msg.empty();
      },
      30);
  return msg;
}

void SetUpTest(const std::string& test, int nodes,
               const std::function<void(int, testing::NodeWrapper&)>& more = {}) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), test).ok());
  MakeNodes(test, nodes, more);
}

TEST(ExtenderIntegration, FilterExcludesTheNodesTheExtenderRefuses) {
  const std::string t = "ext-filter";
  SetUpTest(t, 3, [](int i, testing::NodeWrapper& n) {
    if (i != 2) n.Label("refuse", "yes");
  });
  Extender ext(t, {"--refuse-label=refuse=yes"});
  RunningScheduler sched(
      Config(t, "- urlPrefix: " + ext.url() + "\n  filterVerb: filter\n  weight: 1\n"));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p" + std::to_string(i))).ok());
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(NodeOf(t, "p" + std::to_string(i)), t + "-2");
  EXPECT_THAT(ext.record(), HasSubstr("\"verb\":\"filter\""));
}

TEST(ExtenderIntegration, FilterRejectionsAppearInThePodsMessage) {
  const std::string t = "ext-filter-all";
  SetUpTest(t, 2,
            [](int i, testing::NodeWrapper& n) { n.Label(i == 0 ? "refuse" : "gone", "yes"); });
  Extender ext(t, {"--refuse-label=refuse=yes", "--unresolvable-label=gone=yes"});
  RunningScheduler sched(Config(t, "- urlPrefix: " + ext.url() + "\n  filterVerb: filter\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  std::string msg = UnschedulableMessage(t, "p");
  EXPECT_THAT(msg, HasSubstr("1 node(s) refused by the test extender,"));
  EXPECT_THAT(msg, HasSubstr("1 node(s) refused by the test extender for good"));
}

TEST(ExtenderIntegration, PrioritizeSteersPodsWhenThePluginsScoreNothing) {
  const std::string t = "ext-prioritize";
  SetUpTest(t, 3, [](int i, testing::NodeWrapper& n) {
    if (i == 1) n.Label("preferred", "yes");
  });
  Extender ext(t, {"--prefer-label=preferred=yes"});
  // Every score plugin off, so only the extender's scores differ between the nodes.
  RunningScheduler sched(testing::ProfilesConfig({t}) +
                         "  plugins:\n    score:\n      disabled:\n      - name: '*'\n"
                         "extenders:\n- urlPrefix: " +
                         ext.url() + "\n  prioritizeVerb: prioritize\n  weight: 1\n");
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p" + std::to_string(i))).ok());
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ(NodeOf(t, "p" + std::to_string(i)), t + "-1");
}

TEST(ExtenderIntegration, BindGoesThroughTheExtender) {
  const std::string t = "ext-bind";
  SetUpTest(t, 2);
  Extender ext(t);
  RunningScheduler sched(Config(t, "- urlPrefix: " + ext.url() + "\n  bindVerb: bind\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  std::string node = NodeOf(t, "p");
  EXPECT_THAT(node, ::testing::StartsWith(t + "-"));
  EXPECT_THAT(ext.record(), HasSubstr("{\"nodes\":[\"" + node + "\"],\"pod\":\"" + t +
                                      "/p\",\"verb\":\"bind\"}"));
}

TEST(ExtenderIntegration, AnIgnorableExtenderThatIsDownIsSkipped) {
  const std::string t = "ext-ignorable";
  SetUpTest(t, 1);
  const int port = testing::FreePort();  // nothing listens there
  RunningScheduler sched(Config(t, "- urlPrefix: http://127.0.0.1:" + std::to_string(port) +
                                       "\n  filterVerb: filter\n  ignorable: true\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  EXPECT_EQ(NodeOf(t, "p"), t + "-0");
}

TEST(ExtenderIntegration, AFailingExtenderFailsThePodWithItsError) {
  const std::string t = "ext-failing";
  SetUpTest(t, 1);
  Extender ext(t, {"--fail"});
  RunningScheduler sched(Config(t, "- urlPrefix: " + ext.url() + "\n  filterVerb: filter\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  EXPECT_EQ(UnschedulableMessage(t, "p"),
            "failed filter with extender at URL " + ext.url() + "/filter, code 500");
}

TEST(ExtenderIntegration, OnlyPodsUsingAManagedResourceAreSent) {
  const std::string t = "ext-managed";
  SetUpTest(t, 2, [](int, testing::NodeWrapper& n) { n.Capacity("example.com/gpu", "4"); });
  Extender ext(t);
  RunningScheduler sched(Config(t, "- urlPrefix: " + ext.url() +
                                       "\n  filterVerb: filter\n  managedResources:\n"
                                       "  - name: example.com/gpu\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "plain")).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "gpu").Res({{"example.com/gpu", "1"}})).ok());
  EXPECT_FALSE(NodeOf(t, "plain").empty());
  EXPECT_FALSE(NodeOf(t, "gpu").empty());
  std::string calls = ext.record();
  EXPECT_THAT(calls, HasSubstr("\"pod\":\"" + t + "/gpu\""));
  EXPECT_THAT(calls, ::testing::Not(HasSubstr("\"pod\":\"" + t + "/plain\"")));
}

TEST(ExtenderIntegration, TheTimeoutIsHonoured) {
  const std::string t = "ext-timeout";
  SetUpTest(t, 1);
  Extender slow(t, {"--slow=3s"});
  RunningScheduler sched(
      Config(t, "- urlPrefix: " + slow.url() + "\n  filterVerb: filter\n  httpTimeout: 500ms\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  std::string msg = UnschedulableMessage(t, "p");
  EXPECT_THAT(msg, HasSubstr(slow.url() + "/filter"));
  EXPECT_THAT(msg, HasSubstr("timed out"));
}

TEST(ExtenderIntegration, HttpsWithAClientCertificate) {
  const std::string t = "ext-https";
  SetUpTest(t, 2, [](int i, testing::NodeWrapper& n) {
    if (i == 0) n.Label("refuse", "yes");
  });
  const std::string dir = SharedCluster().dir();
  testing::TestCert ca = testing::MakeCA("extender-ca");
  testing::CertSpec server_spec{
      .common_name = "extender.test", .usage = testing::Usage::kServerAuth, .serial = 2};
  testing::TestCert server = testing::MakeCert(server_spec, &ca);
  testing::CertSpec client_spec{.common_name = "stowage", .serial = 3};
  testing::TestCert client = testing::MakeCert(client_spec, &ca);
  const std::string ca_file = WriteFile(dir + "/ext-ca.crt", ca.Pem());
  Extender ext(t, {"--refuse-label=refuse=yes",
                   "--tls-cert=" + WriteFile(dir + "/ext-server.crt", server.Pem()),
                   "--tls-key=" + WriteFile(dir + "/ext-server.key", server.KeyPem()),
                   "--client-ca=" + ca_file});
  const std::string tls = "  tlsConfig:\n    serverName: extender.test\n    caFile: " + ca_file +
                          "\n    certFile: " + WriteFile(dir + "/ext-client.crt", client.Pem()) +
                          "\n    keyFile: " + WriteFile(dir + "/ext-client.key", client.KeyPem()) +
                          "\n";
  RunningScheduler sched(Config(t, "- urlPrefix: " + ext.url("https") +
                                       "\n  filterVerb: filter\n  enableHTTPS: true\n" + tls));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  EXPECT_EQ(NodeOf(t, "p"), t + "-1");
  EXPECT_THAT(ext.record(), HasSubstr("\"verb\":\"filter\""));
}

TEST(ExtenderIntegration, AServerCertificateFromAnotherCaIsRefused) {
  const std::string t = "ext-untrusted";
  SetUpTest(t, 1);
  const std::string dir = SharedCluster().dir();
  testing::TestCert ca = testing::MakeCA("extender-ca");
  testing::TestCert other = testing::MakeCA("other-ca", 7);
  testing::CertSpec server_spec{
      .common_name = "extender.test", .usage = testing::Usage::kServerAuth, .serial = 8};
  testing::TestCert server = testing::MakeCert(server_spec, &other);
  Extender ext(t, {"--tls-cert=" + WriteFile(dir + "/ext-other.crt", server.Pem()),
                   "--tls-key=" + WriteFile(dir + "/ext-other.key", server.KeyPem())});
  RunningScheduler sched(
      Config(t, "- urlPrefix: " + ext.url("https") +
                    "\n  filterVerb: filter\n  enableHTTPS: true\n  tlsConfig:\n    serverName: "
                    "extender.test\n    caFile: " +
                    WriteFile(dir + "/ext-ca2.crt", ca.Pem()) + "\n"));
  ASSERT_TRUE(testing::CreatePod(Admin(), TestPod(t, "p")).ok());
  EXPECT_THAT(UnschedulableMessage(t, "p"), HasSubstr("server certificate not trusted"));
  EXPECT_EQ(ext.record().find("\"verb\""), std::string::npos) << "no call got through";
}

TEST(ExtenderIntegration, PreemptLimitsTheNodesWhereVictimsAreChosen) {
  const std::string t = "ext-preempt";
  for (const auto& [name, value] : std::vector<std::pair<std::string, int>>{
           {"ext-low", 10}, {"ext-mid", 100}, {"ext-high", 1000}}) {
    auto pc = Admin().Post(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        R"({"metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) + "}");
    ASSERT_TRUE(pc.ok() || client::IsAlreadyExists(pc.status())) << pc.status();
  }
  SetUpTest(t, 2, [](int, testing::NodeWrapper& n) { n.Capacity("cpu", "1"); });
  // Left alone, preemption would evict the lower-priority pod on node 0.
  ASSERT_TRUE(testing::CreatePod(
                  Admin(), TestPod(t, "victim-0", "1").Node(t + "-0").PriorityClassName("ext-low"))
                  .ok());
  ASSERT_TRUE(testing::CreatePod(
                  Admin(), TestPod(t, "victim-1", "1").Node(t + "-1").PriorityClassName("ext-mid"))
                  .ok());
  Extender ext(t, {"--preempt-node=" + t + "-1"});
  RunningScheduler sched(Config(
      t, "- urlPrefix: " + ext.url() + "\n  preemptVerb: preempt\n  nodeCacheCapable: true\n"));
  ASSERT_TRUE(
      testing::CreatePod(Admin(), TestPod(t, "preemptor", "1").PriorityClassName("ext-high")).ok());
  std::string nominated;
  ASSERT_TRUE(Eventually(
      [&] {
        auto p = client::GetObject<api::Pod>(Admin(), t, "preemptor");
        if (p.ok()) nominated = p->status.nominated_node_name;
        return !nominated.empty();
      },
      30))
      << UnschedulableMessage(t, "preemptor");
  EXPECT_EQ(nominated, t + "-1");
  auto v0 = client::GetObject<api::Pod>(Admin(), t, "victim-0");
  ASSERT_TRUE(v0.ok());
  EXPECT_FALSE(v0->metadata.deletion_timestamp.has_value());
  auto v1 = client::GetObject<api::Pod>(Admin(), t, "victim-1");
  EXPECT_TRUE(!v1.ok() || v1->metadata.deletion_timestamp.has_value());
  EXPECT_THAT(ext.record(), HasSubstr("\"verb\":\"preempt\""));
}

// The objects an extender is sent are whole, as the apiserver serves them and upstream sends
// them: the pod's env, mounts, volume sources, security context and last-applied annotation;
// the node's addresses, node info and daemon endpoints. Only kind, apiVersion and managedFields
// go, as in upstream's informers (tests/unit/extender/whole_object_test.cc compares with
// upstream's own marshalling, path by path).
TEST(ExtenderIntegration, FilterIsSentWholeObjects) {
  using json = nlohmann::json;
  const std::string t = "ext-whole";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), t).ok());
  json node = json::parse(BuildClusterNode().Name(t + "-0").Json());
  node["metadata"]["labels"]["test"] = t;
  node["status"]["addresses"] = {{{"type", "InternalIP"}, {"address", "10.0.0.7"}},
                                 {{"type", "Hostname"}, {"address", t + "-0"}}};
  node["status"]["nodeInfo"] = {{"kubeletVersion", "v1.37.2"},
                                {"osImage", "Debian 12"},
                                {"architecture", "amd64"},
                                {"operatingSystem", "linux"}};
  node["status"]["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  auto created_node = Admin().Post("/api/v1/nodes", node.dump());
  ASSERT_TRUE(created_node.ok()) << created_node.status();

  json pod = json::parse(TestPod(t, "whole").Json());
  pod["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}";
  json& c = pod["spec"]["containers"][0];
  c["env"] = {{{"name", "MODE"}, {"value", "fast"}}};
  c["volumeMounts"] = {{{"name", "config"}, {"mountPath", "/etc/app"}}};
  c["securityContext"] = {{"runAsNonRoot", true}, {"readOnlyRootFilesystem", true}};
  pod["spec"]["volumes"] = {{{"name", "config"}, {"configMap", {{"name", "app-config"}}}}};
  pod["spec"]["dnsPolicy"] = "ClusterFirst";
  auto created_pod = Admin().Post("/api/v1/namespaces/" + t + "/pods", pod.dump());
  ASSERT_TRUE(created_pod.ok()) << created_pod.status();

  const std::string bodies = "/tmp/stowage-ext-whole-" + std::to_string(testing::FreePort());
  std::filesystem::create_directories(bodies);
  Extender ext(t, {"--record-bodies=" + bodies});
  RunningScheduler sched(
      Config(t, "- urlPrefix: " + ext.url() + "\n  filterVerb: filter\n  weight: 1\n"));
  ASSERT_EQ(NodeOf(t, "whole"), t + "-0");
  json sent = json::parse(ReadAll(bodies + "/filter-1.json"));

  // The apiserver's answers to the creations, as an informer holds them.
  auto as_informer_holds = [](const std::string& body) {
    json j = json::parse(body);
    j.erase("kind");
    j.erase("apiVersion");
    j["metadata"].erase("managedFields");
    return j;
  };
  EXPECT_EQ(sent["Pod"], as_informer_holds(*created_pod));
  ASSERT_EQ(sent["Nodes"]["items"].size(), 1u);
  EXPECT_EQ(sent["Nodes"]["items"][0], as_informer_holds(*created_node));
  EXPECT_EQ(sent["Pod"]["spec"]["containers"][0]["env"][0]["value"], "fast");
  EXPECT_EQ(sent["Nodes"]["items"][0]["status"]["addresses"][0]["address"], "10.0.0.7");
  EXPECT_TRUE(sent["NodeNames"].is_null());
  std::filesystem::remove_all(bodies);
}

}  // namespace
}  // namespace stowage::extender_test
