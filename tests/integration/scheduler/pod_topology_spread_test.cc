// PodTopologySpread on the real cluster: pods of a ReplicaSet behind a Service get the system
// default spreading (one per host, zones even, against the pull of emptier nodes) with no
// constraint in their spec, and a
// DoNotSchedule constraint rejects a pod with upstream's exact message until the deletion of a
// matching pod lets it in (the queueing hint, well before the five-minute flush).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/running_scheduler.h"

namespace stowage::pod_topology_spread_test {
namespace {

using json = nlohmann::json;
using testing::BuildClusterNode;
using testing::BuildPod;
using testing::RunningScheduler;
using testing::SharedCluster;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

client::RestClient& Admin() { return SharedCluster().Admin(); }

// Polls the apiserver every 200 ms rather than in a tight loop.
bool Poll(const std::function<bool()>& cond, int seconds) {
  return testing::Eventually(
      [&] {
        if (cond()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return false;
      },
      std::chrono::seconds(seconds));
}

void CreateNodeOnce(const testing::NodeWrapper& node) {
  Status s = testing::CreateNode(Admin(), node);
  ASSERT_TRUE(s.ok() || client::IsAlreadyExists(s)) << s;
}

// spread-z<1..3>-h<1..2>, labelled with their zone and hostname and spread-zones=yes; and
// spread-nozone, with a hostname but no zone.
void EnsureSpreadNodes() {
  for (int z = 1; z <= 3; ++z) {
    for (int h = 1; h <= 2; ++h) {
      const std::string name = "spread-z" + std::to_string(z) + "-h" + std::to_string(h);
      CreateNodeOnce(BuildClusterNode()
                         .Name(name)
                         .Label(kZone, "z" + std::to_string(z))
                         .Label(kHostname, name)
                         .Label("spread-zones", "yes"));
    }
  }
  CreateNodeOnce(BuildClusterNode().Name("spread-nozone").Label(kHostname, "spread-nozone"));
}

std::map<std::string, int> BoundPerNode(const std::string& ns, size_t& bound) {
  std::map<std::string, int> out;
  bound = 0;
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  if (!list.ok()) return out;
  for (const auto& p : list->items) {
    if (p->spec.node_name.empty()) continue;
    ++bound;
    ++out[p->spec.node_name];
  }
  return out;
}

TEST(PodTopologySpreadIntegration, ReplicaSetPodsBehindAServiceSpreadOverHostsAndZones) {
  const std::string ns = "spread-default";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  EnsureSpreadNodes();
  const std::string service = R"({"apiVersion": "v1", "kind": "Service",
      "metadata": {"name": "web"},
      "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})";
  ASSERT_TRUE(Admin().Post(client::CollectionPath<api::Service>(ns), service).ok());
  // No controller manager runs: the ReplicaSet only owns the pods the test creates.
  const std::string rs = R"({"apiVersion": "apps/v1", "kind": "ReplicaSet",
      "metadata": {"name": "web"},
      "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "c",
                                                     "image": "registry.k8s.io/pause:3.10"}]}}}})";
  auto created = Admin().Post(client::CollectionPath<api::ReplicaSet>(ns), rs);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string uid = json::parse(*created)["metadata"]["uid"];

  // Unrelated pods take a quarter of every node outside z1, so NodeResources scores alone would
  // stack the web pods in z1; only the default spreading puts them elsewhere.
  for (const char* node : {"spread-z2-h1", "spread-z2-h2", "spread-z3-h1", "spread-z3-h2"}) {
    ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod()
                                                .Namespace(ns)
                                                .Name(std::string("filler-") + node)
                                                .Label("app", "filler")
                                                .Req({{"cpu", "1"}, {"memory", "8Gi"}})
                                                .Node(node))
                    .ok());
  }
  RunningScheduler sched(testing::ProfilesConfig({"spread-default"}));
  for (const std::string& w : sched.warnings()) {
    EXPECT_EQ(w.find("PodTopologySpread"), std::string::npos) << w;
  }
  std::vector<testing::PodWrapper> pods;
  for (int i = 0; i < 6; ++i) {
    auto pod = BuildPod()
                   .Namespace(ns)
                   .Name("web-" + std::to_string(i))
                   .SchedulerName("spread-default")
                   .Label("app", "web")
                   .Req({{"cpu", "1m"}, {"memory", "1Mi"}})
                   .NodeSelector({{"spread-zones", "yes"}})
                   .OwnerReference("web", "ReplicaSet", "apps/v1");
    pod.pod().metadata.owner_references[0].uid = uid;
    pods.push_back(std::move(pod));
  }
  ASSERT_TRUE(testing::CreatePods(Admin(), pods).ok());

  size_t bound = 0;
  std::map<std::string, int> per_node;
  ASSERT_TRUE(Poll(
      [&] {
        per_node = BoundPerNode(ns, bound);
        return bound == 6 + 4;
      },
      60));
  // As upstream: the hostname default (maxSkew 3) still prefers the emptiest host, and the
  // zone default keeps the zones even.
  std::map<std::string, int> per_zone;
  for (auto& [node, count] : per_node) {
    if (node.find("-z1-") == std::string::npos) --count;  // the filler
    EXPECT_EQ(count, 1) << node;
    per_zone[node.substr(0, std::string("spread-z1").size())] += count;
  }
  EXPECT_EQ(per_node.size(), 6u);
  EXPECT_EQ(per_zone,
            (std::map<std::string, int>{{"spread-z1", 2}, {"spread-z2", 2}, {"spread-z3", 2}}));
}

