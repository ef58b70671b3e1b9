// PreEnqueue to PostFilter; Score in score.cc, the binding side in binding.cc, the events in
// hints.cc.
#include "pkg/plugins/dynamic_resources/dynamic_resources.h"

#include <algorithm>
#include <string>
#include <utility>

#include "pkg/dra/taints.h"
#include "pkg/framework/preemption_dry_run.h"
#include "pkg/plugins/dynamic_resources/binding_conditions.h"
#include "pkg/plugins/dynamic_resources/claims.h"
#include "pkg/plugins/dynamic_resources/extended.h"
#include "pkg/plugins/dynamic_resources/state.h"

namespace stowage::plugins::dynamic_resources {
namespace {

const StateData::Data* ReadState(const framework::CycleState& state) {
  const StateData* s = state.Read<StateData>(kStateKey);
  return s == nullptr ? nullptr : s->data.get();
}

}  // namespace

DynamicResources::DynamicResources(framework::Handle& handle, const dra::SelectorCompiler& compiler,
                                   dra::Features features, std::chrono::nanoseconds filter_timeout,
                                   std::chrono::nanoseconds binding_timeout, Clock& clock)
    : handle_(handle),
      slices_(handle.resource_slices()),
      classes_(handle.device_classes()),
      taint_rules_(handle.device_taint_rules()),
      compiler_(compiler),
      features_(features),
      filter_timeout_(filter_timeout),
      binding_timeout_(binding_timeout),
      clock_(clock),
      shared_(std::static_pointer_cast<SharedClaims>(handle.SharedObject(
          kName, [&handle] { return std::make_shared<SharedClaims>(handle.resource_claims()); }))),
      tracker_(shared_->tracker) {}

framework::Status DynamicResources::PreEnqueue(const api::Pod& pod) {
  if (pod.spec.resource_claims.empty()) return {};
  auto claims = PodClaims(pod, tracker_);
  if (!claims.ok()) return framework::Status::Unresolvable(std::string(claims.status().message()));
  // A shared claim another pod's cycle has allocated and its binding cycle not yet written:
  // PreFilter would reject the pod, at the cost of a status patch, an event and a backoff, as
  // often as the pods sharing a claim come close together (every one of them in a backlog).
  // Held here, it costs nothing and comes back when the allocation is written or dropped.
  // The check and the registration are one step under waiting_mu, so a concurrent
  // EndPendingAllocation either sees the registration or this check sees the allocation gone.
  MutexLock l(shared_->waiting_mu);
  for (const dra::ResourceClaimPtr& claim : *claims) {
    if (claim->allocation || tracker_.GetPendingAllocation(claim->metadata.uid) == nullptr) {
      continue;
    }
    auto& pods = shared_->waiting[claim->metadata.uid];
    const std::pair<std::string, std::string> key{pod.metadata.namespace_, pod.metadata.name};
    if (std::find(pods.begin(), pods.end(), key) == pods.end()) pods.push_back(key);
    return framework::Status::Unresolvable("resource claim " + KObj(claim->metadata) +
                                           " is in the process of being allocated");
  }
  return {};
}

void DynamicResources::EndPendingAllocation(std::string_view uid) {
  tracker_.RemovePendingAllocation(uid);
  std::vector<std::pair<std::string, std::string>> pods;
  {
    MutexLock l(shared_->waiting_mu);
    auto it = shared_->waiting.find(uid);
    if (it == shared_->waiting.end()) return;
    pods = std::move(it->second);
    shared_->waiting.erase(it);
  }
  for (auto& [ns, name] : pods) {
    api::Pod key;
    key.metadata.namespace_ = std::move(ns);
    key.metadata.name = std::move(name);
    handle_.Activate(key);
  }
}

framework::Status DynamicResources::ValidateClasses(const api::ResourceClaim& claim) const {
  auto check = [&](const std::string& class_name, const std::string& request) {
    if (class_name.empty()) {
      return framework::Status::Error("request " + request + ": unsupported request type");
    }
    if (classes_.Get("", class_name) == nullptr) {
      return framework::Status::Unresolvable("request " + request + ": device class " + class_name +
                                             " does not exist");
    }
    return framework::Status();
  };
  for (const api::DeviceRequest& r : claim.devices.requests) {
    if (r.exactly) {
      if (auto s = check(r.exactly->device_class_name, r.name); !s.IsSuccess()) return s;
    } else if (!r.first_available.empty()) {
      for (const api::DeviceSubRequest& sub : r.first_available) {
        if (auto s = check(sub.device_class_name, r.name + "/" + sub.name); !s.IsSuccess()) {
          return s;
        }
      }
    } else {
      return framework::Status::Unresolvable("resource claim " + KObj(claim.metadata) +
                                             ", request " + r.name + ": unknown request type");
    }
  }
  return {};
}

framework::Status DynamicResources::PreFilter(framework::CycleState& state,
                                              const framework::PodInfo& pod_info,
                                              const std::vector<const framework::NodeInfo*>&,
                                              framework::PreFilterResult&) {
  auto data = std::make_shared<StateData::Data>();
  state.Write(kStateKey, std::make_unique<StateData>(data));
  const api::Pod& pod = *pod_info;
  auto claims = PodClaims(pod, tracker_);
  if (!claims.ok()) return framework::Status::Unresolvable(std::string(claims.status().message()));
  // The claim for extended resources comes last, after the pod's own.
  if (auto extended = PreFilterExtended(pod_info, classes_, tracker_, data->extended)) {
    claims->push_back(std::move(extended));
  }
  if (claims->empty()) return framework::Status::Skip();

  data->available_on.resize(claims->size());
  for (size_t i = 0; i < claims->size(); ++i) {
    const api::ResourceClaim& claim = *(*claims)[i];
    const bool is_extended = data->extended && i + 1 == claims->size();
    if (claim.allocation && !CanBeReserved(claim) && !IsReservedForPod(pod, claim)) {
      return framework::Status::Unresolvable("resourceclaim in use");
    }
    if (claim.allocation) {
      if (claim.allocation->node_selector) {
        auto& on = data->available_on[i].emplace(
            api::NodeSelectorMatcher::Compile(*claim.allocation->node_selector));
        if (!on.error().ok()) return framework::Status::Error(std::string(on.error().message()));
      }
      continue;
    }
    data->to_allocate.push_back(i);
    // Another pod's allocation of this claim is in flight: better wait for it.
    if (tracker_.GetPendingAllocation(claim.metadata.uid) != nullptr) {
      return framework::Status::Unresolvable("resource claim " + KObj(claim.metadata) +
                                             " is in the process of being allocated");
    }
    // The claim for extended resources has no requests yet (Filter makes them per node), or
    // is left from an earlier attempt, which Filter rejects.
    if (is_extended) continue;
    if (auto s = ValidateClasses(claim); !s.IsSuccess()) return s;
  }
  data->claims = std::move(*claims);
  for (const dra::ResourceClaimPtr& claim : data->claims) {
    for (const api::DeviceRequest& request : claim->devices.requests) {
      data->scores_subrequests = data->scores_subrequests || !request.first_available.empty();
    }
  }
  std::shared_ptr<const dra::Allocator> allocator;
  if (!data->to_allocate.empty() || data->extended) {
    std::shared_ptr<const dra::Inventory> inventory = CurrentInventory();
    allocator = std::make_shared<const dra::Allocator>(
        features_, tracker_.GatherAllocatedState(inventory), inventory);
  }
  if (data->extended) {
    // NodeResourcesFit and BalancedAllocation count the class's devices per node from this.
    data->extended_devices = std::make_shared<dra::ExtendedDevices>(
        dra::ExtendedDevices{allocator, data->extended->resolver});
    state.Write(dra::kExtendedDevicesKey,
                std::make_unique<dra::ExtendedDevicesState>(data->extended_devices));
  }
  if (!data->to_allocate.empty()) {
    data->allocator = std::move(allocator);
    data->node_allocations.Init();
  }
  return {};
}

std::shared_ptr<const dra::Inventory> DynamicResources::CurrentInventory() {
  // Versions are read before the lists, so a kept Inventory is never newer than they say.
  const std::optional<uint64_t> versions[] = {slices_.Version(), classes_.Version(),
                                              taint_rules_.Version()};
  const bool known = versions[0] && versions[1] && versions[2];
  MutexLock l(inventory_mu_);
  if (known && inventory_ != nullptr && *versions[0] == inventory_versions_[0] &&
      *versions[1] == inventory_versions_[1] && *versions[2] == inventory_versions_[2]) {
    return inventory_;
  }
  // DeviceTaintRules are applied to the slices before the allocator sees them, as upstream's
  // ListWithDeviceTaintRules does.
  std::vector<api::DeviceTaintRule> rules;
  for (const auto& r : taint_rules_.List()) rules.push_back(*r);
  std::vector<dra::ResourceSlicePtr> slices = slices_.List();
  if (!rules.empty()) {
    for (dra::ResourceSlicePtr& s : slices) {
      s = std::make_shared<const api::ResourceSlice>(dra::ApplyDeviceTaintRules(*s, rules));
    }
  }
  auto inventory = std::make_shared<const dra::Inventory>(classes_.List(), std::move(slices),
                                                          compiler_, features_);
  inventory_ = known ? inventory : nullptr;
  if (known) inventory_versions_ = {*versions[0], *versions[1], *versions[2]};
  return inventory;
}

framework::Status DynamicResources::Filter(const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node_info) {
  const StateData::Data* d = ReadState(state);
  if (d == nullptr) return framework::Status::Error("not found");
  if (d->claims.empty()) return {};
  const api::Node& node = *node_info.node();
  NodeAllocation result_here;
  if (auto s = FilterExtended(*d, *pod, node_info, result_here); !s.IsSuccess()) return s;
  // Only extended resources, all served by the node's device plugins: nothing to allocate.
  const bool user_claims = d->claims.size() > (d->extended ? 1u : 0u);
  if (result_here.extended_claim == nullptr && !user_claims) return {};

  std::vector<size_t> unavailable;
  for (size_t i = 0; i < d->claims.size(); ++i) {
    if (!d->available_on[i]) continue;
    if (!d->available_on[i]->Matches(node)) {
      unavailable.push_back(i);
      continue;
    }
    // A device whose binding failed, or has waited longer than bindingTimeout: PostFilter may
    // deallocate the claim so that other devices are tried.
    const api::ResourceClaim& claim = *d->claims[i];
    if (claim.allocation && features_.device_binding_and_status) {
      auto ready = ReadyForBinding(claim);
      if (!ready.ok() || (!*ready && BindingTimedOut(claim, binding_timeout_, clock_.WallNow()))) {
        unavailable.push_back(i);
      }
    }
  }

  dra::Allocation allocation;
  if (d->allocator != nullptr) {
    std::vector<dra::ResourceClaimPtr> to_allocate;
    for (size_t i : d->to_allocate) {
      const bool node_variant = StateData::IsExtended(*d, i) && result_here.extended_claim;
      to_allocate.push_back(node_variant ? result_here.extended_claim : d->claims[i]);
    }
    auto deadline = std::chrono::steady_clock::time_point::max();
    if (filter_timeout_.count() > 0) deadline = std::chrono::steady_clock::now() + filter_timeout_;
    auto result = d->allocator->Choose(node, to_allocate, {}, deadline);
    if (!result.ok() && result.status().code() == StatusCode::kDeadlineExceeded) {
      return framework::Status::Error("node " + node.metadata.name +
                                      ": timed out trying to allocate devices");
    }
    if (!result.ok()) return framework::Status::Error(std::string(result.status().message()));
    switch (result->outcome) {
      case dra::Allocation::Outcome::kFailedOnNode:
        return framework::Status::Unresolvable(result->message);
      case dra::Allocation::Outcome::kUnsatisfiable:
        return framework::Status::Unresolvable("cannot allocate all claims");
      case dra::Allocation::Outcome::kAllocated: break;
    }
    allocation = std::move(*result);
    result_here.claims = to_allocate.size();
  }

  if (!unavailable.empty()) {
    // Every node but one rejects a pod whose claim is allocated elsewhere: the claims are
    // usually recorded already, and the status is one shared copy rather than one per node.
    static const framework::Status kNotAvailable =
        framework::Status::Unresolvable("resourceclaim not available on the node")
            .WithPlugin(kName);
    bool recorded;
    {
      ReaderMutexLock l(d->mu);
      recorded = std::includes(d->unavailable.begin(), d->unavailable.end(), unavailable.begin(),
                               unavailable.end());
    }
    if (!recorded) {
      WriterMutexLock l(d->mu);
      d->unavailable.insert(unavailable.begin(), unavailable.end());
    }
    return kNotAvailable;
  }
  if (d->allocator != nullptr) {
    result_here.picks = std::move(allocation.picks);
    d->node_allocations.Put(node.metadata.name, std::move(result_here));
  }
  return {};
}

framework::Status DynamicResources::PostFilter(framework::CycleState& state,
                                               const framework::PodInfo& pod_info,
                                               const framework::NodeToStatus&,
                                               framework::PluginsRunner&,
                                               framework::NominatingInfo&) {
  // The text of upstream's CycleState.Read error, when PreFilter never ran.
  const StateData::Data* d = ReadState(state);
  if (d == nullptr) return framework::Status::Error("not found");
  if (d->claims.empty()) return framework::Status(framework::Code::kUnschedulable);
  const api::Pod& pod = *pod_info;
  std::set<size_t> unavailable;
  {
    ReaderMutexLock l(d->mu);
    unavailable = d->unavailable;
  }
  const bool dry_run =
      state.Read<framework::PreemptionDryRun>(framework::kPreemptionDryRunKey) != nullptr;
  const dra::ResourceClaimPtr* extended = StateData::ExtendedClaim(*d);
  const bool extended_created =
      extended != nullptr && (*extended)->metadata.name != kInMemoryClaimName;
  // A claim allocated for a node that no longer fits, and reserved for no other pod, is
  // deallocated so the next attempt may allocate it elsewhere.
  for (size_t i : unavailable) {
    if (StateData::IsExtended(*d, i)) {
      if (extended_created) break;  // deleted below
      continue;
    }
    api::ResourceClaim claim = *d->claims[i];
    const bool only_this_pod =
        claim.reserved_for.empty() ||
        (claim.reserved_for.size() == 1 && claim.reserved_for[0].uid == pod.metadata.uid);
    if (!only_this_pod) continue;
    // `stowage explain`: what a cycle would answer, with nothing written.
    if (dry_run) return framework::Status::Unschedulable("deallocation of ResourceClaim completed");
    framework::ClaimWriter* writer = handle_.claim_writer();
    if (writer == nullptr) return framework::Status::Error("no API client to deallocate claims");
    claim.reserved_for.clear();
    claim.allocation.reset();
    claim.device_status.clear();
    auto written = writer->UpdateClaimStatus(claim);
    if (!written.ok()) return framework::Status::Error(std::string(written.status().message()));
    tracker_.AssumeAfterWrite(*written);
    return framework::Status::Unschedulable("deallocation of ResourceClaim completed");
  }
  // The claim an earlier attempt created for extended resources goes, and the next attempt
  // starts afresh.
  if (extended_created) {
    if (dry_run) return framework::Status::Unschedulable("deletion of ResourceClaim completed");
    framework::ClaimWriter* writer = handle_.claim_writer();
    if (writer == nullptr) return framework::Status::Error("no API client to delete claims");
    if (Status s = writer->DeleteClaim(**extended, kClaimFinalizer); !s.ok()) {
      return framework::Status::Error(std::string(s.message()));
    }
    return framework::Status::Unschedulable("deletion of ResourceClaim completed");
  }
  return framework::Status(framework::Code::kUnschedulable);
}

}  // namespace stowage::plugins::dynamic_resources
