// Consumable capacity: devices that allow several allocations are shared by claims, each share
// taking its request (rounded to the device's policy) of the device's capacities.
#include "pkg/dra/consumable_capacity.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "pkg/dra/allocator.h"
#include "tests/unit/dra/dra_builders.h"
#include "tests/unit/dra/fake_selector_compiler.h"

namespace stowage::dra::consumable_capacity_test {
namespace {

using namespace testing;  // NOLINT: the builders
using Outcome = Allocation::Outcome;

// Share IDs counted up, so results compare exactly.
ShareIdGenerator Counting() {
  auto n = std::make_shared<int>(0);
  return [n] { return "share-" + std::to_string(++*n); };
}

struct Case {
  std::string name;
  std::vector<ResourceClaimPtr> claims;
  std::vector<api::Device> devices;
  AllocatedState allocated = {};
  std::string error = "";
  Outcome outcome = Outcome::kAllocated;
  // Per claim: "request=device[#share][ name:amount...]".
  std::vector<std::vector<std::string>> want = {};
};

std::vector<std::string> Describe(const api::AllocationResult& result) {
  std::vector<std::string> out;
  for (const auto& r : result.results) {
    std::string s = r.request + "=" + r.device;
    if (r.share_id) s += "#" + *r.share_id;
    for (const auto& [name, q] : r.consumed_capacity.entries()) s += " " + name + ":" + q.String();
    out.push_back(s);
  }
  return out;
}

// Names the case in test output (and ctest's test names) instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> Cases() {
  const auto shared8 = DeviceB("d1").AllowMultiple().Capacity("mem", "8");
  AllocatedState six_used;
  six_used.shared_devices = {Id("n1", "d1")};
  six_used.aggregated_capacity[Id("n1", "d1")]["mem"] = api::Quantity::FromValue(6).Nanos();
  return {
      {.name = "shared device without capacities serves every claim",
       .claims = {Claim("a", {Request("r")}), Claim("b", {Request("r")})},
       .devices = {DeviceB("d1").AllowMultiple(), DeviceB("d2")},
       .want = {{"r=d1#share-1"}, {"r=d1#share-2"}}},
      {.name = "shares take what they request until the device is full",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "4")}),
                  Claim("b", {RequestCapacity("r", "mem", "4")}),
                  Claim("c", {RequestCapacity("r", "mem", "4")})},
       .devices = {shared8, DeviceB("d2").AllowMultiple().Capacity("mem", "8")},
       .want = {{"r=d1#share-1 mem:4"}, {"r=d1#share-2 mem:4"}, {"r=d2#share-3 mem:4"}}},
      {.name = "without a request a share takes the whole capacity",
       .claims = {Claim("a", {Request("r")}), Claim("b", {Request("r")})},
       .devices = {shared8},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "without a request a share takes the policy's default",
       .claims = {Claim("a", {Request("r")})},
       .devices =
           {DeviceB("d1").AllowMultiple().Capacity("mem", "8").Default("2").ValidRange("1", "1")},
       .want = {{"r=d1#share-1 mem:2"}}},
      {.name = "capacity held by allocated shares counts",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "4")})},
       .devices = {shared8, DeviceB("d2").AllowMultiple().Capacity("mem", "8")},
       .allocated = six_used,
       .want = {{"r=d2#share-1 mem:4"}}},
      {.name = "a request rounds up to the range's next step",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "2")})},
       .devices = {DeviceB("d1").AllowMultiple().Capacity("mem", "8").ValidRange("1", "2")},
       .want = {{"r=d1#share-1 mem:3"}}},
      {.name = "a request above the range's max does not fit",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "6")})},
       .devices = {DeviceB("d1").AllowMultiple().Capacity("mem", "8").ValidRange("1", "1", "4")},
       .outcome = Outcome::kUnsatisfiable},
      {.name = "a request rounds up to the next valid value",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "3")})},
       .devices = {DeviceB("d1").AllowMultiple().Capacity("mem", "8").ValidValues({"2", "4", "8"})},
       .want = {{"r=d1#share-1 mem:4"}}},
      {.name = "a device lacking the requested capacity is skipped",
       .claims = {Claim("a", {RequestCapacity("r", "gpu-mem", "1")})},
       .devices = {shared8, DeviceB("d2").AllowMultiple().Capacity("gpu-mem", "2")},
       .want = {{"r=d2#share-1 gpu-mem:1"}}},
      {.name = "an exclusive device is checked against its capacity too",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "16")})},
       .devices = {DeviceB("d1").Capacity("mem", "8"), DeviceB("d2").Capacity("mem", "16")},
       .want = {{"r=d2"}}},
      {.name = "all mode leaves out devices whose capacity is too small",
       .claims = {Claim("a", {[] {
                          auto r = RequestCapacity("r", "mem", "10");
                          r.exactly->allocation_mode = "All";
                          return r;
                        }()})},
       .devices = {DeviceB("d1").Capacity("mem", "8"), DeviceB("d2").Capacity("mem", "16")},
       .want = {{"r=d2"}}},
      {.name = "a negative request is an error",
       .claims = {Claim("a", {RequestCapacity("r", "mem", "-1")})},
       .devices = {shared8},
       .error = "claim default/a, request r: checking capacity for device "
                "driver.example.com/n1/d1: capacity \"mem\": capacity value is negative"},
  };
}

