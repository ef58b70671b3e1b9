// Events narrowed to the pods they concern (framework::EventNarrowing): which waiting pods the
// queue asks, and that the pods it does not ask are exactly those whose hints would skip.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "pkg/queue/scheduling_queue.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/stub_plugins.h"
#include "tests/unit/queue/queue_testing.h"

namespace stowage::queue::narrowing_test {
namespace {

using framework::EventResource;
using testing::BuildPod;

using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

ClaimPtr Claim(const std::string& name, bool allocated = false) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "ns";
  c->metadata.name = name;
  c->metadata.uid = name;
  if (allocated) c->allocation.emplace();
  return c;
}

// The claim a pod waits for is in its label "wants"; the hint queues a pod for its own claim or
// for a claim that lost its allocation, as DynamicResources does. Counts whom it was asked about.
struct WantsClaim : framework::FilterPlugin, framework::EnqueueExtensions {
  static inline std::multiset<std::string> asked;
  static inline bool narrow = true;
  std::string_view Name() const override { return "WantsClaim"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return {};
  }
  static const std::string* Wants(const api::Pod& pod) { return pod.metadata.labels.Get("wants"); }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    auto hint = [](const api::Pod& pod, const framework::EventObject& o,
                   const framework::EventObject& n) {
      asked.insert(pod.metadata.name);
      const ClaimPtr* before = std::get_if<ClaimPtr>(&o);
      const ClaimPtr* after = std::get_if<ClaimPtr>(&n);
      if (before && *before && (*before)->allocation && after && *after && !(*after)->allocation) {
        return framework::QueueingHint::kQueue;
      }
      const std::string* wants = Wants(pod);
      return after && *after && wants && *wants == (*after)->metadata.name
                 ? framework::QueueingHint::kQueue
                 : framework::QueueingHint::kSkip;
    };
    framework::EventNarrowing narrowing;
    if (narrow) {
      narrowing.pod_keys = [](const api::Pod& pod, std::vector<std::string>& out) {
        if (const std::string* w = Wants(pod)) out.push_back("ns/" + *w);
      };
      narrowing.event_keys = [](const framework::EventObject& o, const framework::EventObject& n,
                                std::vector<std::string>& out) {
        const ClaimPtr* before = std::get_if<ClaimPtr>(&o);
        const ClaimPtr* after = std::get_if<ClaimPtr>(&n);
        if (before && *before && (*before)->allocation && after && *after &&
            !(*after)->allocation) {
          return false;  // frees devices: any pod may use them
        }
        out.push_back("ns/" + (*after)->metadata.name);
        return true;
      };
    }
    return {{{EventResource::kResourceClaim, framework::kAdd | framework::kUpdate},
             hint,
             std::move(narrowing)}};
  }
};

// Registered for the same events without narrowing, when enabled: its hint always skips.
struct AlsoClaims : framework::FilterPlugin, framework::EnqueueExtensions {
  static inline int asked = 0;
  std::string_view Name() const override { return "AlsoClaims"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo&) override {
    return {};
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{{EventResource::kResourceClaim, framework::kAdd},
             [](const api::Pod&, const framework::EventObject&, const framework::EventObject&) {
               ++asked;
               return framework::QueueingHint::kSkip;
             }}};
  }
};

