// Leader election against a real kube-apiserver: candidates in one process, each with its own
// client as separate schedulers would have, on a Lease of their own per test with shortened
// timings. Exactly one leads and the Lease says so; a release hands over at once; an abandoned
// lease only once it expires; a leader whose lease is taken over stops leading.
//
// Bounds on delays are asserted only in the direction that load cannot break: a takeover of an
// abandoned lease can never come before expiry, and a takeover after release is compared with a
// lease duration long enough that expiry cannot explain it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/leaderelection/leader_elector.h"
#include "stowage/common/mutex.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::leaderelection::leader_election_test {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

Config Timings(const std::string& lease, seconds duration = seconds(4)) {
  Config c;
  c.lock_namespace = "kube-system";
  c.lock_name = lease;
  c.lease_duration = duration;
  c.renew_deadline = seconds(3);
  c.retry_period = milliseconds(500);
  c.event_source = "le-test-scheduler";
  return c;
}

// One candidate running Run on its own thread, with what its callbacks saw.
class Candidate {
 public:
  // Through the admin's credentials, or a bearer token's when one is given.
  explicit Candidate(Config config, const std::string& token = "") {
    config.identity = LeaderElector::NewIdentity();
    id_ = config.identity;
    client::RestConfig rc = SharedCluster().AdminConfig();
    if (!token.empty()) {
      rc.bearer_token = token;
      rc.client_cert_pem.clear();
      rc.client_key_pem.clear();
    }
    auto c = client::RestClient::New(LeaderElectionRestConfig(rc, config.renew_deadline));
    EXPECT_TRUE(c.ok()) << c.status();
    client_ = std::move(*c);
    Callbacks cb;
    cb.on_started_leading = [this](std::stop_token token) {
      Mutex m;
      CondVarAny cv;
      MutexLock l(m);
      while (!token.stop_requested()) cv.Wait(m, token);
      token_fired_ = true;
    };
    cb.on_stopped_leading = [this] { stopped_ = true; };
    cb.on_leader_status = [this](bool leader) {
      if (leader) acquired_at_ = std::chrono::steady_clock::now().time_since_epoch().count();
    };
    auto e = LeaderElector::New(*client_, config, std::move(cb));
    EXPECT_TRUE(e.ok()) << e.status();
    elector_ = std::move(*e);
    thread_ = std::thread([this] {
      elector_->Run(stop_.get_token());
      elector_->FlushEvents(seconds(10));
      returned_ = true;
    });
  }
  ~Candidate() { Stop(); }

  // Stops Run (releasing the lease if configured) and waits for it to return.
  void Stop() {
    stop_.request_stop();
    if (thread_.joinable()) thread_.join();
  }

  const std::string& id() const { return id_; }
  LeaderElector& elector() { return *elector_; }
  bool token_fired() const { return token_fired_; }
  bool stopped() const { return stopped_; }
  bool returned() const { return returned_; }
  bool stop_requested() const { return stop_.stop_requested(); }
  bool acquired() const { return acquired_at_ != 0; }
  std::chrono::steady_clock::time_point acquired_at() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(acquired_at_.load()));
  }

 private:
  std::string id_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<LeaderElector> elector_;
  std::stop_source stop_;
  std::atomic<bool> token_fired_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> returned_{false};
  std::atomic<int64_t> acquired_at_{0};
  std::thread thread_;
};

// Polls pred until it holds or a generous timeout passes.
bool Eventually(const std::function<bool()>& pred, seconds timeout = seconds(60)) {
  return testing::Eventually(pred, timeout, milliseconds(20));
}

api::Lease GetLease(const std::string& name) {
  auto l = client::GetObject<api::Lease>(Admin(), "kube-system", name);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? *l : api::Lease{};
}

// The LeaderElection events about a lease, as "<message>|<source.component>".
std::vector<std::string> Events(const std::string& lease) {
  auto body =
      Admin().Get("/api/v1/namespaces/kube-system/events?fieldSelector=" +
                  client::QueryEscape("involvedObject.name=" + lease + ",reason=LeaderElection"));
  EXPECT_TRUE(body.ok()) << body.status();
  std::vector<std::string> out;
  if (!body.ok()) return out;
  json list = json::parse(*body);  // named: a range-for over a temporary's member would dangle
  for (const auto& e : list["items"]) {
    EXPECT_EQ(e["involvedObject"]["kind"], "Lease");
    EXPECT_EQ(e["type"], "Normal");
    out.push_back(e["message"].get<std::string>() + "|" +
                  e["source"]["component"].get<std::string>());
  }
  return out;
}

