// Table-driven tests of the structured allocator, after the cases of upstream's allocator tests.
#include "pkg/dra/allocator.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "pkg/dra/extended_resources.h"
#include "pkg/dra/pools.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"

namespace stowage::dra::allocator_test {
namespace {

using namespace testing;  // NOLINT: the builders
using Outcome = Allocation::Outcome;

struct Case {
  std::string name;
  std::vector<ResourceClaimPtr> claims;
  std::vector<ResourceSlicePtr> slices;
  std::vector<DeviceClassPtr> classes = {Class(kClass)};
  DeviceIdSet allocated = {};
  api::Node node = Node("n1");
  std::string error = "";  // set: Allocate fails with a message containing it
  Outcome outcome = Outcome::kAllocated;
  std::vector<std::vector<std::string>> devices = {};  // per claim: "request=pool/device"
};

std::vector<std::string> Picked(const api::AllocationResult& result) {
  std::vector<std::string> out;
  for (const auto& r : result.results) out.push_back(r.request + "=" + r.pool + "/" + r.device);
  return out;
}

ResourceSlicePtr TwoDevices(std::string node = "n1", std::string pool = "n1") {
  return SliceB("s-" + pool, node, pool).Devices({DeviceB("d1"), DeviceB("d2")}).Obj();
}

// Names the case in test output (and ctest's test names) instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> Cases() {
  const auto model_a = DeviceB("a1").Attr("model", Str("a"));
  const auto model_b1 = DeviceB("b1").Attr("model", Str("b"));
  const auto model_b2 = DeviceB("b2").Attr("model", Str("b"));
  const auto counters = SliceB("counters", "n1", "n1").Counters("mem", "gb", 4).SliceCount(2).Obj();
  const auto parts =
      SliceB("parts", "n1", "n1")
          .SliceCount(2)
          .Devices({DeviceB("p1").Consumes("mem", "gb", 2), DeviceB("p2").Consumes("mem", "gb", 2),
                    DeviceB("p3").Consumes("mem", "gb", 2)})
          .Obj();
  return {
      {.name = "empty: nothing to allocate", .claims = {}, .slices = {TwoDevices()}},
      {.name = "simple",
       .claims = {Claim("c", {Request("req")})},
       .slices = {TwoDevices()},
       .devices = {{"req=n1/d1"}}},
      {.name = "several claims take different devices",
       .claims = {Claim("c1", {Request("req")}), Claim("c2", {Request("req")})},
       .slices = {TwoDevices()},
       .devices = {{"req=n1/d1"}, {"req=n1/d2"}}},
      {.name = "not enough devices",
       .claims = {Claim("c", {Request("req", 3)})},
       .slices = {TwoDevices()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "slice of another node",
       .claims = {Claim("c", {Request("req")})},
       .slices = {TwoDevices("n2", "n2")},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "no slices",
       .claims = {Claim("c", {Request("req")})},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "already allocated devices are skipped",
       .claims = {Claim("c", {Request("req")})},
       .slices = {TwoDevices()},
       .allocated = {Id("n1", "d1")},
       .devices = {{"req=n1/d2"}}},
      {.name = "backtracking across claims: the small claim moves so the large one fits",
       .claims = {Claim("small", {Request("req")}),
                  Claim("large", {Request("req", 2)},
                        {MatchAttribute("driver.example.com/model")})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_b1, model_b2, model_a}).Obj()},
       .devices = {{"req=n1/a1"}, {"req=n1/b1", "req=n1/b2"}}},
      {.name = "all mode takes every matching device",
       .claims = {Claim("c", {RequestAll("req")})},
       .slices = {TwoDevices()},
       .devices = {{"req=n1/d1", "req=n1/d2"}}},
      {.name = "all mode fails when one of them is allocated",
       .claims = {Claim("c", {RequestAll("req")})},
       .slices = {TwoDevices()},
       .allocated = {Id("n1", "d2")},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "all mode without devices cannot allocate",
       .claims = {Claim("c", {RequestAll("req")})},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "all mode on an incomplete pool is an error",
       .claims = {Claim("c", {RequestAll("req")})},
       .slices = {SliceB("s", "n1", "n1").SliceCount(2).Devices({DeviceB("d1")}).Obj()},
       .error = "asks for all devices, but resource pool driver.example.com/n1 is currently being "
                "updated"},
      {.name = "all mode plus another request of the same devices",
       .claims = {Claim("c", {RequestAll("all"), Request("one")})},
       .slices = {TwoDevices()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "matchAttribute across requests backtracks to a matching pair",
       .claims = {Claim("c", {Request("r1"), Request("r2")},
                        {MatchAttribute("driver.example.com/model")})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_a, model_b1, model_b2}).Obj()},
       .devices = {{"r1=n1/b1", "r2=n1/b2"}}},
      {.name = "matchAttribute on a missing attribute",
       .claims = {Claim("c", {Request("r1")}, {MatchAttribute("driver.example.com/numa")})},
       .slices = {TwoDevices()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "matchAttribute limited to one request",
       .claims = {Claim("c", {Request("r1"), Request("r2")},
                        {MatchAttribute("driver.example.com/model", {"r1"})})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_a, DeviceB("plain")}).Obj()},
       .devices = {{"r1=n1/a1", "r2=n1/plain"}}},
      {.name = "distinctAttribute",
       .claims = {Claim("c", {Request("r", 2)}, {DistinctAttribute("driver.example.com/model")})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_b1, model_b2, model_a}).Obj()},
       .devices = {{"r=n1/b1", "r=n1/a1"}}},
      {.name = "all mode with a constraint it cannot meet is an error",
       .claims = {Claim("c", {RequestAll("r")}, {MatchAttribute("driver.example.com/model")})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_a, model_b1}).Obj()},
       .error = "cannot add device driver.example.com/n1/b1 because a claim constraint would not "
                "be satisfied"},
      {.name = "firstAvailable picks the first satisfiable subrequest",
       .claims = {Claim("c", {FirstAvailable("req", {Sub("three", 3), Sub("one", 1)})})},
       .slices = {TwoDevices()},
       .devices = {{"req/one=n1/d1"}}},
      {.name = "firstAvailable with no satisfiable subrequest",
       .claims = {Claim("c", {FirstAvailable("req", {Sub("three", 3), Sub("four", 4)})})},
       .slices = {TwoDevices()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "firstAvailable backtracks into a later subrequest for a later request",
       .claims = {Claim(
           "c", {FirstAvailable("first", {Sub("two", 2), Sub("one", 1)}), Request("second")})},
       .slices = {TwoDevices()},
       .devices = {{"first/one=n1/d1", "second=n1/d2"}}},
      {.name = "constraint naming a subrequest",
       .claims = {Claim("c", {FirstAvailable("r1", {Sub("x", 1)}), Request("r2")},
                        {MatchAttribute("driver.example.com/model", {"r1/x", "r2"})})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_a, model_b1, model_b2}).Obj()},
       .devices = {{"r1/x=n1/b1", "r2=n1/b2"}}},
      {.name = "tainted devices are skipped",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "n1", "n1")
                      .Devices({DeviceB("d1").Taint("k", "NoSchedule"), DeviceB("d2")})
                      .Obj()},
       .devices = {{"req=n1/d2"}}},
      {.name = "NoExecute taints on every device",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "n1", "n1")
                      .Devices({DeviceB("d1").Taint("k", "NoExecute"),
                                DeviceB("d2").Taint("k", "NoSchedule")})
                      .Obj()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "taint effect None does not prevent allocation",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "n1", "n1").Devices({DeviceB("d1").Taint("k", "None")}).Obj()},
       .devices = {{"req=n1/d1"}}},
      {.name = "partitionable: devices share the pool's counters",
       .claims = {Claim("c", {Request("req", 2)})},
       .slices = {counters, parts},
       .devices = {{"req=n1/p1", "req=n1/p2"}}},
      {.name = "partitionable: counters exhausted",
       .claims = {Claim("c", {Request("req", 3)})},
       .slices = {counters, parts},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "partitionable: counters drawn by devices allocated elsewhere",
       .claims = {Claim("c", {Request("req", 2)})},
       .slices = {counters, parts},
       .allocated = {Id("n1", "p3")},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "partitionable: unknown counter set makes the pool invalid",
       .claims = {Claim("c", {Request("req")})},
       .slices =
           {SliceB("parts", "n1", "n1").Devices({DeviceB("p1").Consumes("nope", "gb", 1)}).Obj()},
       .outcome = Outcome::kFailedOnNode},
      {.name = "node selector slice matching the node's labels",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "", "net").Selector("zone", "a").Devices({DeviceB("d1")}).Obj()},
       .node = Node("n1", {{"zone", "a"}}),
       .devices = {{"req=net/d1"}}},
      {.name = "node selector slice not matching",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "", "net").Selector("zone", "b").Devices({DeviceB("d1")}).Obj()},
       .node = Node("n1", {{"zone", "a"}}),
       .outcome = Outcome::kUnsatisfiable},
      {.name = "per-device node selection",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "", "p")
                      .PerDeviceNodeSelection()
                      .Devices({DeviceB("d1").OnNode("n2"), DeviceB("d2").OnNode("n1")})
                      .Obj()},
       .devices = {{"req=p/d2"}}},
      {.name = "incomplete pool is not used",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "n1", "n1").SliceCount(2).Devices({DeviceB("d1")}).Obj()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "older generation of a pool is ignored",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("old", "n1", "n1").Devices({DeviceB("d-old")}).Obj(),
                  SliceB("new", "n1", "n1").Generation(2).Devices({DeviceB("d-new")}).Obj()},
       .devices = {{"req=n1/d-new"}}},
      {.name = "pool obsoleted by a newer generation on another node's view",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("a", "", "shared").AllNodes().SliceCount(2).Devices({DeviceB("d1")}).Obj(),
                  SliceB("b", "n2", "shared").Generation(2).Devices({DeviceB("d2")}).Obj()},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "pool spread over nodes is complete with the other node's slice",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("a", "", "shared").AllNodes().SliceCount(2).Devices({DeviceB("d1")}).Obj(),
                  SliceB("b", "n2", "shared").SliceCount(2).Devices({DeviceB("d2")}).Obj()},
       .devices = {{"req=shared/d1"}}},
      {.name = "order: pools by driver and name, slices by name, devices in slice order",
       .claims = {Claim("c", {Request("req", 4)})},
       .slices =
           {SliceB("z", "n1", "pool-b").Devices({DeviceB("b1")}).Obj(),
            SliceB("s2", "n1", "pool-a").SliceCount(2).Devices({DeviceB("y"), DeviceB("x")}).Obj(),
            SliceB("s1", "n1", "pool-a").SliceCount(2).Devices({DeviceB("z")}).Obj(),
            SliceB("o", "n1", "pool-0").Driver("a.example.com").Devices({DeviceB("o1")}).Obj()},
       .devices = {{"req=pool-0/o1", "req=pool-a/z", "req=pool-a/y", "req=pool-a/x"}}},
      {.name = "duplicate device names make the pool invalid",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s1", "n1", "n1").SliceCount(2).Devices({DeviceB("d1")}).Obj(),
                  SliceB("s2", "n1", "n1").SliceCount(2).Devices({DeviceB("d1")}).Obj()},
       .outcome = Outcome::kFailedOnNode},
      {.name = "class selector filters devices",
       .claims = {Claim("c", {Request("req")})},
       .slices = {SliceB("s", "n1", "n1").Devices({model_a, model_b1}).Obj()},
       .classes = {Class(kClass, {"device.attributes[\"driver.example.com\"].model == \"b\""})},
       .devices = {{"req=n1/b1"}}},
      {.name = "unknown class",
       .claims = {Claim("c", {Request("req", 1, {}, "nope")})},
       .slices = {TwoDevices()},
       .error = "claim default/c, request req: could not retrieve device class nope: "
                "deviceclass.resource.k8s.io \"nope\" not found"},
      {.name = "too many devices in one request",
       .claims = {Claim("c", {Request("req", 33)})},
       .slices = {TwoDevices()},
       .error = "claim default/c, request req: adding 33 devices exceeds the claim limit of 32, "
                "with 0 already accounted for"},
      // Issue 24's bad input: a claim for 10,000 devices is refused before any search.
      {.name = "a claim for 10,000 devices",
       .claims = {Claim("c", {Request("req", 10000)})},
       .slices = {TwoDevices()},
       .error = "claim default/c, request req: adding 10000 devices exceeds the claim limit of "
                "32, with 0 already accounted for"},
      {.name = "too many devices over the requests of a claim",
       .claims = {Claim("c", {Request("a", 16), Request("b", 17)})},
       .slices = {TwoDevices()},
       .error = "request b: adding 17 devices exceeds the claim limit of 32, with 16 already"},
      {.name = "unknown allocation mode",
       .claims = {[] {
         auto c = Claim("c", {Request("req")});
         const_cast<api::ResourceClaim&>(*c).devices.requests[0].exactly->allocation_mode = "Some";
         return c;
       }()},
       .slices = {TwoDevices()},
       .error = "claim default/c, request req: unsupported count mode Some"},
      {.name = "empty constraint",
       .claims = {Claim("c", {Request("req")}, {api::DeviceConstraint{}})},
       .slices = {TwoDevices()},
       .error = "claim default/c, constraint #0: empty constraint (unsupported constraint type?)"},
      {.name = "class selector that does not compile",
       .claims = {Claim("c", {Request("req")})},
       .slices = {TwoDevices()},
       .classes = {Class(kClass, {"compile-error"})},
       .error = "class gpu: selector #0: CEL compile error: ERROR: <input>:1:1: Syntax error"},
      {.name = "request selector that fails at runtime",
       .claims = {Claim("c", {Request("req", 1, {"true", "runtime-error"})})},
       .slices = {TwoDevices()},
       .error = "claim default/c: selector #1 on device driver.example.com/n1/d1: CEL runtime "
                "error: no such key: boom"},
      {.name = "a bad selector without devices to check is no error",
       .claims = {Claim("c", {Request("req", 1, {"compile-error"})})},
       .outcome = Outcome::kUnsatisfiable},
  };
}

