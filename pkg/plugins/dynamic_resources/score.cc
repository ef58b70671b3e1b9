// Score and NormalizeScore: the earlier the firstAvailable subrequests a node's allocation
// uses, the higher.
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "pkg/plugins/dynamic_resources/state.h"
#include "stowage/plugins/helper/normalize_score.h"

namespace stowage::plugins::dynamic_resources {
namespace {

// resourceapi.FirstAvailableDeviceRequestMaxSize: the longest firstAvailable list.
constexpr int64_t kFirstAvailableMaxSize = 8;

// Whether allocation has a result for subrequest "request/sub", compared without building the
// reference (Score runs per node and claim).
bool AllocatedSubrequest(const api::AllocationResult& allocation, std::string_view request,
                         std::string_view sub) {
  for (const api::DeviceRequestAllocationResult& r : allocation.results) {
    std::string_view ref = r.request;
    if (ref.size() == request.size() + 1 + sub.size() && ref.starts_with(request) &&
        ref[request.size()] == '/' && ref.ends_with(sub)) {
      return true;
    }
  }
  return false;
}

// The same for the devices Filter picked for the claim with index claim among them.
bool PickedSubrequest(const std::vector<dra::Pick>& picks, int claim, std::string_view request,
                      std::string_view sub) {
  for (const dra::Pick& p : picks) {
    if (p.claim == claim && p.sub != nullptr && *p.request == request && *p.sub == sub) {
      return true;
    }
  }
  return false;
}

// The node's score from the claims already allocated and the devices Filter picked there.
framework::Status ScoreOf(const StateData::Data& d, const NodeAllocation& here, int64_t& score) {
  // The earlier the subrequest of a firstAvailable list that was allocated, the higher.
  size_t next = 0;
  for (const dra::ResourceClaimPtr& claim : d.claims) {
    const api::AllocationResult* allocation = nullptr;
    int picked = -1;
    if (claim->allocation) {
      allocation = &*claim->allocation;
    } else {
      if (next >= here.claims) {
        return framework::Status::Error("number of allocations " + std::to_string(here.claims) +
                                        " is smaller than number of claims needing allocation");
      }
      picked = static_cast<int>(next++);
    }
    // Each allocated subrequest counts once, however many devices it got.
    for (const api::DeviceRequest& req : claim->devices.requests) {
      for (size_t i = 0; i < req.first_available.size(); ++i) {
        const std::string& sub = req.first_available[i].name;
        if (allocation != nullptr ? AllocatedSubrequest(*allocation, req.name, sub)
                                  : PickedSubrequest(here.picks, picked, req.name, sub)) {
          score += kFirstAvailableMaxSize - static_cast<int64_t>(i);
        }
      }
    }
  }
  return {};
}

}  // namespace

framework::Status DynamicResources::Score(const framework::CycleState& state,
                                          const framework::PodInfo&,
                                          const framework::NodeInfo& node_info, int64_t& score) {
  score = 0;
  const StateData* s = state.Read<StateData>(kStateKey);
  const StateData::Data* d = s == nullptr ? nullptr : s->data.get();
  if (d == nullptr) return framework::Status::Error("not found");
  if (!d->scores_subrequests || !features_.prioritized_list) return {};
  // Read in place under the shard's shared lock (Filter has written every node's entry by now;
  // the sum below is short and does no I/O), rather than copying the node's picks.
  return d->node_allocations.With(node_info.node()->metadata.name,
                                  [&](const NodeAllocation* here) -> framework::Status {
                                    if (here == nullptr) return {};
                                    return ScoreOf(*d, *here, score);
                                  });
}

framework::Status DynamicResources::NormalizeScore(const framework::CycleState&,
                                                   const framework::PodInfo&,
                                                   framework::NodeScoreList& scores) {
  return helper::DefaultNormalizeScore(framework::kMaxNodeScore, false, scores);
}

}  // namespace stowage::plugins::dynamic_resources