// For the figures recorded with RecordProperty (in the XML report and the console output).
int Millis(std::chrono::steady_clock::duration d) {
  return static_cast<int>(std::chrono::duration_cast<milliseconds>(d).count());
}

bool HasAll(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  for (const auto& w : want) {
    if (std::find(have.begin(), have.end(), w) == have.end()) return false;
  }
  return true;
}

class LeaderElectionIntegration : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(testing::EnsureNamespace(Admin(), "kube-system").ok()); }
};

TEST_F(LeaderElectionIntegration, OfTwoCandidatesExactlyOneLeadsAndTheLeaseNamesIt) {
  const std::string lease = "le-two-candidates";
  Candidate a(Timings(lease));
  Candidate b(Timings(lease));
  ASSERT_TRUE(Eventually([&] { return a.elector().IsLeader() || b.elector().IsLeader(); }));
  Candidate& leader = a.elector().IsLeader() ? a : b;
  Candidate& standby = &leader == &a ? b : a;

  // Several renewals later nothing has changed hands.
  std::this_thread::sleep_for(seconds(2));
  EXPECT_TRUE(leader.elector().IsLeader());
  EXPECT_FALSE(standby.elector().IsLeader());
  EXPECT_FALSE(standby.acquired());
  EXPECT_EQ(standby.elector().GetLeader(), leader.id());
  EXPECT_TRUE(leader.elector().Check().ok());
  EXPECT_TRUE(standby.elector().Check().ok());

  api::Lease l = GetLease(lease);
  EXPECT_EQ(l.holder_identity, leader.id());
  EXPECT_EQ(l.lease_duration_seconds, 4);
  EXPECT_EQ(l.lease_transitions, 0) << "the winner created the lease";
  std::regex micro(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$)");
  EXPECT_TRUE(std::regex_match(l.acquire_time, micro)) << l.acquire_time;
  EXPECT_TRUE(std::regex_match(l.renew_time, micro)) << l.renew_time;
  EXPECT_GT(l.renew_time, l.acquire_time) << "the leader has been renewing";

  // Renewals keep moving renewTime and keep acquireTime.
  std::this_thread::sleep_for(seconds(1));
  api::Lease later = GetLease(lease);
  EXPECT_GT(later.renew_time, l.renew_time);
  EXPECT_EQ(later.acquire_time, l.acquire_time);

  EXPECT_TRUE(Eventually(
      [&] { return HasAll(Events(lease), {leader.id() + " became leader|le-test-scheduler"}); },
      seconds(20)))
      << ::testing::PrintToString(Events(lease));
  standby.Stop();
  leader.Stop();
  EXPECT_TRUE(leader.token_fired());
  EXPECT_TRUE(leader.stopped());
  EXPECT_TRUE(standby.stopped());
}

TEST_F(LeaderElectionIntegration, AReleasedLeaseIsTakenOverWellBeforeItWouldExpire) {
  const std::string lease = "le-release";
  // A long lease, so that a takeover before it runs out can only come from the release.
  const seconds duration(30);
  Candidate first(Timings(lease, duration));
  ASSERT_TRUE(Eventually([&] { return first.elector().IsLeader(); }));
  Candidate second(Timings(lease, duration));
  ASSERT_TRUE(Eventually([&] { return second.elector().GetLeader() == first.id(); }));
  int transitions = GetLease(lease).lease_transitions.value_or(0);

  first.Stop();  // releases: holderIdentity "", leaseDurationSeconds 1
  auto released_at = std::chrono::steady_clock::now();
  EXPECT_TRUE(first.token_fired());
  EXPECT_FALSE(first.elector().IsLeader());

  ASSERT_TRUE(Eventually([&] { return second.acquired(); }));
  EXPECT_LT(second.acquired_at() - released_at, duration);
  RecordProperty("handover_after_release_ms", Millis(second.acquired_at() - released_at));
  api::Lease l = GetLease(lease);
  EXPECT_EQ(l.holder_identity, second.id());
  EXPECT_EQ(l.lease_transitions.value_or(0), transitions + 1);
  EXPECT_EQ(l.lease_duration_seconds, 30);
  // Events are written in the background; the new leader's may still be on its way.
  EXPECT_TRUE(Eventually(
      [&] {
        return HasAll(Events(lease), {first.id() + " became leader|le-test-scheduler",
                                      first.id() + " stopped leading|le-test-scheduler",
                                      second.id() + " became leader|le-test-scheduler"});
      },
      seconds(20)))
      << ::testing::PrintToString(Events(lease));
}

