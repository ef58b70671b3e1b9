// The stowage binary across a forced 410 Gone under churn (issue 27): stopped (SIGSTOP) while
// pods are created and deleted and a node is added, with the apiserver restarted before and after
// the changes, so that every watch resumes from a version the new watch cache does not have.
// Once resumed, stowage relists, binds every pod of the gap once and none twice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"
#include "tests/testing/process.h"

namespace stowage::relist_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::SharedCluster;

constexpr char kScheduler[] = "relist-scheduler";  // other tests' pods are not its
constexpr char kNs[] = "relist-churn";
constexpr char kLateLabel[] = "relist.stowage.test/late";

client::RestClient& Admin() { return SharedCluster().Admin(); }

// Polls cond every 500 ms (it asks the apiserver or reads a log) for up to `seconds`.
bool Eventually(const std::function<bool()>& cond, int seconds) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(500));
}

std::string WriteConfig() {
  const std::string path = SharedCluster().dir() + "/relist-config.yaml";
  std::ofstream(path) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                         "kind: KubeSchedulerConfiguration\n"
                         "clientConnection:\n"
                         "  kubeconfig: "
                      << SharedCluster().kubeconfig()
                      << "\n"
                         "leaderElection:\n"
                         "  leaderElect: false\n"
                         "profiles:\n"
                         "- schedulerName: "
                      << kScheduler << "\n";
  return path;
}

// name -> node of the pods in kNs ("" while pending).
std::map<std::string, std::string> Pods() {
  std::map<std::string, std::string> out;
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = kNs});
  if (!list.ok()) return out;  // the apiserver may be restarting
  for (const auto& p : list->items) out[p->metadata.name] = p->spec.node_name;
  return out;
}

// The UIDs of the pods in kNs.
std::vector<std::string> Uids() {
  std::vector<std::string> out;
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = kNs});
  EXPECT_TRUE(list.ok()) << list.status();
  if (list.ok()) {
    for (const auto& p : list->items) out.push_back(p->metadata.uid);
  }
  return out;
}

std::vector<std::string> Unbound(const std::map<std::string, std::string>& pods) {
  std::vector<std::string> out;
  for (const auto& [name, node] : pods) {
    if (node.empty()) out.push_back(name);
  }
  return out;
}

std::vector<std::string> LogLines(const testing::Process& p) {
  std::vector<std::string> out;
  std::istringstream in(p.Log());
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// How many times the log says each pod of kNs was bound.
std::map<std::string, int> Bindings(const testing::Process& p) {
  const std::string prefix = std::string("Successfully bound pod to node pod=\"") + kNs + "/";
  std::map<std::string, int> out;
  for (const std::string& line : LogLines(p)) {
    size_t at = line.find(prefix);
    if (at == std::string::npos) continue;
    at += prefix.size();
    out[line.substr(at, line.find('"', at) - at)]++;
  }
  return out;
}

// The log lines that contain every one of words.
std::vector<std::string> Lines(const testing::Process& p, const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& line : LogLines(p)) {
    bool all = true;
    for (const auto& w : words) all = all && line.find(w) != std::string::npos;
    if (all) out.push_back(line);
  }
  return out;
}

