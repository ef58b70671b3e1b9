// stowage's scheduler against a real kube-apiserver + etcd: a mixed workload on 100 nodes with
// every constraint checked, the exact condition of a pod that fits nowhere, the event-driven
// requeue when a fitting node appears, two profiles in one process, and stowage beside upstream
// kube-scheduler.
#include "pkg/scheduler/scheduler.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/profile.h"
#include "stowage/framework/types.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

extern char** environ;

namespace stowage::scheduler_test {
namespace {

using testing::RunningScheduler;

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

std::vector<api::PodPtr> Pods(const std::string& ns) {
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  EXPECT_TRUE(list.ok()) << list.status();
  return list.ok() ? std::move(list->items) : std::vector<api::PodPtr>{};
}

// Polls cond every 200 ms (listing thousands of pods faster would load the apiserver).
bool Eventually(const std::function<bool()>& cond, int seconds) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(200));
}

size_t CountBound(const std::string& ns) {
  size_t n = 0;
  for (const auto& p : Pods(ns)) n += !p->spec.node_name.empty();
  return n;
}

TEST(SchedulerIntegration, MixedWorkloadOnAHundredNodesHonoursEveryConstraint) {
  const std::string ns = "mixed";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  // 100 nodes: 4 CPU / 32Gi / 110 pods; a quarter tainted, zones a-d, a "disk" label on half.
  for (int i = 0; i < 100; ++i) {
    auto n = BuildClusterNode()
                 .Name("mixed-" + std::to_string(i))
                 .Label("zone", std::string(1, static_cast<char>('a' + i % 4)))
                 .Label("disk", i % 2 ? "ssd" : "hdd");
    if (i % 4 == 3) n.Taint("dedicated", "gpu", "NoSchedule");
    Status s = testing::CreateNode(Admin(), n);
    ASSERT_TRUE(s.ok()) << s;
  }
  std::vector<testing::PodWrapper> pods;
  // About 250 of the 400 cores and a third of the memory: everything fits, so every pod binds.
  const char* cpu[] = {"100m", "200m", "50m", "150m"};
  const char* mem[] = {"200Mi", "500Mi", "1Gi", "100Mi"};
  for (int i = 0; i < 2000; ++i) {
    auto p = BuildPod()
                 .Namespace(ns)
                 .Name("p-" + std::to_string(i))
                 .SchedulerName("stowage")
                 .Req({{"cpu", cpu[i % 4]}})
                 .Req({{"memory", mem[i % 4]}});
    if (i % 10 == 1) p.NodeAffinityIn("disk", {"ssd"});
    if (i % 10 == 2)
      p.Toleration("dedicated", "Equal", "gpu", "NoSchedule").NodeAffinityIn("zone", {"d"});
    if (i % 50 == 3) p.HostPort(8080);
    pods.push_back(p);
  }
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  ASSERT_TRUE(testing::CreatePods(Admin(), pods, 8).ok());
  ASSERT_TRUE(Eventually([&] { return CountBound(ns) == 2000; }, 300))
      << CountBound(ns) << " of 2000 pods bound";

  std::map<std::string, api::NodePtr> nodes;
  auto node_list = client::ListPage<api::Node>(Admin(), {});
  for (const auto& n : node_list->items) nodes[n->metadata.name] = n;
  std::map<std::string, framework::Resource> used;
  std::map<std::string, std::set<int32_t>> ports;
  for (const auto& p : Pods(ns)) {
    const api::Node& node = *nodes.at(p->spec.node_name);
    framework::Resource& u = used[node.metadata.name];
    u.Add(framework::ComputePodRequests(*p));
    u.allowed_pod_number++;
    for (const auto& hp : framework::PodHostPorts(*p)) {
      EXPECT_TRUE(ports[node.metadata.name].insert(hp.port).second)
          << "host port " << hp.port << " used twice on " << node.metadata.name;
    }
    bool tolerates = !p->spec.tolerations.empty();
    EXPECT_TRUE(node.spec.taints.empty() || tolerates)
        << p->metadata.name << " on tainted " << node.metadata.name;
    if (p->spec.affinity) {
      const auto& term = p->spec.affinity->node_affinity->required->terms[0].match_expressions[0];
      EXPECT_EQ(*node.metadata.labels.Get(term.key), term.values[0])
          << p->metadata.name << " violates its node affinity on " << node.metadata.name;
    }
  }
  for (const auto& [name, u] : used) {
    framework::Resource alloc = framework::Resource::FromList(nodes.at(name)->status.allocatable);
    EXPECT_LE(u.milli_cpu, alloc.milli_cpu) << name;
    EXPECT_LE(u.memory, alloc.memory) << name;
    EXPECT_LE(u.allowed_pod_number, alloc.allowed_pod_number) << name;
  }
}