TEST_F(LeaderElectionIntegration, AnAbandonedLeaseIsTakenOverOnlyAfterItExpires) {
  const std::string lease = "le-abandon";
  const seconds duration(6);
  Config no_release = Timings(lease, duration);
  no_release.release_on_cancel = false;  // as if killed: the lease is left as it was
  Candidate first(no_release);
  ASSERT_TRUE(Eventually([&] { return first.elector().IsLeader(); }));
  Candidate second(Timings(lease, duration));
  ASSERT_TRUE(Eventually([&] { return second.elector().GetLeader() == first.id(); }));
  int transitions = GetLease(lease).lease_transitions.value_or(0);

  auto abandoned_at = std::chrono::steady_clock::now();
  first.Stop();
  EXPECT_EQ(GetLease(lease).holder_identity, first.id());
  std::this_thread::sleep_for(seconds(1));
  EXPECT_FALSE(second.acquired()) << "the abandoned lease is still valid";

  ASSERT_TRUE(Eventually([&] { return second.acquired(); }));
  // The standby counts the lease from when it last saw the record change: the last renewal,
  // at most about one retry period before the stop, seen at the second precision of upstream's
  // comparison. Half a second more covers a renewal still in flight when the stop came.
  EXPECT_GE(second.acquired_at() - abandoned_at, duration - seconds(2));
  RecordProperty("takeover_after_abandon_ms", Millis(second.acquired_at() - abandoned_at));
  api::Lease l = GetLease(lease);
  EXPECT_EQ(l.holder_identity, second.id());
  EXPECT_EQ(l.lease_transitions.value_or(0), transitions + 1);
}

// With upstream's retry period of 2 s, polling alone would see the last renewal up to 4.4 s late
// and take over up to 4.4 s after the lease ran out. The standby's watch of the Lease sees the
// renewal as it is written and its wait ends when the lease does.
TEST_F(LeaderElectionIntegration, AnAbandonedLeaseIsTakenOverALeaseDurationAfterItsLastRenewal) {
  const std::string lease = "le-watched";
  Config c = Timings(lease, seconds(6));
  c.renew_deadline = seconds(4);
  c.retry_period = seconds(2);
  Config no_release = c;
  no_release.release_on_cancel = false;
  Candidate first(no_release);
  ASSERT_TRUE(Eventually([&] { return first.elector().IsLeader(); }));
  Candidate second(c);
  ASSERT_TRUE(Eventually([&] { return second.elector().GetLeader() == first.id(); }));
  std::this_thread::sleep_for(seconds(3));  // a renewal or two through the standby's watch
  first.Stop();
  api::Lease abandoned = GetLease(lease);
  ASSERT_EQ(abandoned.holder_identity, first.id());
  ASSERT_TRUE(Eventually([&] { return second.acquired(); }));
  api::Lease taken = GetLease(lease);
  ASSERT_EQ(taken.holder_identity, second.id());
  // Both times come from this machine's clock: the leader's last renewTime and the new holder's
  // acquireTime, stamped when its winning attempt began.
  auto renewed = api::ParseTime(abandoned.renew_time);
  auto acquired = api::ParseTime(taken.acquire_time);
  ASSERT_TRUE(renewed.ok() && acquired.ok()) << abandoned.renew_time << " " << taken.acquire_time;
  auto after = *acquired - *renewed;
  RecordProperty("takeover_after_last_renewal_ms", Millis(after));
  EXPECT_GE(after, seconds(6)) << "never before the lease ran out";
  EXPECT_LT(after, seconds(7)) << "the standby took over " << Millis(after) << " ms after the "
                               << "last renewal; polling alone allows up to 14.8 s";
}

