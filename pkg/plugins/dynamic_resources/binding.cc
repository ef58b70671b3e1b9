// Reserve, Unreserve and PreBind: the in-flight allocation and the claim status write.
#include <chrono>
#include <string>

#include "pkg/plugins/dynamic_resources/cel_compiler.h"
#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "pkg/plugins/dynamic_resources/state.h"
#include "stowage/api/time_format.h"

namespace stowage::plugins::dynamic_resources {
namespace {

framework::Status AsError(const Status& s) {
  return framework::Status::Error(std::string(s.message()));
}

}  // namespace

framework::Status DynamicResources::Reserve(framework::CycleState& state, const api::Pod&,
                                            std::string_view node) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  StateData::Data& d = *s->data;
  if (d.to_allocate.empty() || d.allocator == nullptr) return {};
  std::vector<api::AllocationResult> results;
  {
    ReaderMutexLock l(d.mu);
    auto it = d.node_allocations.find(node);
    if (it != d.node_allocations.end()) results = it->second;
  }
  if (results.empty()) return framework::Status::Error("claim allocation not found for node");
  if (results.size() != d.to_allocate.size()) {
    return framework::Status::Error("internal error, have " + std::to_string(results.size()) +
                                    " allocations, " + std::to_string(d.to_allocate.size()) +
                                    " claims to allocate, want " +
                                    std::to_string(d.to_allocate.size()) + " claims");
  }
  // The devices count as taken for every other cycle from now until PreBind's write is seen.
  for (size_t k = 0; k < d.to_allocate.size(); ++k) {
    const size_t i = d.to_allocate[k];
    d.reserved[i] = results[k];
    auto claim = std::make_shared<api::ResourceClaim>(*d.claims[i]);
    claim->allocation = results[k];
    tracker_.SignalPendingAllocation(std::move(claim));
  }
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& state, const api::Pod& pod,
                                 std::string_view) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return;
  StateData::Data& d = *s->data;
  for (const dra::ResourceClaimPtr& claim : d.claims) {
    if (tracker_.RemovePendingAllocation(claim->metadata.uid)) {
      tracker_.Restore(claim->metadata.namespace_, claim->metadata.name);
    }
    // PreBind already reserved the claim for the pod: take the pod out again.
    if (claim->allocation && IsReservedForPod(pod, *claim)) {
      framework::ClaimWriter* writer = handle_.claim_writer();
      if (writer == nullptr) continue;
      api::ResourceClaim updated = *claim;
      std::erase_if(updated.reserved_for, [&](const api::ResourceClaimConsumerReference& r) {
        return r.uid == pod.metadata.uid;
      });
      (void)writer->UpdateClaimStatus(updated);  // upstream only logs a failure here
    }
  }
}

framework::Status DynamicResources::PreBindPreFlight(framework::CycleState& state, const api::Pod&,
                                                     std::string_view) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  return s->data->claims.empty() ? framework::Status::Skip() : framework::Status();
}

framework::Status DynamicResources::PreBind(framework::CycleState& state, const api::Pod& pod,
                                            std::string_view) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  StateData::Data& d = *s->data;
  for (size_t i = 0; i < d.claims.size(); ++i) {
    if (IsReservedForPod(pod, *d.claims[i])) continue;
    framework::ClaimWriter* writer = handle_.claim_writer();
    if (writer == nullptr) return framework::Status::Error("no API client to update claims");
    dra::ResourceClaimPtr claim = d.claims[i];
    const std::string name = KObj(claim->metadata);
    if (claim->metadata.deletion_timestamp) {
      return framework::Status::Error("claim " + name + " got deleted in the meantime");
    }
    auto it = d.reserved.find(i);
    api::ResourceClaim updated = *claim;
    if (it != d.reserved.end()) {
      if (claim->allocation) {
        return framework::Status::Error("claim " + name +
                                        " got allocated elsewhere in the meantime");
      }
      auto with_finalizer = writer->AddClaimFinalizer(*claim, kClaimFinalizer);
      if (!with_finalizer.ok()) {
        return framework::Status::Error("add finalizer to claim " + name + ": " +
                                        std::string(with_finalizer.status().message()));
      }
      updated = **with_finalizer;
      updated.allocation = it->second;
    }
    updated.reserved_for.push_back(ConsumerOf(pod));
    if (features_.device_binding_and_status) {
      if (!updated.allocation) {
        return framework::Status::Error("claim " + name +
                                        " got deallocated elsewhere in the meantime");
      }
      if (!updated.allocation->allocation_timestamp) {
        updated.allocation->allocation_timestamp = api::FormatTime(RealClock().WallNow());
      }
    }
    auto written = writer->UpdateClaimStatus(updated);
    if (!written.ok()) return AsError(written.status());
    tracker_.AssumeAfterWrite(*written);
    d.claims[i] = *written;
  }
  // Written: the assumed claims now hold the devices, the in-flight entries can go.
  for (const auto& [i, allocation] : d.reserved) {
    tracker_.RemovePendingAllocation(d.claims[i]->metadata.uid);
  }
  return {};
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const config::DynamicResourcesArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features) {
  auto timeout = std::chrono::nanoseconds(0);
  if (features.dra_scheduler_filter_timeout && args.filter_timeout) timeout = *args.filter_timeout;
  // One engine per process is enough; it loads the bridge only at the first selector.
  static const CelSelectorCompiler* const compiler = new CelSelectorCompiler();
  dra::Features f;
  f.device_binding_and_status =
      features.dra_device_binding_conditions && features.dra_resource_claim_device_status;
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DynamicResources>(handle, *compiler, f, timeout));
}

}  // namespace stowage::plugins::dynamic_resources