TEST(SchedulerIntegration, PodThatFitsNowhereGetsTheExactConditionThenANewNodeGetsItScheduled) {
  const std::string ns = "nofit";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  auto nodes = client::ListPage<api::Node>(Admin(), {});
  ASSERT_TRUE(nodes.ok());
  size_t n = nodes->items.size();
  ASSERT_TRUE(testing::CreatePod(Admin(),
                                 BuildPod().Namespace(ns).Name("huge").SchedulerName("stowage").Req(
                                     {{"cpu", "64"}}))
                  .ok());
  api::Condition cond;
  ASSERT_TRUE(Eventually(
      [&] {
        auto pod = client::GetObject<api::Pod>(Admin(), ns, "huge");
        for (const auto& c : pod->status.conditions) {
          if (c.type == "PodScheduled") cond = c;
        }
        return !cond.type.empty();
      },
      30));
  EXPECT_EQ(cond.status, "False");
  EXPECT_EQ(cond.reason, "Unschedulable");
  // Untainted nodes lack CPU; tainted ones fail TaintToleration first (filters stop at the
  // first failure), exactly as upstream counts them.
  size_t tainted = 0;
  for (const auto& node : nodes->items) tainted += !node->spec.taints.empty();
  // Upstream sorts the "<count> <reason>" strings as text.
  std::vector<std::string> reasons;
  if (n - tainted > 0) reasons.push_back(std::to_string(n - tainted) + " Insufficient cpu");
  if (tainted > 0) reasons.push_back(std::to_string(tainted) + " node(s) had untolerated taint(s)");
  std::sort(reasons.begin(), reasons.end());
  std::string expected = "0/" + std::to_string(n) + " nodes are available: ";
  for (size_t i = 0; i < reasons.size(); ++i) expected += (i ? ", " : "") + reasons[i];
  expected += ".";
  // The request exceeds every node's allocatable, so no eviction could help anywhere.
  expected += " preemption: 0/" + std::to_string(n) + " nodes are available: " + std::to_string(n) +
              " Preemption is not helpful for scheduling.";
  EXPECT_EQ(cond.message, expected);

  // The FailedScheduling event carries the same message.
  ASSERT_TRUE(Eventually(
      [&] {
        auto body = Admin().Get("/apis/events.k8s.io/v1/namespaces/" + ns + "/events");
        return body.ok() && body->find("FailedScheduling") != std::string::npos &&
               body->find(expected) != std::string::npos;
      },
      30));

  // A node with room arrives: the NodeAdd event moves the pod (the leftover flush would take
  // five minutes, so scheduling within the wait proves the event-driven path).
  ASSERT_TRUE(
      testing::CreateNode(Admin(), BuildClusterNode().Name("big-node").Capacity("cpu", "128"))
          .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        auto pod = client::GetObject<api::Pod>(Admin(), ns, "huge");
        return pod.ok() && pod->spec.node_name == "big-node";
      },
      60));
}

TEST(SchedulerIntegration, LowerPriorityPodsLeaveRoomForANominatedPod) {
  const std::string ns = "nominated";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  auto pc = Admin().Post("/apis/scheduling.k8s.io/v1/priorityclasses",
                         R"({"metadata":{"name":"high"},"value":1000})");
  ASSERT_TRUE(pc.ok() || client::IsAlreadyExists(pc.status())) << pc.status();
  // Node "small" has 1 CPU; the high-priority pod is nominated to it (as preemption would do)
  // but held by a scheduling gate, so its CPU must stay free. (A pod that is tried and fails
  // has its nomination cleared, as upstream's failure handling does; a gated pod is never
  // tried, and upstream records its nomination when it is added.)
  ASSERT_TRUE(
      testing::CreateNode(
          Admin(), BuildClusterNode().Name("small").Capacity("cpu", "1").Label("only", "small"))
          .ok());
  auto high = BuildPod().Namespace(ns).Name("high").SchedulerName("nominating").Req({{"cpu", "1"}});
  std::string body = high.Json();
  body.replace(body.find("\"spec\":{"), 8,
               R"("spec":{"priorityClassName":"high",)"
               R"("schedulingGates":[{"name":"example.com/hold"}],)");
  ASSERT_TRUE(Admin().Post("/api/v1/namespaces/" + ns + "/pods", body).ok());
  ASSERT_TRUE(Admin()
                  .Patch("/api/v1/namespaces/" + ns + "/pods/high/status",
                         R"({"status":{"nominatedNodeName":"small"}})", client::kMergePatch)
                  .ok());
  RunningScheduler sched(testing::ProfilesConfig({"nominating"}));
  auto low =
      BuildPod().Namespace(ns).Name("low").SchedulerName("nominating").Req({{"cpu", "500m"}});
  std::string low_body = low.Json();
  low_body.replace(low_body.find("\"spec\":{"), 8, R"("spec":{"nodeSelector":{"only":"small"},)");
  ASSERT_TRUE(Admin().Post("/api/v1/namespaces/" + ns + "/pods", low_body).ok());
  api::Condition cond;
  ASSERT_TRUE(Eventually(
      [&] {
        auto pod = client::GetObject<api::Pod>(Admin(), ns, "low");
        for (const auto& c : pod->status.conditions) {
          if (c.type == "PodScheduled") cond = c;
        }
        return !cond.type.empty() || !pod->spec.node_name.empty();
      },
      30));
  EXPECT_EQ(client::GetObject<api::Pod>(Admin(), ns, "low")->spec.node_name, "")
      << "the low-priority pod took the room reserved for the nominated pod";
  EXPECT_THAT(cond.message, HasSubstr("1 Insufficient cpu"));
}

