// What an AllocationResult carries besides the devices: admin access, tolerations, binding
// conditions and the node selector; and the DeviceTaintRules and selector caching around it.
#include <gtest/gtest.h>

#include <limits>
#include <stop_token>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "pkg/dra/taints.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"

namespace stowage::dra::allocation_result_test {
namespace {

using namespace testing;  // NOLINT: the builders

StatusOr<Allocation> AllocateOn(const std::vector<ResourceClaimPtr>& claims,
                                const std::vector<ResourceSlicePtr>& slices,
                                DeviceIdSet allocated = {}, const api::Node& node = Node("n1")) {
  static FakeSelectorCompiler compiler;
  Allocator allocator(Features{}, std::move(allocated), {Class(kClass)}, slices, compiler);
  return allocator.Allocate(node, claims);
}

ResourceSlicePtr TwoDevicesOnN1() {
  return SliceB("s", "n1", "n1").Devices({DeviceB("d1"), DeviceB("d2")}).Obj();
}

api::NodeSelector ByName(const std::string& node) {
  api::NodeSelector s;
  s.terms.push_back({.match_expressions = {},
                     .match_fields = {{.key = "metadata.name", .op = "In", .values = {node}}}});
  return s;
}

ResourceClaimPtr Admin(ResourceClaimPtr claim, size_t request = 0) {
  const_cast<api::ResourceClaim&>(*claim).devices.requests[request].exactly->admin_access = true;
  return claim;
}

TEST(AdminAccess, SharesADeviceAnotherClaimIsTaking) {
  auto got = AllocateOn({Claim("user", {Request("req")}), Admin(Claim("admin", {Request("req")}))},
                        {TwoDevicesOnN1()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results[0].device, "d1");
  EXPECT_FALSE(got->results[0].results[0].admin_access.has_value());
  EXPECT_EQ(got->results[1].results[0].device, "d1");
  EXPECT_EQ(got->results[1].results[0].admin_access, std::optional<bool>(true));
}

TEST(AdminAccess, AllModeConflictsWithTheSameClaimsOtherRequest) {
  auto claim = Admin(Admin(Claim("c", {Request("one"), RequestAll("all")})), 1);
  auto got = AllocateOn({claim}, {TwoDevicesOnN1()});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->outcome, Allocation::Outcome::kUnsatisfiable);
}

TEST(AdminAccess, TaintsStillApply) {
  auto got =
      AllocateOn({Admin(Claim("c", {Request("req")}))},
                 {SliceB("s", "n1", "n1").Devices({DeviceB("d1").Taint("k", "NoSchedule")}).Obj()},
                 {Id("n1", "d1")});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->outcome, Allocation::Outcome::kUnsatisfiable);
}

TEST(PrioritizedList, AnOversizedSubrequestIsSkipped) {
  auto got = AllocateOn(
      {Claim("c", {Request("first"),
                   FirstAvailable("second", {Sub("huge", std::numeric_limits<int64_t>::max()),
                                             Sub("one", 1)})})},
      {TwoDevicesOnN1()});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  ASSERT_EQ(got->results[0].results.size(), 2u);
  EXPECT_EQ(got->results[0].results[1].request, "second/one");
  EXPECT_EQ(got->results[0].results[1].device, "d2");
}

TEST(Limits, ThirtyTwoDevicesFitOneClaim) {
  std::vector<api::Device> devices;
  for (int i = 0; i < 40; ++i) devices.push_back(DeviceB("d" + std::to_string(i)));
  auto got = AllocateOn({Claim("c", {Request("a", 16), Request("b", 16)})},
                        {SliceB("s", "n1", "n1").Devices(devices).Obj()});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results.size(), 32u);
}

TEST(Search, StopsWhenAskedTo) {
  std::stop_source stop;
  stop.request_stop();
  FakeSelectorCompiler compiler;
  Allocator allocator(Features{}, {}, {Class(kClass)}, {TwoDevicesOnN1()}, compiler);
  auto got = allocator.Allocate(Node("n1"), {Claim("c", {Request("req")})}, stop.get_token());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCancelled);
}

TEST(Search, ManyDevicesWithManyAttributes) {
  // A slice as large as the API allows: 128 devices of 64 attributes each; the claim wants 32
  // that agree on an attribute only the last 32 devices share.
  std::vector<api::Device> devices;
  for (int i = 0; i < 128; ++i) {
    DeviceB d("d" + std::to_string(i));
    for (int a = 0; a < 63; ++a) d.Attr("attr" + std::to_string(a), Int(a));
    d.Attr("group", Int(i < 96 ? i : 96));
    devices.push_back(d);
  }
  auto got =
      AllocateOn({Claim("c", {Request("req", 32)}, {MatchAttribute("driver.example.com/group")})},
                 {SliceB("s", "n1", "n1").Devices(devices).Obj()});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results.front().device, "d96");
  EXPECT_EQ(got->results[0].results.back().device, "d127");
}

