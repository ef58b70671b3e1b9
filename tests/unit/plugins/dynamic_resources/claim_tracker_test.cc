// ClaimTracker: the informer's claims with the allocations in flight and just written over them.
// The tracker keeps its counts between calls and updates them from the claims that changed; a
// model that gathers everything from scratch, as upstream does per pod, is the oracle.
#include "pkg/plugins/dynamic_resources/claim_tracker.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pkg/dra/extended_resources.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::dynamic_resources::claim_tracker_test {
namespace {

using stowage::testing::FakeLister;

api::ResourceClaim Claim(std::string name, std::string uid, std::string rv) {
  api::ResourceClaim c;
  c.metadata.namespace_ = "default";
  c.metadata.name = std::move(name);
  c.metadata.uid = std::move(uid);
  c.metadata.resource_version = std::move(rv);
  return c;
}

// The tracker keeps the informer's device holds counted between calls: every change of the
// informer (add, update, delete) and every overlay (pending, assumed) must show in the next call,
// and a state handed out earlier must keep its own view.
class ClaimTrackerTest : public ::testing::Test {
 protected:
  static api::ResourceClaim Allocated(std::string name, std::string uid, std::string device,
                                      std::string rv = "1") {
    api::ResourceClaim c = Claim(std::move(name), std::move(uid), std::move(rv));
    api::AllocationResult a;
    a.results.push_back({.request = "gpu", .driver = "d", .pool = "n1", .device = device});
    c.allocation = std::move(a);
    return c;
  }
  static dra::DeviceId Id(std::string device) { return {"d", "n1", std::move(device)}; }

  FakeLister<api::ResourceClaim> informer_;
  ClaimTracker tracker_{informer_};
};

TEST_F(ClaimTrackerTest, InformerChangesShowInTheNextState) {
  informer_.Add(Allocated("a", "ua", "g0"));
  informer_.Add(Claim("b", "ub", "1"));  // not allocated: holds nothing
  dra::AllocatedState first = tracker_.GatherAllocatedState();
  EXPECT_TRUE(first.HoldsWhole(Id("g0")));
  EXPECT_FALSE(first.HoldsWhole(Id("g1")));

  informer_.Update(Allocated("b", "ub", "g1", "2"));  // allocated now
  informer_.Update(Claim("a", "ua", "1"));            // deallocated
  dra::AllocatedState second = tracker_.GatherAllocatedState();
  EXPECT_FALSE(second.HoldsWhole(Id("g0")));
  EXPECT_TRUE(second.HoldsWhole(Id("g1")));
  // The earlier state keeps what it saw.
  EXPECT_TRUE(first.HoldsWhole(Id("g0")));
  EXPECT_FALSE(first.HoldsWhole(Id("g1")));

  informer_.Remove("default", "b");
  EXPECT_FALSE(tracker_.GatherAllocatedState().HoldsWhole(Id("g1")));
}

TEST(ClaimTrackerFeedTest, FollowsTheInformersWritesAndListsOnlyWhenItFellBehind) {
  FakeLister<api::ResourceClaim> informer;
  informer.KeepChanges(2);
  ClaimTracker tracker(informer);
  auto allocated = [](std::string name, std::string device, std::string rv) {
    api::ResourceClaim c = Claim(std::move(name), "u-" + device, std::move(rv));
    api::AllocationResult a;
    a.results.push_back({.request = "gpu", .driver = "d", .pool = "n1", .device = device});
    c.allocation = std::move(a);
    return c;
  };
  const dra::DeviceId g0{"d", "n1", "g0"}, g1{"d", "n1", "g1"}, g2{"d", "n1", "g2"};
  informer.Add(allocated("a", "g0", "1"));
  EXPECT_TRUE(tracker.GatherAllocatedState().HoldsWhole(g0));
  EXPECT_EQ(informer.ListCallsForTest(), 1);

  informer.Update(allocated("a", "g1", "2"));  // moved to g1
  informer.Add(allocated("b", "g2", "1"));
  dra::AllocatedState followed = tracker.GatherAllocatedState();
  EXPECT_FALSE(followed.HoldsWhole(g0));
  EXPECT_TRUE(followed.HoldsWhole(g1));
  EXPECT_TRUE(followed.HoldsWhole(g2));
  EXPECT_EQ(informer.ListCallsForTest(), 1) << "two writes, both kept: no list";

  informer.Remove("default", "b");
  informer.Update(allocated("a", "g0", "3"));
  informer.Add(allocated("c", "g2", "1"));  // three writes: the first is no longer kept
  dra::AllocatedState listed = tracker.GatherAllocatedState();
  EXPECT_TRUE(listed.HoldsWhole(g0));
  EXPECT_FALSE(listed.HoldsWhole(g1));
  EXPECT_TRUE(listed.HoldsWhole(g2)) << "c holds it now";
  EXPECT_EQ(informer.ListCallsForTest(), 2) << "fell behind the feed: listed again";
  // The state handed out before still answers as it did.
  EXPECT_TRUE(followed.HoldsWhole(g1));
}

// The claim an earlier attempt made for a pod's extended resources is found by its controller,
// from the index the tracker keeps with a feed and from a scan without one; both must agree.
TEST(ClaimTrackerExtendedTest, FindsThePodsExtendedClaimWithAndWithoutAFeed) {
  for (bool feed : {false, true}) {
    SCOPED_TRACE(feed ? "with a feed" : "without a feed");
    FakeLister<api::ResourceClaim> informer;
    if (feed) informer.KeepChanges(8);
    ClaimTracker tracker(informer);
    api::Pod pod;
    pod.metadata.namespace_ = "default";
    pod.metadata.name = "p";
    pod.metadata.uid = "up";
    auto extended = [](std::string name, std::string owner_uid, bool marked) {
      api::ResourceClaim c = Claim(std::move(name), "u-" + owner_uid, "1");
      if (marked) {
        c.metadata.annotations =
            api::StringMap({{std::string(dra::kExtendedResourceClaimAnnotation), "true"}});
      }
      c.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "p",
                                             .uid = std::move(owner_uid),
                                             .controller = true});
      return c;
    };
    tracker.GatherAllocatedState();  // the tracker has its base before the claims come
    EXPECT_EQ(tracker.FindExtendedClaim(pod), nullptr);

