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

}  // namespace

framework::Status DynamicResources::Score(const framework::CycleState& state,
                                          const framework::PodInfo&,
                                          const framework::NodeInfo& node_info, int64_t& score) {
  score = 0;
  const StateData* s = state.Read<StateData>(kStateKey);
  const StateData::Data* d = s == nullptr ? nullptr : s->data.get();
  if (d == nullptr) return framework::Status::Error("not found");
  if (d->claims.empty() || !features_.prioritized_list) return {};
  // Read in place under a shared lock (Filter has written every node's entry by now; the sum
  // below is short and does no I/O), rather than copying the node's allocations on every call.
  ReaderMutexLock l(d->mu);
  auto it = d->node_allocations.find(node_info.node()->metadata.name);
  if (it == d->node_allocations.end()) return {};
  const std::vector<api::AllocationResult>& allocations = it->second.results;
  // The earlier the subrequest of a firstAvailable list that was allocated, the higher.
  size_t next = 0;
  for (const dra::ResourceClaimPtr& claim : d->claims) {
    const api::AllocationResult* allocation = nullptr;
    if (claim->allocation) {
      allocation = &*claim->allocation;
    } else {
      if (next >= allocations.size()) {
        return framework::Status::Error("number of allocations " +
                                        std::to_string(allocations.size()) +
                                        " is smaller than number of claims needing allocation");
      }
      allocation = &allocations[next++];
    }
    // Each allocated subrequest counts once, however many devices it got.
    for (const api::DeviceRequest& req : claim->devices.requests) {
      for (size_t i = 0; i < req.first_available.size(); ++i) {
        if (AllocatedSubrequest(*allocation, req.name, req.first_available[i].name)) {
          score += kFirstAvailableMaxSize - static_cast<int64_t>(i);
        }
      }
    }
  }
  return {};
}

framework::Status DynamicResources::NormalizeScore(const framework::CycleState&,
                                                   const framework::PodInfo&,
                                                   framework::NodeScoreList& scores) {
  return helper::DefaultNormalizeScore(framework::kMaxNodeScore, false, scores);
}

}  // namespace stowage::plugins::dynamic_resources