TEST(PodTopologySpreadIntegration, DoNotScheduleRejectsWithTheExactMessageUntilAPodLeaves) {
  const std::string ns = "spread-hard";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  EnsureSpreadNodes();
  ASSERT_TRUE(
      testing::CreatePod(
          Admin(), BuildPod().Namespace(ns).Name("db-0").Label("app", "db").Node("spread-z1-h1"))
          .ok());
  RunningScheduler sched(testing::ProfilesConfig({"spread-hard"}));
  auto nodes = client::ListPage<api::Node>(Admin(), {});
  ASSERT_TRUE(nodes.ok());
  const size_t n = nodes->items.size();

  // Candidates: two hosts of zone z1 and the node without a zone. One domain is fewer than
  // minDomains 2, so the global minimum is 0 and z1 (one db pod) would reach skew 2.
  // One matchFields term per node: the API allows a single metadata.name value per term.
  api::NodeAffinity candidates;
  candidates.required.emplace();
  for (const char* node : {"spread-z1-h1", "spread-z1-h2", "spread-nozone"}) {
    candidates.required->terms.push_back({{}, {{"metadata.name", "In", {node}}}});
  }
  auto db1 = BuildPod()
                 .Namespace(ns)
                 .Name("db-1")
                 .SchedulerName("spread-hard")
                 .Label("app", "db")
                 .NodeAffinity(candidates)
                 .SpreadConstraint(1, kZone, "DoNotSchedule",
                                   testing::BuildLabelSelector().Label("app", "db").Obj(), 2);
  Status created = testing::CreatePod(Admin(), db1);
  ASSERT_TRUE(created.ok()) << created;
  api::Condition cond;
  ASSERT_TRUE(Poll(
      [&] {
        auto pod = client::GetObject<api::Pod>(Admin(), ns, "db-1");
        for (const auto& c : pod->status.conditions) {
          if (c.type == "PodScheduled") cond = c;
        }
        return !cond.type.empty();
      },
      30));
  std::vector<std::string> reasons = {
      "1 node(s) didn't match pod topology spread constraints (missing required label)",
      "2 node(s) didn't match pod topology spread constraints",
      std::to_string(n - 3) + " node(s) didn't satisfy plugin(s) [NodeAffinity]"};
  std::sort(reasons.begin(), reasons.end());  // upstream sorts the reasons as text
  std::string expected = "0/" + std::to_string(n) + " nodes are available: ";
  for (size_t i = 0; i < reasons.size(); ++i) expected += (i ? ", " : "") + reasons[i];
  EXPECT_EQ(cond.status, "False");
  EXPECT_EQ(cond.reason, "Unschedulable");
  // Preemption cannot help the nodes rejected as unresolvable; the two nodes of z1 hold no pod of
  // lower priority.
  std::vector<std::string> preemption = {
      std::to_string(n - 2) + " Preemption is not helpful for scheduling",
      "2 No preemption victims found for incoming pod"};
  std::sort(preemption.begin(), preemption.end());
  expected += ". preemption: 0/" + std::to_string(n) + " nodes are available: " + preemption[0] +
              ", " + preemption[1] + ".";
  EXPECT_EQ(cond.message, expected);

  // Deleting the matching pod empties z1: the AssignedPod/Delete hint requeues db-1 at once.
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "db-0").ok());
  EXPECT_TRUE(Poll(
      [&] {
        auto pod = client::GetObject<api::Pod>(Admin(), ns, "db-1");
        return pod.ok() &&
               (pod->spec.node_name == "spread-z1-h1" || pod->spec.node_name == "spread-z1-h2");
      },
      60));
}

}  // namespace
}  // namespace stowage::pod_topology_spread_test
