// DynamicResources' queueing hints and the narrowing of claim events: which pods an event may
// concern, and that a pod the narrowing leaves out is always one the hint skips.
#include <gtest/gtest.h>

#include <set>

#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "tests/testing/builders.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"
#include "tests/unit/plugins/dynamic_resources/dra_handle.h"

namespace stowage::plugins::dynamic_resources::hints_test {
namespace {

using framework::EventResource;
using framework::QueueingHint;
using stowage::testing::BuildPod;
using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

// A claim; owner, when set, is the pod the controller made it for.
ClaimPtr MakeClaim(const std::string& name, bool allocated = false, const std::string& owner = "") {
  api::ResourceClaim c = *dra::testing::Claim(name, {dra::testing::Request("gpu")});
  c.metadata.uid = name + "-uid";
  if (allocated) c.allocation = api::AllocationResult{};
  if (!owner.empty()) {
    c.metadata.owner_references.push_back({.api_version = "v1",
                                           .kind = "Pod",
                                           .name = owner,
                                           .uid = owner + "-uid",
                                           .controller = true});
  }
  return std::make_shared<const api::ResourceClaim>(std::move(c));
}

// A pod naming claim `by_name` directly (empty: none) and, when templated, one through a
// template, whose claim is `from_template` (empty: the controller has not created it yet).
api::PodPtr MakePod(const std::string& name, const std::string& by_name,
                    const std::string& from_template = "", bool templated = true) {
  auto b = BuildPod().Name(name).Namespace("default").UID(name + "-uid");
  std::vector<api::PodResourceClaim> claims;
  if (!by_name.empty()) claims.push_back({"direct", by_name, std::nullopt});
  if (templated) claims.push_back({"templated", std::nullopt, "template"});
  b.ResourceClaims(std::move(claims));
  api::PodPtr pod = b.Obj();
  if (from_template.empty()) return pod;
  auto copy = std::make_shared<api::Pod>(*pod);
  copy->status.resource_claim_statuses.push_back({"templated", from_template});
  return copy;
}

class HintsTest : public ::testing::Test {
 protected:
  HintsTest() {
    for (const auto& e : pl_.EventsToRegister()) by_resource_[e.event.resource] = e;
  }
  const framework::ClusterEventWithHint& For(EventResource r) { return by_resource_.at(r); }
  // The keys a claim event has, or nullopt when it may concern any pod.
  std::optional<std::set<std::string>> EventKeys(const framework::EventObject& o,
                                                 const framework::EventObject& n) {
    std::vector<std::string> keys;
    if (!For(EventResource::kResourceClaim).narrowing.event_keys(o, n, keys)) return std::nullopt;
    return std::set<std::string>(keys.begin(), keys.end());
  }
  std::set<std::string> PodKeys(const api::Pod& pod) {
    std::vector<std::string> keys;
    For(EventResource::kResourceClaim).narrowing.pod_keys(pod, keys);
    return {keys.begin(), keys.end()};
  }

  DraHandle handle_;
  dra::testing::FakeSelectorCompiler compiler_;
  DynamicResources pl_{handle_, compiler_};
  std::map<EventResource, framework::ClusterEventWithHint> by_resource_;
};

TEST_F(HintsTest, AClaimEventIsNarrowedToThePodsNamingTheClaim) {
  EXPECT_EQ(PodKeys(*MakePod("p", "shared", "p-templated-x")),
            (std::set<std::string>{"default/shared", "default/p-templated-x"}));
  EXPECT_EQ(PodKeys(*MakePod("p", "")), (std::set<std::string>{}))
      << "a template claim not created yet has no name to wait under";
  EXPECT_EQ(EventKeys({}, MakeClaim("c")), (std::set<std::string>{"default/c"}));
  EXPECT_EQ(EventKeys(MakeClaim("c"), MakeClaim("c", true)), (std::set<std::string>{"default/c"}));
  EXPECT_EQ(EventKeys(MakeClaim("c", true), MakeClaim("c")), std::nullopt)
      << "a deallocation frees devices for any pod";
  EXPECT_EQ(EventKeys(MakeClaim("c", true), {}), std::nullopt) << "so does an allocated deletion";
  EXPECT_EQ(EventKeys(MakeClaim("c"), {}), (std::set<std::string>{}))
      << "deleting an unallocated claim helps no pod";
}

TEST_F(HintsTest, APodTheNarrowingLeavesOutIsOneTheHintSkips) {
  handle_.claims.Add(*MakeClaim("a"));
  handle_.claims.Add(*MakeClaim("b", true));
  handle_.claims.Add(*MakeClaim("p3-templated-x", false, "p3"));
  const std::vector<api::PodPtr> pods = {MakePod("p1", "a", "", false),
                                         MakePod("p2", "b", "", false),
                                         MakePod("p3", "a", "p3-templated-x"), MakePod("p4", "")};
  const std::vector<std::pair<framework::EventObject, framework::EventObject>> events = {
      {{}, MakeClaim("a")},
      {MakeClaim("a"), MakeClaim("a", true)},
      {MakeClaim("b", true), MakeClaim("b")},
      {MakeClaim("p3-templated-x"), MakeClaim("p3-templated-x", true)},
      {MakeClaim("b", true), {}},
      {MakeClaim("zz"), {}},
      {{}, MakeClaim("zz")},
  };
  const framework::QueueingHintFn& hint = For(EventResource::kResourceClaim).hint;
  int queued = 0;
  for (size_t e = 0; e < events.size(); ++e) {
    const auto& [o, n] = events[e];
    std::optional<std::set<std::string>> keys = EventKeys(o, n);
    for (const api::PodPtr& pod : pods) {
      if (hint(*pod, o, n) != QueueingHint::kQueue) continue;
      ++queued;
      if (!keys) continue;
      std::set<std::string> mine = PodKeys(*pod);
      bool shared = std::any_of(mine.begin(), mine.end(),
                                [&](const std::string& k) { return keys->count(k) > 0; });
      EXPECT_TRUE(shared) << "event " << e << " queues " << pod->metadata.name
                          << " but is narrowed away from it";
    }
  }
  EXPECT_GT(queued, 3) << "the cases must queue some pods to check anything";
}

TEST_F(HintsTest, DevicesClassesAndNodesSkipAPodMissingAClaim) {
  api::PodPtr pod = MakePod("p", "c", "p-templated-x");
  auto slice = std::make_shared<const api::ResourceSlice>(
      *dra::testing::SliceB("s", "n1", "n1").Devices({dra::testing::DeviceB("gpu-0")}).Obj());
  auto ask = [&](EventResource r) {
    framework::EventObject n = slice;
    if (r == EventResource::kNode) n = stowage::testing::BuildNode().Name("n1").Obj();
    if (r == EventResource::kDeviceClass) n = dra::testing::Class(dra::testing::kClass);
    return For(r).hint(*pod, {}, n);
  };
  for (EventResource r :
       {EventResource::kResourceSlice, EventResource::kDeviceClass, EventResource::kNode}) {
    EXPECT_EQ(ask(r), QueueingHint::kSkip) << "claim c is missing";
  }
  handle_.claims.Add(*MakeClaim("c"));
  EXPECT_EQ(ask(EventResource::kResourceSlice), QueueingHint::kSkip) << "the templated one too";
  handle_.claims.Add(*MakeClaim("p-templated-x", false, "p"));
  for (EventResource r :
       {EventResource::kResourceSlice, EventResource::kDeviceClass, EventResource::kNode}) {
    EXPECT_EQ(ask(r), QueueingHint::kQueue) << "every claim exists";
  }
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::hints_test
