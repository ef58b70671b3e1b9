#include "pkg/dra/allocator.h"

#include <cstdio>
#include <mutex>
#include <random>
#include <utility>

#include "pkg/common/macros.h"
#include "pkg/common/random.h"
#include "pkg/dra/node_match.h"
#include "pkg/dra/pools.h"
#include "pkg/dra/search.h"

namespace stowage::dra {

struct Inventory::PoolSlot {
  std::once_flag once;
  Status status;
  PoolList pools;
};

Inventory::Inventory(const std::vector<DeviceClassPtr>& classes,
                     std::vector<ResourceSlicePtr> slices, const SelectorCompiler& compiler,
                     Features features)
    : all_slices_(std::move(slices)), compiler_(compiler), features_(features) {
  for (const auto& device_class : classes) classes_[device_class->metadata.name] = device_class;
  bool follow_labels = false;
  std::vector<std::string> named;  // nodes named by a shared slice's devices
  for (const auto& slice : all_slices_) {
    first_device_.emplace(slice.get(), devices_);
    devices_ += static_cast<int64_t>(slice->devices.size());
    for (const auto& device : slice->devices) {
      const DeviceRef ref{slice->driver, slice->pool_name, device.name};
      index_of_position_.push_back(
          device_index_.try_emplace(ref, static_cast<int32_t>(device_index_.size())).first->second);
    }
    const std::string node_name = slice->node_name.value_or("");
    if (!node_name.empty()) {
      slices_on_node_[node_name].push_back(slice);
      continue;
    }
    slices_shared_.push_back(slice);
    follow_labels = follow_labels || slice->node_selector.has_value();
    for (const auto& device : slice->devices) {
      follow_labels = follow_labels || device.node_selector.has_value();
      if (device.node_name && !device.node_name->empty()) named.push_back(*device.node_name);
    }
  }
  if (follow_labels) return;
  for (const auto& [name, unused] : slices_on_node_) pool_slot_.emplace(name, pool_slot_.size());
  for (const auto& name : named) pool_slot_.emplace(name, pool_slot_.size());
  pool_slots_ = std::make_unique<PoolSlot[]>(pool_slot_.size() + 1);
}

Inventory::~Inventory() = default;

const Inventory::Selector& Inventory::SelectorOf(const std::string& expression) const {
  {
    MutexLock lock(compiled_mu_);
    if (auto it = compiled_.find(expression); it != compiled_.end()) return *it->second;
  }
  // Compiled outside the lock; a racing thread may compile the same expression, and the first
  // one stored is kept.
  auto selector = std::make_unique<Selector>(Selector{compiler_.Compile(expression), nullptr});
  if (selector->compiled.ok() && devices_ > 0) {
    selector->answers = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(devices_));
  }
  MutexLock lock(compiled_mu_);
  return *compiled_.emplace(expression, std::move(selector)).first->second;
}

StatusOr<DeviceSelectorPtr> Inventory::CompiledSelector(const std::string& expression) const {
  return SelectorOf(expression).compiled;
}

int64_t Inventory::DevicePosition(const api::ResourceSlice& slice, size_t i) const {
  auto it = first_device_.find(&slice);
  return it == first_device_.end() ? -1 : it->second + static_cast<int64_t>(i);
}

int32_t Inventory::DeviceIndex(const DeviceRef& device) const {
  auto it = device_index_.find(device);
  return it == device_index_.end() ? -1 : it->second;
}

StatusOr<bool> Inventory::Matches(const Selector& selector, int64_t position,
                                  const DeviceView& device) const {
  if (!selector.compiled.ok()) return selector.compiled.status();
  std::atomic<uint8_t>* answer = nullptr;
  if (position >= 0 && selector.answers != nullptr) {
    answer = &selector.answers[static_cast<size_t>(position)];
    const uint8_t known = answer->load(std::memory_order_relaxed);
    if (known != 0) return known == 2;
  }
  StatusOr<bool> matches = (*selector.compiled)->Matches(device);
  if (matches.ok() && answer != nullptr) {
    answer->store(*matches ? 2 : 1, std::memory_order_relaxed);
  }
  return matches;
}

const std::vector<ResourceSlicePtr>& Inventory::SlicesOnNode(const std::string& node_name) const {
  static const std::vector<ResourceSlicePtr> kNone;
  auto it = slices_on_node_.find(node_name);
  return it == slices_on_node_.end() ? kNone : it->second;
}