class AllocatorTable : public ::testing::TestWithParam<Case> {};

TEST_P(AllocatorTable, Allocates) {
  const Case& tc = GetParam();
  FakeSelectorCompiler compiler;
  Allocator allocator(Features{}, tc.allocated, tc.classes, tc.slices, compiler);
  StatusOr<Allocation> got = allocator.Allocate(tc.node, tc.claims);
  if (!tc.error.empty()) {
    ASSERT_FALSE(got.ok()) << "want error containing: " << tc.error;
    EXPECT_NE(got.status().message().find(tc.error), std::string_view::npos)
        << got.status().message();
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->outcome, tc.outcome) << got->message;
  if (tc.outcome != Outcome::kAllocated) {
    EXPECT_TRUE(got->results.empty());
    return;
  }
  ASSERT_EQ(got->results.size(), tc.claims.size());
  for (size_t i = 0; i < tc.devices.size(); ++i) {
    EXPECT_EQ(Picked(got->results[i]), tc.devices[i]) << "claim " << i;
  }
}

// A selector's answer for a device is kept in the Inventory that Allocators share, so a cycle
// does not evaluate CEL again for devices an earlier cycle has seen; a runtime error is not kept.
TEST(InventoryTest, SelectorAnswersAreKeptAcrossAllocators) {
  FakeSelectorCompiler compiler;
  auto inventory = std::make_shared<const Inventory>(
      std::vector<DeviceClassPtr>{Class(kClass, {R"(device.driver == "driver.example.com")"})},
      std::vector<ResourceSlicePtr>{TwoDevices()}, compiler);
  const std::vector<ResourceClaimPtr> two = {Claim("c", {Request("req", 2)})};
  const int before = FakeSelector::evaluations;
  for (int cycle = 0; cycle < 3; ++cycle) {
    Allocator allocator(Features{}, {}, inventory);
    StatusOr<Allocation> got = allocator.Allocate(Node("n1"), two);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->outcome, Allocation::Outcome::kAllocated);
  }
  EXPECT_EQ(FakeSelector::evaluations - before, 2) << "one evaluation per device, not per cycle";
  EXPECT_EQ(compiler.compiles, 1);

  const std::vector<ResourceClaimPtr> failing = {
      Claim("c", {Request("req", 1, {"runtime-error"})})};
  const int errors_before = FakeSelector::evaluations;
  for (int cycle = 0; cycle < 2; ++cycle) {
    Allocator allocator(Features{}, {}, inventory);
    EXPECT_FALSE(allocator.Allocate(Node("n1"), failing).ok());
  }
  EXPECT_EQ(FakeSelector::evaluations - errors_before, 2) << "errors are evaluated again";
}