class CapacityTable : public ::testing::TestWithParam<Case> {};

TEST_P(CapacityTable, Allocates) {
  const Case& tc = GetParam();
  FakeSelectorCompiler compiler;
  Allocator allocator(Features{}, tc.allocated, {Class(kClass)},
                      {SliceB("s", "n1", "n1").Devices(tc.devices).Obj()}, compiler, Counting());
  StatusOr<Allocation> got = allocator.Allocate(Node("n1"), tc.claims);
  if (!tc.error.empty()) {
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().message(), tc.error);
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->outcome, tc.outcome);
  for (size_t i = 0; i < tc.want.size(); ++i) EXPECT_EQ(Describe(got->results[i]), tc.want[i]);
}

INSTANTIATE_TEST_SUITE_P(Cases, CapacityTable, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name;
                           for (char ch : info.param.name) {
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return name;
                         });

TEST(ConsumableCapacity, SharesOfOneDeviceDrawItsCountersOnce) {
  FakeSelectorCompiler compiler;
  auto counters = SliceB("counters", "n1", "n1").SliceCount(2).Counters("mem", "gb", 2).Obj();
  auto parts = SliceB("parts", "n1", "n1")
                   .SliceCount(2)
                   .Devices({DeviceB("p1").AllowMultiple().Consumes("mem", "gb", 2)})
                   .Obj();
  Allocator allocator(Features{}, {}, {Class(kClass)}, {counters, parts}, compiler, Counting());
  auto got =
      allocator.Allocate(Node("n1"), {Claim("a", {Request("r")}), Claim("b", {Request("r")})});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Outcome::kAllocated);
  EXPECT_EQ(Describe(got->results[1]), std::vector<std::string>{"r=p1#share-2"});
}

TEST(ConsumableCapacity, RequestsNeedTheFeature) {
  FakeSelectorCompiler compiler;
  Features features;
  features.consumable_capacity = false;
  Allocator allocator(features, {}, {Class(kClass)}, {}, compiler);
  auto got = allocator.Allocate(Node("n1"), {Claim("a", {RequestCapacity("r", "mem", "1")})});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "claim default/a, request r: has capacity requests, but the DRAConsumableCapacity "
            "feature is disabled");
}

TEST(ConsumableCapacity, DefaultShareIdsAreRandomUuids) {
  FakeSelectorCompiler compiler;
  Allocator allocator(Features{}, {}, {Class(kClass)},
                      {SliceB("s", "n1", "n1").Devices({DeviceB("d1").AllowMultiple()}).Obj()},
                      compiler);
  auto got =
      allocator.Allocate(Node("n1"), {Claim("a", {Request("r")}), Claim("b", {Request("r")})});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->outcome, Outcome::kAllocated);
  const std::string a = got->results[0].results[0].share_id.value_or("");
  const std::string b = got->results[1].results[0].share_id.value_or("");
  EXPECT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '4');
  EXPECT_NE(a, b);
}

TEST(ConsumableCapacity, FractionalRangesRoundInThousandths) {
  api::DeviceCapacity cap{.value = DeviceB::Q("1")};
  cap.request_valid_range =
      api::CapacityRange{.min = DeviceB::Q("100m"), .max = std::nullopt, .step = DeviceB::Q("50m")};
  api::ResourceList req({{"c", DeviceB::Q("120m")}});
  api::Map<api::DeviceCapacity> caps({{"c", cap}});
  auto fractional = ConsumedByRequest(req, caps, true);
  ASSERT_TRUE(fractional.ok());
  EXPECT_EQ((*fractional)[0].second.String(), "150m");
  // Whole units when the gate is off: steps of Value() = 1 from min's Value() = 1.
  auto whole = ConsumedByRequest(req, caps, false);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*whole)[0].second.String(), "1");
}

}  // namespace
}  // namespace stowage::dra::consumable_capacity_test
