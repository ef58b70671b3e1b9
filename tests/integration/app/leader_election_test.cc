// Two stowage processes electing a leader through a real Lease: exactly one schedules; SIGKILL
// of the leader hands over after the lease expires; SIGTERM releases the lease so the standby
// takes over at once; the process exits 0 on SIGTERM; a leader stopped (SIGSTOP) past its lease
// binds nothing once resumed.
#include <gtest/gtest.h>

#include <ctime>
#include <memory>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::leader_election_test {
namespace {

using testing::BuildClusterNode;
using testing::BuildPod;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

constexpr const char* kAcquired = "Successfully acquired lease";

std::vector<std::string> ElectionFlags(const std::string& lease, int duration_s, int renew_s,
                                       int retry_s) {
  return {"--leader-elect=true", "--leader-elect-resource-name=" + lease,
          "--leader-elect-lease-duration=" + std::to_string(duration_s) + "s",
          "--leader-elect-renew-deadline=" + std::to_string(renew_s) + "s",
          "--leader-elect-retry-period=" + std::to_string(retry_s) + "s"};
}

void EnsureNodes() {
  for (int i = 0; i < 3; ++i) {
    Status s = testing::CreateNode(Admin(), BuildClusterNode()
                                                .Name("le-node-" + std::to_string(i))
                                                .Capacity("cpu", "8")
                                                .Capacity("memory", "32Gi")
                                                .Capacity("pods", "110"));
    ASSERT_TRUE(s.ok() || client::IsAlreadyExists(s)) << s;
  }
}

// Waits until every pod <prefix>-0..count-1 in ns is bound; returns how many are.
int WaitBound(const std::string& ns, const std::string& prefix, int count,
              std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int bound = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    bound = 0;
    for (int i = 0; i < count; ++i) {
      auto p = client::GetObject<api::Pod>(Admin(), ns, prefix + "-" + std::to_string(i));
      if (p.ok() && !p->spec.node_name.empty()) ++bound;
    }
    if (bound == count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return bound;
}

api::Lease GetLease(const std::string& name) {
  auto l = client::GetObject<api::Lease>(Admin(), "kube-system", name);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? *l : api::Lease{};
}

// Starts two instances and returns them leader first.
std::pair<std::unique_ptr<Instance>, std::unique_ptr<Instance>> StartPair(
    const std::vector<std::string>& flags) {
  auto a = std::make_unique<Instance>(flags);
  auto b = std::make_unique<Instance>(flags);
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (a->Log().find(kAcquired) != std::string::npos) return {std::move(a), std::move(b)};
    if (b->Log().find(kAcquired) != std::string::npos) return {std::move(b), std::move(a)};
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << "no instance acquired the lease; logs:\n" << a->Log() << "\n---\n" << b->Log();
  return {std::move(a), std::move(b)};
}

TEST(LeaderElection, ExactlyOneSchedulesAndSigkillFailsOverAfterTheLease) {
  EnsureNodes();
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "le-kill").ok());
  auto [leader, standby] = StartPair(ElectionFlags("stowage-le-kill", 6, 4, 1));
  ASSERT_TRUE(leader && standby);
  api::Lease held = GetLease("stowage-le-kill");
  EXPECT_FALSE(held.holder_identity.value_or("").empty());
  EXPECT_EQ(held.lease_duration_seconds.value_or(0), 6);
  EXPECT_FALSE(held.acquire_time.empty());
  EXPECT_FALSE(held.renew_time.empty());

  ASSERT_TRUE(testing::CreatePods(Admin(), "le-kill", "first", 6).ok());
  EXPECT_EQ(WaitBound("le-kill", "first", 6, 60s), 6);
  // The standby keeps its caches warm but binds nothing.
  EXPECT_EQ(standby->Log().find(kAcquired), std::string::npos);
  EXPECT_EQ(standby->Log().find("Successfully bound pod"), std::string::npos) << standby->Log();
  EXPECT_NE(leader->Log().find("Successfully bound pod"), std::string::npos) << leader->Log();