std::vector<std::string> PoolNames(const PoolList& pools) {
  std::vector<std::string> names;
  for (const Pool& pool : pools) names.push_back(pool.id.pool);
  return names;
}

// The pools a node sees are kept per node name while they depend on its name alone, and
// gathered again for each node once a slice selects nodes by label.
TEST(InventoryTest, PoolsAreKeptPerNodeUnlessASliceSelectsByLabel) {
  FakeSelectorCompiler compiler;
  const Inventory by_name({},
                          {SliceB("local", "n1", "n1").Devices({DeviceB("a")}).Obj(),
                           SliceB("everywhere", "", "net").AllNodes().Devices({DeviceB("e")}).Obj(),
                           SliceB("per-device", "", "pd")
                               .PerDeviceNodeSelection()
                               .Devices({DeviceB("g").OnNode("n3")})
                               .Obj()},
                          compiler);
  PoolList scratch;
  auto first = by_name.PoolsFor(Node("n1"), Features{}, scratch);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_NE(*first, &scratch) << "kept in the Inventory";
  EXPECT_EQ(PoolNames(**first), (std::vector<std::string>{"n1", "net"}));
  auto again = by_name.PoolsFor(Node("n1", {{"zone", "b"}}), Features{}, scratch);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first) << "kept, not gathered again";
  auto n2 = by_name.PoolsFor(Node("n2"), Features{}, scratch);
  ASSERT_TRUE(n2.ok());
  EXPECT_EQ(PoolNames(**n2), std::vector<std::string>{"net"});
  auto n3 = by_name.PoolsFor(Node("n3"), Features{}, scratch);
  ASSERT_TRUE(n3.ok());
  EXPECT_EQ(PoolNames(**n3), (std::vector<std::string>{"net", "pd"})) << "a device names n3";
  auto n4 = by_name.PoolsFor(Node("n4"), Features{}, scratch);
  ASSERT_TRUE(n4.ok());
  EXPECT_EQ(*n4, *n2) << "nodes no slice names share one list";
  Features without_partitions;
  without_partitions.partitionable_devices = false;
  auto other_features = by_name.PoolsFor(Node("n3"), without_partitions, scratch);
  ASSERT_TRUE(other_features.ok());
  EXPECT_EQ(*other_features, &scratch) << "pools are kept for the Inventory's features only";
  EXPECT_EQ(PoolNames(scratch), std::vector<std::string>{"net"}) << "no per-device selection";

  const Inventory by_label(
      {},
      {SliceB("local", "n1", "n1").Devices({DeviceB("a")}).Obj(),
       SliceB("zone-a", "", "zone").Selector("zone", "a").Devices({DeviceB("f")}).Obj()},
      compiler);
  auto in_a = by_label.PoolsFor(Node("n1", {{"zone", "a"}}), Features{}, scratch);
  ASSERT_TRUE(in_a.ok());
  EXPECT_EQ(PoolNames(**in_a), (std::vector<std::string>{"n1", "zone"}));
  auto in_b = by_label.PoolsFor(Node("n1", {{"zone", "b"}}), Features{}, scratch);
  ASSERT_TRUE(in_b.ok());
  EXPECT_EQ(PoolNames(**in_b), std::vector<std::string>{"n1"}) << "the node's labels changed";
}

