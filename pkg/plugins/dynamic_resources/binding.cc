// Reserve, Unreserve and PreBind: the in-flight allocation and the claim status write.
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "pkg/common/logging.h"
#include "pkg/plugins/dynamic_resources/binding_conditions.h"
#include "pkg/plugins/dynamic_resources/cel_compiler.h"
#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"
#include "pkg/plugins/dynamic_resources/extended.h"
#include "pkg/plugins/dynamic_resources/state.h"
#include "stowage/api/time_format.h"

namespace stowage::plugins::dynamic_resources {
namespace {

framework::Status AsError(const Status& s) {
  return framework::Status::Error(std::string(s.message()));
}

// Waits (up to upstream's two minutes) until the informer holds the claim written.
void WaitForInformer(const framework::Lister<api::ResourceClaim>& informer,
                     const api::ResourceClaim& claim) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (informer.Get(claim.metadata.namespace_, claim.metadata.name) == nullptr) {
    if (std::chrono::steady_clock::now() >= deadline) {
      LOG_INFO("Claim not stored in assume cache after retries resourceclaim=\"{}\"",
               KObj(claim.metadata));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

framework::Status DynamicResources::Reserve(framework::CycleState& state, const api::Pod&,
                                            std::string_view node) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  StateData::Data& d = *s->data;
  // Scoring is over: the scorers' view of the devices lets go of the cycle's Allocator.
  if (d.extended_devices != nullptr) d.extended_devices->allocator.reset();
  if (d.to_allocate.empty() || d.allocator == nullptr) return {};
  const bool user_claims = std::any_of(d.to_allocate.begin(), d.to_allocate.end(),
                                       [&](size_t i) { return !StateData::IsExtended(d, i); });
  dra::ResourceClaimPtr extended_claim;
  size_t claims = 0;
  StatusOr<std::vector<api::AllocationResult>> results = std::vector<api::AllocationResult>();
  d.node_allocations.With(node, [&](const NodeAllocation* chosen) {
    if (chosen == nullptr) return;
    // Only the chosen node's picks become results; the allocator they point into is alive.
    extended_claim = chosen->extended_claim;
    claims = chosen->claims;
    results = dra::ResultsOf(chosen->picks, claims, std::string(node), features_);
  });
  if (!results.ok()) return framework::Status::Error(std::string(results.status().message()));
  if (claims == 0) {
    // Only the claim for extended resources, which the node's device plugins serve.
    if (!user_claims) return {};
    return framework::Status::Error("claim allocation not found for node");
  }
  if (claims != d.to_allocate.size()) {
    return framework::Status::Error("internal error, have " + std::to_string(claims) +
                                    " allocations, " + std::to_string(d.to_allocate.size()) +
                                    " claims to allocate, want " +
                                    std::to_string(d.to_allocate.size()) + " claims");
  }
  // The devices count as taken for every other cycle from now until PreBind's write is seen.
  for (size_t k = 0; k < d.to_allocate.size(); ++k) {
    const size_t i = d.to_allocate[k];
    d.reserved[i] = (*results)[k];
    // The claim for extended resources is pending in the node's variant, under its first UID.
    const bool node_variant = StateData::IsExtended(d, i) && extended_claim != nullptr;
    auto claim =
        std::make_shared<api::ResourceClaim>(node_variant ? *extended_claim : *d.claims[i]);
    claim->allocation = std::move((*results)[k]);
    tracker_.SignalPendingAllocation(std::move(claim));
  }
  // The search is over; dropping the Allocator lets the tracker update its device counts in
  // place at the next cycle instead of copying them while this pod binds.
  d.allocator.reset();
  return {};
}

void DynamicResources::Unreserve(framework::CycleState& state, const api::Pod& pod,
                                 std::string_view) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return;
  StateData::Data& d = *s->data;
  for (size_t i = 0; i < d.claims.size(); ++i) {
    const dra::ResourceClaimPtr& claim = d.claims[i];
    if (StateData::IsExtended(d, i)) continue;  // below
    if (tracker_.GetPendingAllocation(claim->metadata.uid) != nullptr) {
      EndPendingAllocation(claim->metadata.uid);
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
  const dra::ResourceClaimPtr* extended = StateData::ExtendedClaim(d);
  if (extended == nullptr) return;
  const api::ResourceClaim& claim = **extended;
  if (tracker_.RemovePendingAllocation(d.extended->initial_uid)) {
    tracker_.Restore(claim.metadata.namespace_, claim.metadata.name);
  }
  if (claim.metadata.name == kInMemoryClaimName) return;
  // PreBind created it: delete it, or it would hold its devices with no pod to use them.
  if (framework::ClaimWriter* writer = handle_.claim_writer()) {
    if (Status del = writer->DeleteClaim(claim, kClaimFinalizer); !del.ok()) {
      LOG_ERROR_ERR(del, "delete resourceclaim=\"{}\"", KObj(claim.metadata));
    }
  }
}

framework::Status DynamicResources::PreBindPreFlight(framework::CycleState& state, const api::Pod&,
                                                     std::string_view) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  return s->data->claims.empty() ? framework::Status::Skip() : framework::Status();
}

StatusOr<dra::ResourceClaimPtr> DynamicResources::WriteClaim(
    framework::ClaimWriter& writer, const api::Pod& pod, dra::ResourceClaimPtr claim,
    const std::optional<api::AllocationResult>& allocation) {
  const std::string name = KObj(claim->metadata);
  // This scheduler's other writes of the claim come first; their answer, kept by the tracker,
  // is newer than the copy this pod's cycle read, and is what upstream would read after the
  // conflict its first write would meet.
  KeyedMutex::Lock turn(shared_->claim_writes, claim->metadata.uid);
  if (dra::ResourceClaimPtr newest = tracker_.Get(claim->metadata.namespace_, claim->metadata.name);
      newest != nullptr && newest->metadata.uid == claim->metadata.uid &&
      ResourceVersionOf(*newest) > ResourceVersionOf(*claim)) {
    claim = std::move(newest);
  }
  // A resourceVersion conflict is a benign concurrent change, such as another client's update
  // of the claim: try again on a newer copy, five times 10 ms apart, as upstream's
  // RetryOnConflict does. Upstream reads the newer copy from the apiserver; here it is this
  // scheduler's own last write or the informer's copy once the informer has seen the change.
  for (int attempt = 1;; ++attempt) {
    if (claim->metadata.deletion_timestamp) {
      return FailedPreconditionError("claim " + name + " got deleted in the meantime");
    }
    api::ResourceClaim updated = *claim;
    if (allocation) {
      if (claim->allocation) {
        return FailedPreconditionError("claim " + name +
                                       " got allocated elsewhere in the meantime");
      }
      // A claim that has the finalizer (an earlier attempt wrote it) is not written again, as
      // upstream checks before its update.
      const auto& finalizers = claim->metadata.finalizers;
      if (std::find(finalizers.begin(), finalizers.end(), kClaimFinalizer) == finalizers.end()) {
        auto with_finalizer = writer.AddClaimFinalizer(*claim, kClaimFinalizer);
        if (!with_finalizer.ok()) {
          return with_finalizer.status().WithPrefix("add finalizer to claim " + name);
        }
        updated = **with_finalizer;
      }
      updated.allocation = *allocation;
    }
    updated.reserved_for.push_back(ConsumerOf(pod));
    if (features_.device_binding_and_status) {
      if (!updated.allocation) {
        return FailedPreconditionError("claim " + name +
                                       " got deallocated elsewhere in the meantime");
      }
      if (!updated.allocation->allocation_timestamp) {
        updated.allocation->allocation_timestamp = api::FormatTime(clock_.WallNow());
      }
    }
    auto written = writer.UpdateClaimStatus(updated);
    if (written.ok() || written.status().code() != StatusCode::kAborted || attempt == 5) {
      return written;
    }
    VLOG(5, "retrying update after conflict resourceclaim=\"{}\"", name);
    dra::ResourceClaimPtr newer = NewerCopy(updated);
    if (newer == nullptr) return written;
    claim = std::move(newer);
  }
}

dra::ResourceClaimPtr DynamicResources::NewerCopy(const api::ResourceClaim& stale) const {
  const unsigned long long seen = ResourceVersionOf(stale);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    dra::ResourceClaimPtr copy = tracker_.Get(stale.metadata.namespace_, stale.metadata.name);
    if (copy == nullptr) return nullptr;
    if (ResourceVersionOf(*copy) > seen) return copy;
  } while (std::chrono::steady_clock::now() < deadline);
  return nullptr;
}

framework::Status DynamicResources::PreBind(framework::CycleState& state, const api::Pod& pod,
                                            std::string_view node) {
  StateData* s = state.ReadMutable<StateData>(kStateKey);
  if (s == nullptr) return framework::Status::Error("not found");
  StateData::Data& d = *s->data;
  for (size_t i = 0; i < d.claims.size(); ++i) {
    if (IsReservedForPod(pod, *d.claims[i])) continue;
    auto it = d.reserved.find(i);
    const bool extended = StateData::IsExtended(d, i);
    // The node's device plugins serve every extended resource: no claim is needed.
    if (extended && it == d.reserved.end() && d.claims[i]->devices.requests.empty()) continue;
    framework::ClaimWriter* writer = handle_.claim_writer();
    if (writer == nullptr) return framework::Status::Error("no API client to update claims");
    NodeAllocation chosen;
    if (extended) {
      // The node's variant of the claim and its mappings; the picks are not read after Reserve.
      d.node_allocations.With(node, [&](const NodeAllocation* here) {
        if (here == nullptr) return;
        chosen.extended_claim = here->extended_claim;
        chosen.mappings = here->mappings;
      });
    }
    if (extended && d.claims[i]->metadata.name == kInMemoryClaimName) {
      auto created = CreateExtendedClaim(*writer, chosen);
      if (!created.ok()) return AsError(created.status());
      d.claims[i] = *created;  // Unreserve deletes it if a later step fails
    }
    const std::optional<api::AllocationResult> allocation =
        it == d.reserved.end() ? std::nullopt : std::optional(it->second);
    auto written = WriteClaim(*writer, pod, d.claims[i], allocation);
    if (!written.ok()) return AsError(written.status());
    if (extended) {
      // A new claim: its devices stay pending until the informer holds it, as upstream waits
      // for its assume cache, so no other pod is given them meanwhile.
      WaitForInformer(handle_.resource_claims(), **written);
      if (Status rec = RecordExtendedClaim(handle_.pod_writer(), pod, **written, chosen);
          !rec.ok()) {
        d.claims[i] = *written;
        return AsError(rec);
      }
    }
    tracker_.AssumeAfterWrite(*written);
    d.claims[i] = *written;
  }
  if (features_.device_binding_and_status && HasBindingConditions(d.claims)) {
    if (auto s = WaitForBindingConditions(d.claims, pod, node); !s.IsSuccess()) return s;
  }
  // Written: the assumed claims now hold the devices, the in-flight entries can go.
  for (const auto& [i, allocation] : d.reserved) {
    EndPendingAllocation(StateData::IsExtended(d, i) ? d.extended->initial_uid
                                                     : d.claims[i]->metadata.uid);
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
  auto binding_timeout = std::chrono::nanoseconds(std::chrono::minutes(10));
  if (args.binding_timeout) binding_timeout = *args.binding_timeout;
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<DynamicResources>(handle, *compiler, f, timeout, binding_timeout));
}

}  // namespace stowage::plugins::dynamic_resources