StatusOr<const PoolList*> Inventory::PoolsFor(const api::Node& node, const Features& features,
                                              PoolList& scratch) const {
  auto gather = [&](const std::string& name, const api::Node& as) -> StatusOr<PoolList> {
    std::vector<const api::ResourceSlice*> slices_for_node;
    // The node's own slices first, then the network-attached ones, as upstream concatenates them.
    if (auto it = slices_on_node_.find(name); it != slices_on_node_.end()) {
      for (const auto& slice : it->second) slices_for_node.push_back(slice.get());
    }
    for (const auto& slice : slices_shared_) slices_for_node.push_back(slice.get());
    return GatherPools(slices_for_node, as, features, all_slices_);
  };
  if (pool_slots_ == nullptr || !(features == features_)) {
    ASSIGN_OR_RETURN(scratch, gather(node.metadata.name, node));
    return &scratch;
  }
  auto it = pool_slot_.find(node.metadata.name);
  const bool named = it != pool_slot_.end();
  PoolSlot& slot = pool_slots_[named ? it->second : pool_slot_.size()];
  std::call_once(slot.once, [&] {
    // A node no slice names sees what a nameless node sees: the shared slices for all nodes.
    const api::Node nameless;
    StatusOr<PoolList> pools = named ? gather(it->first, node) : gather("", nameless);
    if (pools.ok()) {
      slot.pools = std::move(*pools);
    } else {
      slot.status = pools.status();
    }
  });
  if (!slot.status.ok()) return slot.status;
  return &slot.pools;
}

const api::DeviceClass* Inventory::FindClass(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second.get();
}

const CapacityAmounts* AllocatedState::ConsumedCapacity(const DeviceRef& id,
                                                        CapacityAmounts& scratch) const {
  // Empty tables are asked nothing: most clusters hold no shares, and a probe hashes the names.
  const CapacityAmounts* a = nullptr;
  if (!aggregated_capacity.empty()) {
    auto own = aggregated_capacity.find(id);
    if (own != aggregated_capacity.end()) a = &own->second;
  }
  const CapacityAmounts* b = nullptr;
  if (overlay != nullptr && !overlay->capacity.empty()) {
    auto it = overlay->capacity.find(id);
    if (it != overlay->capacity.end()) b = &it->second;
  }
  if (a == nullptr || b == nullptr) return a != nullptr ? a : b;
  scratch = *a;
  for (const auto& [name, amount] : *b) scratch[name] += amount;
  return &scratch;
}

Allocator::Allocator(Features features, AllocatedState allocated,
                     std::shared_ptr<const Inventory> inventory, ShareIdGenerator share_ids)
    : features_(features),
      allocated_(std::move(allocated)),
      inventory_(std::move(inventory)),
      share_ids_(share_ids ? std::move(share_ids) : ShareIdGenerator(RandomUuid)) {}

Allocator::Allocator(Features features, AllocatedState allocated,
                     const std::vector<DeviceClassPtr>& classes,
                     std::vector<ResourceSlicePtr> slices, const SelectorCompiler& compiler,
                     ShareIdGenerator share_ids)
    : Allocator(features, std::move(allocated),
                std::make_shared<const Inventory>(classes, std::move(slices), compiler, features),
                std::move(share_ids)) {}

StatusOr<Allocation> Allocator::Allocate(const api::Node& node,
                                         const std::vector<ResourceClaimPtr>& claims,
                                         std::stop_token stop,
                                         std::chrono::steady_clock::time_point deadline) const {
  ASSIGN_OR_RETURN(Allocation out, Choose(node, claims, std::move(stop), deadline));
  if (out.outcome != Allocation::Outcome::kAllocated) return out;
  ASSIGN_OR_RETURN(out.results, ResultsOf(out.picks, claims.size(), node.metadata.name, features_));
  return out;
}

StatusOr<Allocation> Allocator::Choose(const api::Node& node,
                                       const std::vector<ResourceClaimPtr>& claims,
                                       std::stop_token stop,
                                       std::chrono::steady_clock::time_point deadline) const {
  Search search(*this, node, claims, std::move(stop), deadline);
  return search.Run();
}