    informer.Add(extended("other-pods", "u-old", true));  // same name, an older pod's UID
    informer.Add(extended("not-marked", "up", false));
    EXPECT_EQ(tracker.FindExtendedClaim(pod), nullptr);

    informer.Add(extended("mine", "up", true));
    dra::ResourceClaimPtr found = tracker.FindExtendedClaim(pod);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->metadata.name, "mine");

    informer.Remove("default", "mine");
    EXPECT_EQ(tracker.FindExtendedClaim(pod), nullptr);
    if (feed) EXPECT_EQ(informer.ListCallsForTest(), 1) << "followed the feed, never listed again";
  }
}

TEST_F(ClaimTrackerTest, AWrittenClaimCountsUntilTheInformerCatchesUp) {
  informer_.Add(Allocated("a", "ua", "g0", "5"));
  tracker_.AssumeAfterWrite(std::make_shared<api::ResourceClaim>(Allocated("a", "ua", "g1", "6")));
  dra::AllocatedState s = tracker_.GatherAllocatedState();
  EXPECT_FALSE(s.HoldsWhole(Id("g0"))) << "the informer's older copy no longer counts";
  EXPECT_TRUE(s.HoldsWhole(Id("g1")));

  informer_.Update(Allocated("a", "ua", "g2", "7"));  // newer than the write: the informer wins
  s = tracker_.GatherAllocatedState();
  EXPECT_FALSE(s.HoldsWhole(Id("g1")));
  EXPECT_TRUE(s.HoldsWhole(Id("g2")));
}

TEST_F(ClaimTrackerTest, APendingAllocationReplacesTheInformersCopy) {
  informer_.Add(Allocated("a", "ua", "g0"));
  informer_.Add(Allocated("other", "uo", "g0"));  // two claims name one device
  tracker_.SignalPendingAllocation(
      std::make_shared<api::ResourceClaim>(Allocated("a", "ua", "g3")));
  dra::AllocatedState s = tracker_.GatherAllocatedState();
  EXPECT_TRUE(s.HoldsWhole(Id("g3")));
  EXPECT_TRUE(s.HoldsWhole(Id("g0"))) << "still held by the other claim";

  informer_.Remove("default", "other");
  s = tracker_.GatherAllocatedState();
  EXPECT_FALSE(s.HoldsWhole(Id("g0")));
  ASSERT_TRUE(tracker_.RemovePendingAllocation("ua"));
  s = tracker_.GatherAllocatedState();
  EXPECT_TRUE(s.HoldsWhole(Id("g0")));
  EXPECT_FALSE(s.HoldsWhole(Id("g3")));
}

// What a device looks like to a state: held whole, shared, and what its shares consume.
struct Seen {
  bool whole = false;
  bool shared = false;
  std::map<std::string, __int128> consumed;
  bool operator==(const Seen&) const = default;
};

Seen Look(const dra::AllocatedState& state, const dra::DeviceId& id) {
  Seen seen{.whole = state.HoldsWhole(id), .shared = state.HasShares(id)};
  dra::CapacityAmounts scratch;
  if (const dra::CapacityAmounts* c = state.ConsumedCapacity(id, scratch)) {
    for (const auto& [name, amount] : *c) {
      if (amount != 0) seen.consumed[name] = amount;
    }
  }
  return seen;
}