TEST(SchedulerIntegration, TwoProfilesInOneProcessEachTakeTheirOwnPods) {
  const std::string ns = "profiles";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name("profiles-node")).ok());
  RunningScheduler sched(testing::ProfilesConfig({"stowage-a", "stowage-b"}));
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("a").SchedulerName("stowage-a"))
          .ok());
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("b").SchedulerName("stowage-b"))
          .ok());
  ASSERT_TRUE(testing::CreatePod(
                  Admin(), BuildPod().Namespace(ns).Name("other").SchedulerName("someone-else"))
                  .ok());
  EXPECT_TRUE(Eventually([&] { return CountBound(ns) == 2; }, 60));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto other = client::GetObject<api::Pod>(Admin(), ns, "other");
  EXPECT_EQ(other->spec.node_name, "") << "a pod of another scheduler is left alone";
}

TEST(SchedulerIntegration, RunsBesideUpstreamKubeSchedulerEachTakingOnlyItsOwnPods) {
  const std::string ns = "beside";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  ASSERT_TRUE(testing::CreateNode(Admin(), BuildClusterNode().Name("beside-node")).ok());
  RunningScheduler sched(testing::ProfilesConfig({"stowage"}));
  // Before upstream runs, default-scheduler pods stay pending: stowage does not take them.
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("up-0")).ok());
  ASSERT_TRUE(
      testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("ours-0").SchedulerName("stowage"))
          .ok());
  ASSERT_TRUE(Eventually(
      [&] { return client::GetObject<api::Pod>(Admin(), ns, "ours-0")->spec.node_name != ""; },
      60));
  EXPECT_EQ(client::GetObject<api::Pod>(Admin(), ns, "up-0")->spec.node_name, "");

  std::string bin = testing::TestCluster::BinDir() + "/kube-scheduler";
  std::string kc = "--kubeconfig=" + SharedCluster().kubeconfig();
  std::vector<std::string> args = {bin, kc, "--leader-elect=false", "--secure-port=0", "-v=0"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string log = SharedCluster().dir() + "/kube-scheduler.log";
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  for (int i = 1; i <= 20; ++i) {
    ASSERT_TRUE(
        testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("up-" + std::to_string(i))).ok());
    ASSERT_TRUE(
        testing::CreatePod(
            Admin(),
            BuildPod().Namespace(ns).Name("ours-" + std::to_string(i)).SchedulerName("stowage"))
            .ok());
  }
  bool all = Eventually([&] { return CountBound(ns) == 42; }, 120);
  // Who bound what: each pod's Scheduled event names the scheduler that bound it. Upstream
  // sends its events asynchronously, so it keeps running until they are all in.
  std::map<std::string, std::string> scheduled_by;
  bool events =
      all && Eventually(
                 [&] {
                   auto body = Admin().Get("/apis/events.k8s.io/v1/namespaces/" + ns + "/events");
                   if (!body.ok()) return false;
                   const nlohmann::json list =
                       nlohmann::json::parse(*body);  // must outlive the loop
                   for (const auto& e : list["items"]) {
                     if (e.value("reason", "") != "Scheduled") continue;
                     scheduled_by[e["regarding"]["name"]] = e.value("reportingController", "");
                   }
                   return scheduled_by.size() == 42;
                 },
                 60);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(all) << CountBound(ns) << " of 42 bound; upstream log: " << log;
  ASSERT_TRUE(events) << scheduled_by.size() << " Scheduled events";
  for (const auto& p : Pods(ns)) {
    EXPECT_EQ(scheduled_by[p->metadata.name], p->spec.scheduler_name) << p->metadata.name;
  }
}

}  // namespace
}  // namespace stowage::scheduler_test