class NarrowingTest : public ::testing::Test {
 protected:
  void SetUp() override { WantsClaim::narrow = true; }
  void Build(bool also_claims) {
    WantsClaim::asked.clear();
    AlsoClaims::asked = 0;
    using testing::RegisterStub;
    ASSERT_TRUE(RegisterStub(registry_, "Bind", [] { return new testing::StubBinder; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "WantsClaim", [] { return new WantsClaim; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "AlsoClaims", [] { return new AlsoClaims; }).ok());
    ASSERT_TRUE(RegisterStub(registry_, "Sort", [] { return new testing::StubSort; }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    spec.at(framework::ExtensionPoint::kFilter) = {{"WantsClaim"}};
    if (also_claims) spec.at(framework::ExtensionPoint::kFilter).push_back({"AlsoClaims"});
    ASSERT_TRUE(NewQueue(registry_, spec, handle_, clock_, &fw_, &q_));
  }
  // Adds a pod and reports it rejected by plugins (none: rejected for no plugin's reason).
  void Waiting(const std::string& name, const std::string& wants,
               std::set<std::string> plugins = {"WantsClaim"}) {
    auto b = BuildPod().Name(name).Namespace("ns").UID(name);
    if (!wants.empty()) b.Label("wants", wants);
    q_->Add(b.Obj());
    auto p = q_->Pop();
    ASSERT_EQ(p->pod().metadata.name, name);
    p->unschedulable_plugins = std::move(plugins);
    q_->AddUnschedulableIfNotPresent(p, false);
  }
  std::set<std::string> Left() {
    std::set<std::string> out;
    for (const api::PodPtr& p : q_->PendingPods().first) {
      if (q_->IsInUnschedulable(*p)) out.insert(p->metadata.name);
    }
    return out;
  }
  void ClaimAdded(const ClaimPtr& c) {
    q_->MoveAllToActiveOrBackoffQueue({EventResource::kResourceClaim, framework::kAdd}, {}, c);
  }

  FakeClock clock_;
  framework::Registry registry_;
  testing::FakeHandle handle_;
  std::unique_ptr<framework::Framework> fw_;
  std::unique_ptr<SchedulingQueue> q_;
};

TEST_F(NarrowingTest, AClaimEventAsksOnlyThePodsWaitingForThatClaim) {
  Build(/*also_claims=*/false);
  Waiting("a", "c1");
  Waiting("b", "c2");
  Waiting("c", "c3");
  ClaimAdded(Claim("c2"));
  EXPECT_EQ(WantsClaim::asked, (std::multiset<std::string>{"b"}));
  EXPECT_EQ(Left(), (std::set<std::string>{"a", "c"}));
  WantsClaim::asked.clear();
  ClaimAdded(Claim("unrelated"));
  EXPECT_TRUE(WantsClaim::asked.empty());
  EXPECT_EQ(Left(), (std::set<std::string>{"a", "c"}));
}

TEST_F(NarrowingTest, AnEventThatMayConcernAnyPodAsksThemAll) {
  Build(/*also_claims=*/false);
  Waiting("a", "c1");
  Waiting("b", "c2");
  q_->MoveAllToActiveOrBackoffQueue({EventResource::kResourceClaim, framework::kUpdate},
                                    Claim("c9", /*allocated=*/true), Claim("c9"));
  EXPECT_EQ(WantsClaim::asked, (std::multiset<std::string>{"a", "b"}));
  EXPECT_TRUE(Left().empty()) << "a deallocation frees devices for every pod";
}

TEST_F(NarrowingTest, APluginThatDoesNotNarrowKeepsEveryPodAsked) {
  Build(/*also_claims=*/true);
  Waiting("a", "c1", {"WantsClaim", "AlsoClaims"});
  Waiting("b", "c2", {"WantsClaim", "AlsoClaims"});
  ClaimAdded(Claim("c2"));
  EXPECT_EQ(WantsClaim::asked, (std::multiset<std::string>{"a", "b"}));
  EXPECT_EQ(AlsoClaims::asked, 2);
  EXPECT_EQ(Left(), (std::set<std::string>{"a"}));
}

TEST_F(NarrowingTest, APodUpdatedWhileWaitingIsFoundUnderItsNewKeys) {
  Build(/*also_claims=*/false);
  Waiting("a", "c1");
  // The update changes what a waits for; no plugin registered for pod updates, so it stays.
  auto updated = BuildPod().Name("a").Namespace("ns").UID("a").Label("wants", "c7").Obj();
  auto old = BuildPod().Name("a").Namespace("ns").UID("a").Label("wants", "c1").Obj();
  q_->Update(old, updated);
  ASSERT_EQ(Left(), (std::set<std::string>{"a"}));
  ClaimAdded(Claim("c1"));
  EXPECT_EQ(Left(), (std::set<std::string>{"a"}));
  ClaimAdded(Claim("c7"));
  EXPECT_TRUE(Left().empty());
}

TEST_F(NarrowingTest, NarrowingMovesTheSamePodsAsAskingEveryPod) {
  // The same waiting pods and events, with and without narrowing: the same pods are left.
  std::vector<std::set<std::string>> left;
  for (bool narrow : {true, false}) {
    WantsClaim::narrow = narrow;
    registry_ = framework::Registry();
    Build(/*also_claims=*/false);
    for (int i = 0; i < 20; ++i) {
      Waiting("p" + std::to_string(i), "c" + std::to_string(i % 7));
    }
    Waiting("free", "", {});
    for (const char* c : {"c3", "c10", "c5"}) ClaimAdded(Claim(c));
    left.push_back(Left());
  }
  EXPECT_EQ(left[0], left[1]);
  EXPECT_EQ(left[0].size(), 20u - 6u);
}

}  // namespace
}  // namespace stowage::queue::narrowing_test