// The oracle: each informer claim counts as its pending allocation if there is one, else as its
// written copy if the informer has not caught up with it, else as itself; pending allocations of
// claims the informer does not have count as well.
class Model {
 public:
  std::map<std::string, api::ResourceClaim> informer;  // by name
  std::map<std::string, api::ResourceClaim> pending;   // by uid
  std::map<std::string, api::ResourceClaim> assumed;   // by name

  std::map<std::string, Seen> Expect(const std::vector<dra::DeviceId>& devices) const {
    std::vector<const api::ResourceClaim*> effective;
    for (const auto& [name, claim] : informer) {
      if (auto p = pending.find(claim.metadata.uid); p != pending.end()) {
        effective.push_back(&p->second);
      } else if (auto a = assumed.find(name);
                 a != assumed.end() && std::stoull(claim.metadata.resource_version) <
                                           std::stoull(a->second.metadata.resource_version)) {
        effective.push_back(&a->second);
      } else {
        effective.push_back(&claim);
      }
    }
    for (const auto& [uid, claim] : pending) {
      bool known = false;
      for (const auto& [name, i] : informer) known = known || i.metadata.uid == uid;
      if (!known) effective.push_back(&claim);
    }
    std::map<std::string, Seen> out;
    for (const dra::DeviceId& id : devices) out[id.device];
    for (const api::ResourceClaim* c : effective) {
      if (!c->allocation) continue;
      for (const auto& r : c->allocation->results) {
        if (r.admin_access.value_or(false)) continue;
        Seen& seen = out[r.device];
        if (!r.share_id) {
          seen.whole = true;
          continue;
        }
        seen.shared = true;
        for (const auto& [name, q] : r.consumed_capacity.entries())
          seen.consumed[name] += q.Nanos();
      }
    }
    for (auto& [device, seen] : out)
      std::erase_if(seen.consumed, [](const auto& e) { return e.second == 0; });
    return out;
  }
};

struct NoSelectors : dra::SelectorCompiler {
  StatusOr<dra::DeviceSelectorPtr> Compile(std::string_view) const override {
    return InternalError("no selectors here");
  }
};

// An Inventory of pool n1 of driver d whose slices list the given devices (one slice each list).
std::shared_ptr<const dra::Inventory> InventoryOf(
    const std::vector<std::vector<std::string>>& slices) {
  static const NoSelectors compiler;
  std::vector<dra::ResourceSlicePtr> out;
  for (const auto& names : slices) {
    api::ResourceSlice slice;
    slice.metadata.name = "slice-" + std::to_string(out.size());
    slice.driver = "d";
    slice.pool_name = "n1";
    slice.node_name = "node-1";
    for (const std::string& n : names) slice.devices.push_back({.name = n});
    out.push_back(std::make_shared<const api::ResourceSlice>(std::move(slice)));
  }
  return std::make_shared<const dra::Inventory>(std::vector<dra::DeviceClassPtr>{}, out, compiler);
}

// Whether the state holds the device whole, asked by its index in inventory.
bool WholeByIndex(const dra::AllocatedState& state, const dra::Inventory& inventory,
                  const dra::DeviceId& id) {
  return state.HoldsWholeAt(&inventory, inventory.DeviceIndex(id), id);
}