  leader->process().Signal(SIGKILL);
  ASSERT_TRUE(leader->process().Wait(10s).has_value());
  auto killed_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(testing::CreatePods(Admin(), "le-kill", "second", 6).ok());
  // Lease duration (6 s) plus up to 2.2 retry periods, with room for a loaded machine.
  ASSERT_TRUE(standby->WaitForLog(kAcquired, 40s)) << standby->Log();
  auto took_over = std::chrono::steady_clock::now() - killed_at;
  // The lease was not released, so the standby had to wait for it to expire.
  EXPECT_GE(took_over, 3s) << "took over before the killed leader's lease could expire";
  EXPECT_EQ(WaitBound("le-kill", "second", 6, 60s), 6);
  api::Lease after = GetLease("stowage-le-kill");
  EXPECT_NE(after.holder_identity, held.holder_identity);
  EXPECT_EQ(after.lease_transitions.value_or(0), held.lease_transitions.value_or(0) + 1);
}

TEST(LeaderElection, SigtermReleasesTheLeaseAndExitsZero) {
  EnsureNodes();
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "le-term").ok());
  // A long lease: a standby that waited for expiry would need 30 s.
  auto [leader, standby] = StartPair(ElectionFlags("stowage-le-term", 30, 20, 1));
  ASSERT_TRUE(leader && standby);
  api::Lease held = GetLease("stowage-le-term");

  leader->process().Signal(SIGTERM);
  auto exit_code = leader->process().Wait(30s);
  ASSERT_TRUE(exit_code.has_value()) << "stowage did not exit after SIGTERM";
  EXPECT_EQ(*exit_code, 0) << leader->Log();
  auto exited_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(standby->WaitForLog(kAcquired, 60s)) << standby->Log();
  EXPECT_LT(std::chrono::steady_clock::now() - exited_at, 20s)
      << "the standby waited for the lease to expire: it was not released";
  ASSERT_TRUE(testing::CreatePods(Admin(), "le-term", "after", 4).ok());
  EXPECT_EQ(WaitBound("le-term", "after", 4, 60s), 4);
  api::Lease after = GetLease("stowage-le-term");
  EXPECT_NE(after.holder_identity, held.holder_identity);
  EXPECT_EQ(after.lease_transitions.value_or(0), held.lease_transitions.value_or(0) + 1);
}

// The lease handed to another holder, as a standby that took over would write it.
void TakeOverLease(const std::string& name, const std::string& holder) {
  char now[64];
  std::time_t t = std::time(nullptr);
  std::strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%S.000000Z", std::gmtime(&t));
  auto r = Admin().Patch("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + name,
                         R"({"spec":{"holderIdentity":")" + holder +
                             R"(","leaseDurationSeconds":60,"renewTime":")" + now +
                             R"(","acquireTime":")" + now + R"("}})",
                         client::kMergePatch);
  ASSERT_TRUE(r.ok()) << r.status();
}

// SIGSTOP the leader past its lease, let another holder take the Lease and create pods, then
// resume it: by its own clock its lease may have expired, so it binds none of them, although
// its elector only finds out on its next renewal attempts (for up to the renew deadline).
TEST(LeaderElection, ALeaderResumedPastItsLeaseBindsNothing) {
  EnsureNodes();
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "le-stop").ok());
  // Renew deadline 5 s: before the fix the resumed leader bound for that long.
  Instance leader(ElectionFlags("stowage-le-stop", 6, 5, 1));
  ASSERT_TRUE(leader.WaitForLog(kAcquired, 60s)) << leader.Log();
  ASSERT_TRUE(testing::CreatePods(Admin(), "le-stop", "before", 2).ok());
  ASSERT_EQ(WaitBound("le-stop", "before", 2, 60s), 2) << leader.Log();

  leader.process().Signal(SIGSTOP);
  std::this_thread::sleep_for(8s);  // past the 6 s lease by the leader's own clock too
  TakeOverLease("stowage-le-stop", "another-instance");
  ASSERT_TRUE(testing::CreatePods(Admin(), "le-stop", "during", 10).ok());
  leader.process().Signal(SIGCONT);

  // The leader loses the lease on its renewals (it exits 1: leadership lost), and binds nothing
  // meanwhile.
  auto code = leader.process().Wait(60s);
  ASSERT_TRUE(code.has_value()) << leader.Log();
  EXPECT_EQ(*code, 1) << leader.Log();
  EXPECT_EQ(WaitBound("le-stop", "during", 10, 1s), 0) << leader.Log();
  EXPECT_NE(leader.Log().find("lease may have expired"), std::string::npos) << leader.Log();
  EXPECT_EQ(GetLease("stowage-le-stop").holder_identity, "another-instance");
}

}  // namespace
}  // namespace stowage::apptest::leader_election_test
