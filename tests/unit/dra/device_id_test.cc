// DeviceRef: the search probes the sets of held devices with views into the slices; a ref must
// find exactly the id of its own device, or a held device would look free.
#include "pkg/dra/device_id.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/dra/allocator.h"

namespace stowage::dra::device_id_test {
namespace {

TEST(DeviceRefTest, FindsTheIdOfItsDeviceAndNoOther) {
  const DeviceIdSet held = {DeviceId{"drv.example.com", "pool", "dev"}};
  // The names live in strings of their own, as a slice's do.
  const std::string driver = "drv.example.com", pool = "pool", device = "dev";
  const DeviceRef ref{driver, pool, device};
  EXPECT_EQ(DeviceIdHash{}(ref), DeviceIdHash{}(DeviceId{driver, pool, device}));
  EXPECT_TRUE(held.find(ref) != held.end());
  // Names that differ only in where one ends and the next begins are other devices.
  for (const auto& [d, p, n] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"drv.example.com", "pool", "dev2"},
           {"drv.example.com", "poo", "ldev"},
           {"drv.example.co", "mpool", "dev"},
           {"other", "pool", "dev"}}) {
    EXPECT_TRUE(held.find(DeviceRef{d, p, n}) == held.end()) << d << "/" << p << "/" << n;
  }
}

// HoldsWhole and IsAllocated answer the same for a ref as for the id of the same device, in every
// part of the state: the overlay, the shared counts net of released holds, and the shares.
TEST(DeviceRefTest, AllocatedStateAnswersAsForTheId) {
  auto base = std::make_shared<DeviceCounts>();
  (*base)[DeviceId{"d", "p", "counted"}] = 1;
  (*base)[DeviceId{"d", "p", "released"}] = 1;
  (*base)[DeviceId{"d", "p", "twice"}] = 2;
  AllocatedState state(DeviceIdSet{DeviceId{"d", "p", "overlay"}});
  state.base = base;
  state.released[DeviceId{"d", "p", "released"}] = 1;
  state.released[DeviceId{"d", "p", "twice"}] = 1;
  state.shared_devices.insert(DeviceId{"d", "p", "shared"});
  state.aggregated_capacity[DeviceId{"d", "p", "consumed"}];
  for (const std::string name :
       {"counted", "released", "twice", "overlay", "shared", "consumed", "free"}) {
    const DeviceId id{"d", "p", name};
    const DeviceRef ref{"d", "p", name};
    EXPECT_EQ(state.HoldsWhole(ref), state.HoldsWhole(id)) << name;
    EXPECT_EQ(state.IsAllocated(ref), state.IsAllocated(id)) << name;
  }
  EXPECT_TRUE(state.HoldsWhole(DeviceRef{"d", "p", "twice"}));
  EXPECT_FALSE(state.HoldsWhole(DeviceRef{"d", "p", "released"}));
  EXPECT_TRUE(state.IsAllocated(DeviceRef{"d", "p", "consumed"}));
  EXPECT_FALSE(state.IsAllocated(DeviceRef{"d", "p", "free"}));
}

}  // namespace
}  // namespace stowage::dra::device_id_test