TEST(AllocationResult, NodeLocalDevicesPinTheNode) {
  auto got = AllocateOn({Claim("c", {Request("req")})},
                        {SliceB("s", "n1", "n1").Devices({DeviceB("d1")}).Obj()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  const api::DeviceRequestAllocationResult& r = got->results[0].results[0];
  EXPECT_EQ(r.driver, kDriver);
  EXPECT_EQ(r.pool, "n1");
  EXPECT_EQ(r.device, "d1");
  EXPECT_FALSE(r.admin_access.has_value());
  EXPECT_EQ(got->results[0].node_selector, ByName("n1"));
}

TEST(AllocationResult, AllNodesDevicesNeedNoSelector) {
  auto got = AllocateOn({Claim("c", {Request("req")})},
                        {SliceB("s", "", "net").AllNodes().Devices({DeviceB("d1")}).Obj()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_FALSE(got->results[0].node_selector.has_value());
}

TEST(AllocationResult, SliceSelectorsAreMergedIntoOneTerm) {
  auto got = AllocateOn(
      {Claim("c", {Request("req", 3)})},
      {SliceB("a", "", "net-a").Selector("zone", "a").Devices({DeviceB("d1"), DeviceB("d2")}).Obj(),
       SliceB("b", "", "net-b").Selector("rack", "r1").Devices({DeviceB("d3")}).Obj()},
      {}, Node("n1", {{"rack", "r1"}, {"zone", "a"}}));
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  ASSERT_TRUE(got->results[0].node_selector.has_value());
  const auto& terms = got->results[0].node_selector->terms;
  ASSERT_EQ(terms.size(), 1u);
  ASSERT_EQ(terms[0].match_expressions.size(), 2u);  // zone once, though two devices carry it
  EXPECT_EQ(terms[0].match_expressions[0].key, "zone");
  EXPECT_EQ(terms[0].match_expressions[1].key, "rack");
}

// Filter keeps only the picks and makes results for the chosen node: they must be Allocate's.
TEST(AllocationResult, ChosenPicksMakeAllocatesResults) {
  static FakeSelectorCompiler compiler;
  Allocator allocator(
      Features{}, DeviceIdSet{}, {Class(kClass)},
      {TwoDevicesOnN1(), SliceB("net", "", "net").AllNodes().Devices({DeviceB("x1")}).Obj()},
      compiler);
  const std::vector<ResourceClaimPtr> claims = {
      Claim("a", {FirstAvailable("req", {Sub("big", 3), Sub("small", 1)})}),
      Admin(Claim("b", {Request("one")})), Claim("c", {Request("two", 2)})};
  auto whole = allocator.Allocate(Node("n1"), claims);
  auto chosen = allocator.Choose(Node("n1"), claims);
  ASSERT_TRUE(whole.ok() && chosen.ok());
  ASSERT_EQ(chosen->outcome, Allocation::Outcome::kAllocated);
  EXPECT_TRUE(chosen->results.empty());
  ASSERT_EQ(chosen->picks.size(), 4u);
  EXPECT_EQ(*chosen->picks[0].request, "req");
  EXPECT_EQ(*chosen->picks[0].sub, "small");
  auto made = ResultsOf(chosen->picks, claims.size(), "n1", Features{});
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(*made, whole->results);
  EXPECT_EQ((*made)[0].results[0].request, "req/small");
  EXPECT_EQ((*made)[2].results[1].device, "x1");
}

// Upstream makes the results in Filter, so a slice selector of two terms fails the search there.
TEST(AllocationResult, ASelectorOfTwoTermsFailsTheSearchItself) {
  static FakeSelectorCompiler compiler;
  auto slice = SliceB("a", "", "net").Selector("zone", "a").Devices({DeviceB("d1")}).Obj();
  auto& selector = *const_cast<api::ResourceSlice&>(*slice).node_selector;
  selector.terms.push_back(selector.terms[0]);
  Allocator allocator(Features{}, DeviceIdSet{}, {Class(kClass)}, {slice}, compiler);
  auto chosen = allocator.Choose(Node("n1", {{"zone", "a"}}), {Claim("c", {Request("req")})});
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().message(),
            "create NodeSelector for claim c: unsupported ResourceSlice.NodeSelector with 2 terms");
}

TEST(AllocationResult, AdminAccessIgnoresOtherClaimsAllocations) {
  auto claim = Claim("c", {Request("req")});
  const_cast<api::ResourceClaim&>(*claim).devices.requests[0].exactly->admin_access = true;
  auto got = AllocateOn({claim}, {SliceB("s", "n1", "n1").Devices({DeviceB("d1")}).Obj()},
                        {Id("n1", "d1")});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results[0].device, "d1");
  EXPECT_EQ(got->results[0].results[0].admin_access, std::optional<bool>(true));
}

TEST(AllocationResult, AdminAccessStillTakesADeviceOncePerClaim) {
  auto claim = Claim("c", {Request("req", 2)});
  const_cast<api::ResourceClaim&>(*claim).devices.requests[0].exactly->admin_access = true;
  auto got = AllocateOn({claim}, {SliceB("s", "n1", "n1").Devices({DeviceB("d1")}).Obj()});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->outcome, Allocation::Outcome::kUnsatisfiable);
}

TEST(AllocationResult, TolerationsOfTheRequestAreRecorded) {
  auto claim = Claim("c", {Request("req")});
  api::DeviceToleration toleration{.key = "k", .op = "Exists", .value = "", .effect = "NoSchedule"};
  const_cast<api::ResourceClaim&>(*claim).devices.requests[0].exactly->tolerations = {toleration};
  auto got = AllocateOn(
      {claim}, {SliceB("s", "n1", "n1").Devices({DeviceB("d1").Taint("k", "NoSchedule")}).Obj()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results[0].tolerations, std::vector<api::DeviceToleration>{toleration});
}

TEST(AllocationResult, PoolsWithBindingConditionsComeLast) {
  auto got = AllocateOn(
      {Claim("c", {Request("req")})},
      {SliceB("a", "n1", "a-pool").Devices({DeviceB("bound").BindingConditions({"ready"})}).Obj(),
       SliceB("b", "n1", "b-pool").Devices({DeviceB("plain")}).Obj()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results[0].device, "plain");

  got = AllocateOn(
      {Claim("c", {Request("req")})},
      {SliceB("a", "n1", "a-pool").Devices({DeviceB("bound").BindingConditions({"ready"})}).Obj()});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(got->results[0].results[0].binding_conditions, std::vector<std::string>{"ready"});
}

TEST(Taints, TolerationMatching) {
  api::DeviceTaint taint{.key = "k", .value = "v", .effect = "NoExecute"};
  auto tol = [](std::string key, std::string op, std::string value, std::string effect) {
    return api::DeviceToleration{.key = key, .op = op, .value = value, .effect = effect};
  };
  EXPECT_TRUE(ToleratesTaint(tol("k", "", "v", ""), taint));  // empty op is Equal
  EXPECT_FALSE(ToleratesTaint(tol("k", "Equal", "w", ""), taint));
  EXPECT_TRUE(ToleratesTaint(tol("", "Exists", "", ""), taint));  // any key
  EXPECT_FALSE(ToleratesTaint(tol("k", "Exists", "", "NoSchedule"), taint));
  EXPECT_FALSE(ToleratesTaint(tol("k", "Bogus", "v", ""), taint));
}

TEST(Taints, DeviceTaintRulesTaintTheDevicesTheyName) {
  api::ResourceSlice slice = *SliceB("s", "n1", "n1").Devices({DeviceB("d1"), DeviceB("d2")}).Obj();
  api::DeviceTaintRule rule;
  rule.device = "d1";
  rule.taint = {.key = "broken", .value = "", .effect = "NoSchedule"};
  api::DeviceTaintRule other_pool;
  other_pool.pool = "elsewhere";
  other_pool.taint = rule.taint;
  auto tainted =
      std::make_shared<api::ResourceSlice>(ApplyDeviceTaintRules(slice, {rule, other_pool}));
  EXPECT_EQ(tainted->devices[0].taints.size(), 1u);
  EXPECT_TRUE(tainted->devices[1].taints.empty());
  auto got = AllocateOn({Claim("c", {Request("req")})}, {tainted});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->results[0].results[0].device, "d2");
}

TEST(Selectors, EachExpressionIsCompiledOncePerAllocator) {
  FakeSelectorCompiler compiler;
  Allocator allocator(
      Features{}, {}, {Class(kClass, {"true"})},
      {SliceB("s", "n1", "n1").Devices({DeviceB("d1"), DeviceB("d2"), DeviceB("d3")}).Obj()},
      compiler);
  auto got = allocator.Allocate(
      Node("n1"), {Claim("c", {Request("req", 3, {"device.driver == \"driver.example.com\""})})});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  EXPECT_EQ(compiler.compiles, 2);
  // Another node, another Allocate: the compiled selectors are reused.
  auto again = allocator.Allocate(Node("n2"), {Claim("c", {Request("req")})});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(compiler.compiles, 2);
}

TEST(Features, SubrequestsNeedPrioritizedList) {
  FakeSelectorCompiler compiler;
  Features features;
  features.prioritized_list = false;
  Allocator allocator(features, {}, {Class(kClass)}, {}, compiler);
  auto got = allocator.Allocate(Node("n1"), {Claim("c", {FirstAvailable("req", {Sub("a", 1)})})});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "claim default/c, request req: has subrequests, but the DRAPrioritizedList feature is "
            "disabled");
}

TEST(Features, TaintsIgnoredWhenDisabled) {
  FakeSelectorCompiler compiler;
  Features features;
  features.device_taints = false;
  Allocator allocator(
      features, {}, {Class(kClass)},
      {SliceB("s", "n1", "n1").Devices({DeviceB("d1").Taint("k", "NoSchedule")}).Obj()}, compiler);
  auto got = allocator.Allocate(Node("n1"), {Claim("c", {Request("req")})});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->outcome, Allocation::Outcome::kAllocated);
}

}  // namespace
}  // namespace stowage::dra::allocation_result_test