// A token for a service account of kube-system bound to kube-scheduler's own rules for its
// Lease (ClusterRole system:kube-scheduler: create, and get and update by name) and events:
// no list or watch.
std::string UpstreamRbacToken(const std::string& lease) {
  const std::string sa = "le-upstream-rbac";
  auto created = Admin().Post("/api/v1/namespaces/kube-system/serviceaccounts",
                              R"({"metadata":{"name":")" + sa + R"("}})");
  EXPECT_TRUE(created.ok() || client::IsAlreadyExists(created.status())) << created.status();
  json role = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata", {{"name", sa}}},
      {"rules",
       {{{"apiGroups", {"coordination.k8s.io"}}, {"resources", {"leases"}}, {"verbs", {"create"}}},
        {{"apiGroups", {"coordination.k8s.io"}},
         {"resources", {"leases"}},
         {"resourceNames", {lease}},
         {"verbs", {"get", "update"}}},
        {{"apiGroups", {""}}, {"resources", {"events"}}, {"verbs", {"create"}}}}}};
  auto r =
      Admin().Post("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles", role.dump());
  EXPECT_TRUE(r.ok() || client::IsAlreadyExists(r.status())) << r.status();
  json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", sa}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", sa}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", "kube-system"}}}}};
  auto b = Admin().Post("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings",
                        binding.dump());
  EXPECT_TRUE(b.ok() || client::IsAlreadyExists(b.status())) << b.status();
  auto token =
      Admin().Post("/api/v1/namespaces/kube-system/serviceaccounts/" + sa + "/token",
                   R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  EXPECT_TRUE(token.ok()) << token.status();
  return token.ok() ? json::parse(*token)["status"]["token"].get<std::string>() : "";
}

// Under kube-scheduler's RBAC the watch is refused: the standby says so, stops watching and
// takes over by polling, as kube-scheduler's does.
TEST_F(LeaderElectionIntegration, UnderKubeSchedulersRbacTheStandbyPollsInsteadOfWatching) {
  const std::string lease = "le-upstream-rbac";
  const std::string token = UpstreamRbacToken(lease);
  ASSERT_FALSE(token.empty());
  const seconds duration(4);
  Config no_release = Timings(lease, duration);
  no_release.release_on_cancel = false;
  Candidate first(no_release, token);
  ASSERT_TRUE(Eventually([&] { return first.elector().IsLeader(); }));
  Candidate second(Timings(lease, duration), token);
  ASSERT_TRUE(Eventually([&] { return second.elector().LeaseWatchRefused(); }, seconds(20)));
  // The refusal can be seen before the standby's first read of the lease has returned.
  ASSERT_TRUE(Eventually([&] { return second.elector().GetLeader() == first.id(); }))
      << "the standby sees " << second.elector().GetLeader() << " as the leader";
  first.Stop();
  ASSERT_TRUE(Eventually([&] { return second.acquired(); }));
  EXPECT_EQ(GetLease(lease).holder_identity, second.id());
}

// Writes holderIdentity over the lease through the API, retrying on Conflict (the leader renews
// every half second).
void TakeOver(const std::string& lease, const std::string& holder) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto body = Admin().Get(client::ObjectPath<api::Lease>("kube-system", lease));
    ASSERT_TRUE(body.ok()) << body.status();
    json l = json::parse(*body);
    l["spec"]["holderIdentity"] = holder;
    l["spec"]["leaseDurationSeconds"] = 60;
    l["spec"]["renewTime"] = api::FormatTime(std::chrono::system_clock::now(), true);
    auto put = Admin().Put(client::ObjectPath<api::Lease>("kube-system", lease), l.dump());
    if (put.ok()) return;
    ASSERT_TRUE(client::IsConflict(put.status())) << put.status();
  }
  FAIL() << "could not write the lease for 50 attempts";
}

TEST_F(LeaderElectionIntegration, ALeaderWhoseLeaseIsTakenOverStopsLeading) {
  const std::string lease = "le-intruder";
  Candidate leader(Timings(lease));
  ASSERT_TRUE(Eventually([&] { return leader.elector().IsLeader(); }));

  TakeOver(lease, "intruder");
  // Renewals fail from now on; after the renew deadline the leader gives up by itself.
  ASSERT_TRUE(Eventually([&] { return leader.returned(); }));
  EXPECT_FALSE(leader.stop_requested());
  EXPECT_TRUE(leader.token_fired()) << "the leading work was told to stop";
  EXPECT_TRUE(leader.stopped());
  EXPECT_FALSE(leader.elector().IsLeader());
  EXPECT_EQ(leader.elector().GetLeader(), "intruder");
  EXPECT_EQ(GetLease(lease).holder_identity, "intruder") << "nothing of ours to release";
  EXPECT_THAT(Events(lease),
              ::testing::Contains(leader.id() + " stopped leading|le-test-scheduler"));
}

}  // namespace
}  // namespace stowage::leaderelection::leader_election_test