// The devices NodeResourcesFit weighs for an extended resource a class provides: those the node
// can use (its own slices, all-nodes and matching selector slices, per-device placement), that
// the class's selectors accept, and of them those some claim holds.
TEST(CountClassDevicesTest, CountsTheClassDevicesTheNodeCanUseAndThoseHeld) {
  FakeSelectorCompiler compiler;
  const std::vector<ResourceSlicePtr> slices = {
      SliceB("local", "n1", "n1")
          .Devices({DeviceB("a").Attr("model", Str("x")), DeviceB("b").Attr("model", Str("y")),
                    DeviceB("c").Attr("model", Str("x"))})
          .Obj(),
      SliceB("other-node", "n2", "n2").Devices({DeviceB("d").Attr("model", Str("x"))}).Obj(),
      SliceB("everywhere", "", "net")
          .AllNodes()
          .Devices({DeviceB("e").Attr("model", Str("x"))})
          .Obj(),
      SliceB("zone-a", "", "zone")
          .Selector("zone", "a")
          .Devices({DeviceB("f").Attr("model", Str("x"))})
          .Obj(),
      SliceB("per-device", "", "pd")
          .PerDeviceNodeSelection()
          .Devices({DeviceB("g").Attr("model", Str("x")).OnNode("n1"),
                    DeviceB("h").Attr("model", Str("x")).OnNode("n2")})
          .Obj()};
  const Inventory inventory({}, slices, compiler);
  const auto cls = Class("gpu", {R"(device.attributes["driver.example.com"].model == "x")"});
  AllocatedState held(DeviceIdSet{Id("n1", "a"), Id("n2", "d")});
  held.shared_devices.insert(DeviceId{kDriver, "net", "e"});

  auto zone_a = CountClassDevices(inventory, held, Node("n1", {{"zone", "a"}}), *cls);
  ASSERT_TRUE(zone_a.ok()) << zone_a.status();
  // a, c (local, model x), e (all nodes), f (zone a), g (per device, on n1); b is model y.
  EXPECT_EQ(zone_a->capacity, 5);
  EXPECT_EQ(zone_a->allocated, 2) << "a whole, e shared";

  auto zone_b = CountClassDevices(inventory, held, Node("n1", {{"zone", "b"}}), *cls);
  ASSERT_TRUE(zone_b.ok());
  EXPECT_EQ(zone_b->capacity, 4) << "the zone-a slice is not the node's";

  auto n2 = CountClassDevices(inventory, held, Node("n2"), *Class("any"));
  ASSERT_TRUE(n2.ok());
  EXPECT_EQ(n2->capacity, 3) << "d, e, h: a class without selectors takes every device";
  EXPECT_EQ(n2->allocated, 2);

  auto failing = CountClassDevices(inventory, held, Node("n1"), *Class("bad", {"runtime-error"}));
  EXPECT_FALSE(failing.ok()) << "a selector that fails leaves the resource uncounted";
}

INSTANTIATE_TEST_SUITE_P(Cases, AllocatorTable, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name;
                           for (char ch : info.param.name) {
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace stowage::dra::allocator_test