StatusOr<Allocation> Search::Run() {
  StatusOr<const PoolList*> gathered =
      allocator_.inventory().PoolsFor(node_, allocator_.features(), own_pools_);
  if (!gathered.ok()) {
    return gathered.status().WithPrefix("gather pool information");
  }
  pools_ = *gathered;
  RETURN_IF_ERROR(Prepare());

  ASSIGN_OR_RETURN(Step step, AllocateOne(Index{}, false, Location{}));
  Allocation out;
  if (step != Step::kDone) {
    for (const Pool& pool : pools()) {
      if (pool.invalid) {
        // Only this node's view is broken; the caller reports it if no node works.
        out.outcome = Allocation::Outcome::kFailedOnNode;
        out.message = "invalid resource pools were encountered";
        return out;
      }
    }
    out.outcome = Allocation::Outcome::kUnsatisfiable;
    return out;
  }
  RETURN_IF_ERROR(CollectPicks(out));
  out.outcome = Allocation::Outcome::kAllocated;
  return out;
}

namespace {

// Whether the slice or device names a node selector of several terms, the one thing that can
// fail CreateNodeSelector.
bool HasManyTerms(const api::ResourceSlice& slice, const api::Device& device) {
  const auto& selector =
      slice.per_device_node_selection.value_or(false) ? device.node_selector : slice.node_selector;
  return selector.has_value() && selector->terms.size() > 1;
}

}  // namespace

Status Search::CollectPicks(Allocation& out) const {
  size_t count = 0;
  for (const auto& taken : results_) count += taken.size();
  out.picks.reserve(count);
  for (size_t c = 0; c < claims_.size(); ++c) {
    bool may_fail = false;
    for (const DeviceResult& taken : results_[c]) {
      const RequestData& data = *taken.data;
      out.picks.push_back(Pick{.claim = static_cast<int>(c),
                               .slice = taken.candidate.slice,
                               .device = taken.candidate.device,
                               .request = data.parent ? data.parent->name : data.request.name,
                               .sub = data.parent ? data.request.name : nullptr,
                               .tolerations = data.request.tolerations,
                               .admin_access = data.request.admin_access,
                               .share_id = taken.share_id,
                               .consumed = taken.consumed});
      may_fail = may_fail || HasManyTerms(*taken.candidate.slice, *taken.candidate.device);
    }
    if (!may_fail) continue;
    // Upstream builds the results in Filter, so a selector it cannot build fails this node now.
    std::vector<SliceDevice> devices;
    for (const DeviceResult& taken : results_[c]) {
      devices.emplace_back(taken.candidate.slice, taken.candidate.device);
    }
    StatusOr<std::optional<api::NodeSelector>> checked = CreateNodeSelector(devices, nullptr);
    if (!checked.ok()) {
      return checked.status().WithPrefix("create NodeSelector for claim " +
                                         claims_[c]->metadata.name);
    }
  }
  return Status();
}

StatusOr<std::vector<api::AllocationResult>> ResultsOf(const std::vector<Pick>& picks,
                                                       size_t claims, const std::string& node_name,
                                                       const Features& features) {
  std::vector<api::AllocationResult> out(claims);
  std::vector<SliceDevice> devices;
  size_t next = 0;
  for (size_t c = 0; c < claims; ++c) {
    api::AllocationResult& result = out[c];
    devices.clear();
    for (; next < picks.size() && picks[next].claim == static_cast<int>(c); ++next) {
      const Pick& pick = picks[next];
      api::DeviceRequestAllocationResult r;
      r.request = pick.sub ? *pick.request + "/" + *pick.sub : *pick.request;
      r.driver = pick.slice->driver;
      r.pool = pick.slice->pool_name;
      r.device = pick.device->name;
      if (pick.admin_access) r.admin_access = true;
      r.tolerations = *pick.tolerations;
      r.share_id = pick.share_id;
      if (!pick.consumed.empty()) r.consumed_capacity = api::ResourceList(pick.consumed);
      if (features.device_binding_and_status) {
        r.binding_conditions = pick.device->binding_conditions;
        r.binding_failure_conditions = pick.device->binding_failure_conditions;
      }
      result.results.push_back(std::move(r));
      devices.emplace_back(pick.slice, pick.device);
    }
    ASSIGN_OR_RETURN(result.node_selector, CreateNodeSelector(devices, &node_name));
  }
  return out;
}

}  // namespace stowage::dra