TEST(RelistIntegration, ARelistAfterGoneUnderChurnBindsEveryPodOnceAndNoneTwice) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), kNs).ok());
  for (int i = 0; i < 3; ++i) {
    Status s = testing::CreateNode(Admin(), BuildClusterNode().Name("relist-" + std::to_string(i)));
    ASSERT_TRUE(s.ok() || client::IsAlreadyExists(s)) << s;
  }
  testing::Process stowage;
  ASSERT_TRUE(stowage
                  .Start({STOWAGE_BINARY, "--kubeconfig=" + SharedCluster().kubeconfig(),
                          "--config=" + WriteConfig(),
                          "--secure-port=" + std::to_string(testing::FreePort()),
                          "--bind-address=127.0.0.1", "-v=2"},
                         SharedCluster().dir() + "/relist-stowage.log")
                  .ok());
  auto pod = [](const std::string& name) {
    return BuildPod().Namespace(kNs).Name(name).SchedulerName(kScheduler);
  };
  // Bound pods, and pods pending until a node with the late label comes (it comes in the gap).
  std::vector<testing::PodWrapper> before;
  for (int i = 0; i < 20; ++i) before.push_back(pod("bound-" + std::to_string(i)));
  for (int i = 0; i < 10; ++i) {
    before.push_back(pod("waiting-" + std::to_string(i)).NodeSelector({{kLateLabel, "yes"}}));
  }
  ASSERT_TRUE(testing::CreatePods(Admin(), before).ok());
  ASSERT_TRUE(Eventually([] { return Unbound(Pods()).size() == 10; }, 180))
      << ::testing::PrintToString(Unbound(Pods())) << "\n"
      << stowage.Log();
  // Both kinds of pod as the scheduler holds them: bound in its cache, waiting in its queue.
  ASSERT_TRUE(Eventually([&] { return Bindings(stowage).size() == 20; }, 60));
  for (int i = 0; i < 10; ++i) {
    const std::string key = std::string(kNs) + "/waiting-" + std::to_string(i) + ":";
    ASSERT_TRUE(
        Eventually([&] { return !Lines(stowage, {"unable to schedule pod " + key}).empty(); }, 60));
  }
  ASSERT_THAT(Lines(stowage, {"listing again"}), IsEmpty());

  // The gap, unseen by the stopped scheduler: 60 new pods (10 for the late node), 5 more created
  // and deleted, 5 bound and 5 waiting pods deleted, and the late node added. Made through an
  // apiserver the scheduler never watched: one it watched would write the changes into its
  // sockets, to be read (not relisted) on resuming.
  stowage.Signal(SIGSTOP);
  SharedCluster().Stop();
  Status restarted = SharedCluster().Start();
  std::vector<testing::PodWrapper> gap;
  for (int i = 0; i < 50; ++i) gap.push_back(pod("gap-" + std::to_string(i)));
  for (int i = 0; i < 10; ++i) {
    gap.push_back(pod("gap-late-" + std::to_string(i)).NodeSelector({{kLateLabel, "yes"}}));
  }
  for (int i = 0; i < 5; ++i) gap.push_back(pod("gone-" + std::to_string(i)));
  Status created = testing::CreatePods(Admin(), gap);
  std::set<std::string> deleted;
  for (int i = 0; i < 5; ++i) {
    for (const char* prefix : {"gone-", "bound-", "waiting-"}) {
      deleted.insert(prefix + std::to_string(i));
    }
  }
  Status removed;
  for (const std::string& name : deleted) {
    if (removed.ok()) removed = testing::DeletePod(Admin(), kNs, name);
  }
  Status late =
      testing::CreateNode(Admin(), BuildClusterNode().Name("relist-late").Label(kLateLabel, "yes"));
  // A new apiserver's watch cache starts at etcd's current revision, newer than any version the
  // scheduler saw (the changes above come after all of them): each of its watches gets 410 Gone.
  SharedCluster().Stop();
  Status restarted_again = SharedCluster().Start();
  stowage.Signal(SIGCONT);
  ASSERT_TRUE(restarted.ok()) << restarted;
  ASSERT_TRUE(restarted_again.ok()) << restarted_again;
  ASSERT_TRUE(created.ok()) << created;
  ASSERT_TRUE(removed.ok()) << removed;
  ASSERT_TRUE(late.ok() || client::IsAlreadyExists(late)) << late;

  // No pod left unqueued: every pod of the namespace is bound, the late ones to the late node.
  std::map<std::string, std::string> pods;
  bool all_bound = Eventually(
      [&] {
        pods = Pods();
        return pods.size() == 80 && Unbound(pods).empty();  // 30 + 65 - 15 deleted
      },
      300);
  EXPECT_TRUE(all_bound) << pods.size()
                         << " pods, unbound: " << ::testing::PrintToString(Unbound(pods)) << "\n"
                         << stowage.Log();
  for (const auto& [name, node] : pods) {
    if (name.rfind("waiting-", 0) == 0 || name.rfind("gap-late-", 0) == 0) {
      EXPECT_EQ(node, "relist-late") << name;
    }
  }
  // It relisted: the pods' and the nodes' informers were told 410 Gone.
  EXPECT_THAT(Lines(stowage, {"informer Pod: ", "410 Gone", "listing again"}), Not(IsEmpty()));
  EXPECT_THAT(Lines(stowage, {"informer Node: ", "410 Gone", "listing again"}), Not(IsEmpty()));

  // No double processing: the log tells of one binding per pod (each bound pod's line is written
  // just after its binding), none of a deleted one after the gap, and no binding conflict.
  ASSERT_TRUE(Eventually([&] { return Bindings(stowage).size() >= pods.size() + 5; }, 60));
  std::map<std::string, int> bindings = Bindings(stowage);
  EXPECT_EQ(bindings.size(), pods.size() + 5) << "only these pods and the 5 bound, then deleted";
  for (const auto& [name, node] : pods) EXPECT_EQ(bindings[name], 1) << name;
  for (const std::string& name : deleted) {
    EXPECT_EQ(bindings[name], name.rfind("bound-", 0) == 0 ? 1 : 0) << name;
  }
  EXPECT_THAT(Lines(stowage, {"HTTP 409"}), IsEmpty());
  EXPECT_THAT(Lines(stowage, {"already assigned"}), IsEmpty());
  EXPECT_THAT(Lines(stowage, {"Scheduler cache", "failed"}), IsEmpty());
  // The scheduler's own view (SIGUSR2 compares its cache and queue with its informers, then
  // dumps them): every pod once, bound in the cache, and no deleted one. (Pods other tests left
  // pending for other schedulers are rightly missing from its queue.)
  stowage.Signal(SIGUSR2);
  ASSERT_TRUE(stowage.WaitForLog("Dump of scheduling queue", std::chrono::seconds(60)));
  const std::vector<std::string> uids = Uids();
  EXPECT_EQ(uids.size(), pods.size());
  for (const std::string& line : Lines(stowage, {"Cache mismatch"})) {
    EXPECT_THAT(line, HasSubstr("redundantPods=[]"));
    for (const std::string& uid : uids) EXPECT_THAT(line, Not(HasSubstr(uid)));
  }
  const std::string log = stowage.Log();
  auto dumped = [&](const std::string& name) {
    const std::string entry = "name: " + name + ", namespace: " + kNs + ",";
    int n = 0;
    for (size_t at = log.find(entry); at != std::string::npos; at = log.find(entry, at + 1)) ++n;
    return n;
  };
  for (const auto& [name, node] : pods) EXPECT_EQ(dumped(name), 1) << name;
  for (const std::string& name : deleted) EXPECT_EQ(dumped(name), 0) << name;

  stowage.Signal(SIGTERM);
  EXPECT_TRUE(stowage.Wait(std::chrono::seconds(60)).has_value());
}

}  // namespace
}  // namespace stowage::relist_test