// Random changes to the informer, the pending allocations and the written claims, each followed
// by a state compared with the oracle's, device by device, by name and by the device index of
// the cycle's Inventory (which changes now and then); a state handed out earlier must still
// answer as it did.
TEST(ClaimTrackerPropertyTest, AgreesWithGatheringEverythingAfterEveryChange) {
  const std::vector<std::string> names = {"a", "b", "c"};
  std::vector<dra::DeviceId> devices;
  for (const char* d : {"g0", "g1", "g2", "s0", "s1"}) devices.push_back({"d", "n1", d});
  // Two generations' slices naming g1 twice, other orders, and one without g2 (not indexed).
  const std::shared_ptr<const dra::Inventory> inventories[] = {
      InventoryOf({{"g0", "g1", "g2", "s0", "s1"}}),
      InventoryOf({{"s1", "g2"}, {"g1", "g0", "s0", "g1"}}),
      InventoryOf({{"g1", "s0", "g0", "s1"}})};
  ASSERT_EQ(inventories[1]->distinct_devices(), 5u);
  ASSERT_EQ(inventories[2]->DeviceIndex(dra::DeviceRef{"d", "n1", "g2"}), -1);
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    FakeLister<api::ResourceClaim> informer;
    // A third of the seeds list every time, a third follow a feed that keeps two writes (so it
    // often falls behind and lists again), a third follow one that keeps them all.
    informer.KeepChanges(seed % 3 == 0 ? 0 : seed % 3 == 1 ? 2 : 64);
    ClaimTracker tracker(informer);
    Model model;
    std::map<std::string, std::string> uid_of;  // name -> current uid
    for (const std::string& n : names) uid_of[n] = n + "-1";
    int rv = 10, uids = 1;
    auto allocated = [&](const std::string& name, const std::string& uid, int version) {
      api::ResourceClaim c = Claim(name, uid, std::to_string(version));
      if (pick(4) == 0) return c;  // not allocated
      api::AllocationResult a;
      for (int k = pick(3); k > 0; --k) {
        api::DeviceRequestAllocationResult r{.request = "r", .driver = "d", .pool = "n1"};
        if (pick(3) == 0) {
          r.device = "s" + std::to_string(pick(2));
          r.share_id = "share-" + std::to_string(rng());
          r.consumed_capacity = api::ResourceList({{"mem", api::Quantity::FromValue(1 + pick(3))}});
        } else {
          r.device = "g" + std::to_string(pick(3));
          if (pick(5) == 0) r.admin_access = true;
        }
        a.results.push_back(std::move(r));
      }
      c.allocation = std::move(a);
      return c;
    };
    std::optional<dra::AllocatedState> earlier;
    std::map<std::string, Seen> earlier_seen;
    const dra::Inventory* earlier_inventory = nullptr;
    size_t current = 0;  // the cycle's Inventory
    for (int step = 0; step < 40; ++step) {
      const std::string name = names[pick(3)];
      std::string what;
      switch (pick(8)) {
        case 0:
        case 1: {  // the informer sees a new version (a new claim under the name, now and then)
          if (pick(6) == 0) uid_of[name] = name + "-" + std::to_string(++uids);
          api::ResourceClaim c = allocated(name, uid_of[name], ++rv);
          informer.Update(c);
          model.informer[name] = c;
          what = "informer update " + name;
          break;
        }
        case 2:
          informer.Remove("default", name);
          model.informer.erase(name);
          what = "informer delete " + name;
          break;
        case 3: {  // Reserve
          api::ResourceClaim c = allocated(name, uid_of[name], rv);
          tracker.SignalPendingAllocation(std::make_shared<api::ResourceClaim>(c));
          model.pending[c.metadata.uid] = c;
          what = "pending " + name;
          break;
        }
        case 4:
          tracker.RemovePendingAllocation(uid_of[name]);
          model.pending.erase(uid_of[name]);
          what = "pending done " + name;
          break;
        case 5: {  // PreBind's write, newer than the informer's copy (or a stale answer)
          api::ResourceClaim c = allocated(name, uid_of[name], pick(4) == 0 ? rv : ++rv);
          tracker.AssumeAfterWrite(std::make_shared<api::ResourceClaim>(c));
          model.assumed[name] = c;
          what = "assumed " + name;
          break;
        }
        case 6:
          tracker.Restore("default", name);
          model.assumed.erase(name);
          what = "restore " + name;
          break;
        case 7:
          tracker.Get("default", name);  // drops a written copy the informer caught up with
          what = "get " + name;
          break;
      }
      if (pick(3) == 0) continue;  // several changes between cycles, now and then
      if (pick(10) == 0) current = static_cast<size_t>(pick(3));  // the slices changed
      const dra::Inventory& inventory = *inventories[current];
      dra::AllocatedState state = tracker.GatherAllocatedState(inventories[current]);
      ASSERT_NE(state.dense, nullptr);
      const std::map<std::string, Seen> want = model.Expect(devices);
      for (const dra::DeviceId& id : devices) {
        ASSERT_EQ(Look(state, id), want.at(id.device))
            << "seed " << seed << ", step " << step << " (" << what << "), device " << id.device;
        ASSERT_EQ(WholeByIndex(state, inventory, id), want.at(id.device).whole)
            << "seed " << seed << ", step " << step << " (" << what << "), device " << id.device
            << " by index";
      }
      if (earlier) {
        for (const dra::DeviceId& id : devices) {
          ASSERT_EQ(Look(*earlier, id), earlier_seen.at(id.device))
              << "seed " << seed << ", step " << step << ": an earlier state changed";
          ASSERT_EQ(WholeByIndex(*earlier, *earlier_inventory, id),
                    earlier_seen.at(id.device).whole)
              << "seed " << seed << ", step " << step << ": an earlier state changed by index";
        }
      }
      if (pick(2) == 0) {  // kept, as a cycle whose pod is binding keeps its Allocator
        earlier = state;
        earlier_seen = want;
        earlier_inventory = &inventory;
      } else {
        earlier.reset();
      }
    }
  }
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::claim_tracker_test
