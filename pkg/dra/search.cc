#include "pkg/dra/search.h"

#include <algorithm>
#include <string>
#include <utility>

#include "pkg/common/macros.h"

namespace stowage::dra {

std::string RequestData::FullName() const {
  return parent ? *parent->name + "/" + *request.name : *request.name;
}

namespace {

// The thread's scratch if no Search holds it, else null.
SearchScratch* TakeThreadScratch() {
  thread_local SearchScratch scratch;
  if (scratch.in_use) return nullptr;
  scratch.in_use = true;
  return &scratch;
}

}  // namespace

Search::Search(const Allocator& allocator, const api::Node& node,
               const std::vector<ResourceClaimPtr>& claims, std::stop_token stop,
               std::chrono::steady_clock::time_point deadline, SearchScratch* scratch)
    : allocator_(allocator),
      node_(node),
      claims_(claims),
      stop_(std::move(stop)),
      deadline_(deadline),
      own_scratch_(scratch == nullptr ? std::make_unique<SearchScratch>() : nullptr),
      scratch_(scratch == nullptr ? *own_scratch_ : *scratch),
      data_(scratch_.data),
      selected_sub_(scratch_.selected_sub),
      results_(scratch_.results),
      allocating_(scratch_.allocating) {}

Search::Search(const Allocator& allocator, const api::Node& node,
               const std::vector<ResourceClaimPtr>& claims, std::stop_token stop,
               std::chrono::steady_clock::time_point deadline)
    : Search(allocator, node, claims, std::move(stop), deadline, TakeThreadScratch()) {}

Search::~Search() {
  if (own_scratch_ == nullptr) scratch_.in_use = false;
}

std::string Search::ClaimName(int claim) const {
  const api::ObjectMeta& meta = claims_[claim]->metadata;
  return meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
}

StatusOr<RequestData> Search::CheckRequest(const RequestView& view, const RequestView* parent,
                                           const Index& key) {
  // Made only for an error: a Filter call checks every request, and nearly all pass.
  auto prefix = [&] { return "claim " + ClaimName(key.claim) + ", request " + *view.name + ": "; };
  RequestData data{.request = view};
  if (parent != nullptr) data.parent = *parent;
  if (!allocator_.features().admin_access && view.has_admin_access) {
    return InvalidArgumentError(prefix() +
                                "admin access is requested, but the feature is disabled");
  }
  if (view.class_name->empty()) {
    return InvalidArgumentError(prefix() + "missing device class name (unsupported request type?)");
  }
  data.device_class = allocator_.FindClass(*view.class_name);
  if (data.device_class == nullptr) {
    return NotFoundError(prefix() + "could not retrieve device class " + *view.class_name +
                         ": deviceclass.resource.k8s.io \"" + *view.class_name + "\" not found");
  }
  if (view.allocation_mode == "ExactCount") {
    data.num_devices = view.count;
    return data;
  }
  if (!view.All()) {
    return InvalidArgumentError(prefix() + "unsupported count mode " + view.allocation_mode);
  }
  // "All" is decided now, so every pool must be complete and valid.
  for (const Pool& pool : pools()) {
    if (pool.incomplete || pool.invalid) {
      return FailedPreconditionError(
          prefix() + "asks for all devices, but resource pool " + pool.id.String() +
          (pool.incomplete ? " is currently being updated" : " is currently invalid"));
    }
    for (const api::ResourceSlice* slice : pool.slices_on_node) {
      const int64_t first = allocator_.inventory().DevicePosition(*slice, 0);
      for (size_t i = 0; i < slice->devices.size(); ++i) {
        const int64_t position = first < 0 ? -1 : first + static_cast<int64_t>(i);
        ASSIGN_OR_RETURN(bool selectable, IsSelectable(key, data, *slice, i, position));
        if (!selectable) continue;
        if (allocator_.features().consumable_capacity) {
          // Static capacity only: what others hold is checked when the device is taken, so a
          // device short of it makes "All" fail rather than shrink.
          const api::Device& device = slice->devices[i];
          StatusOr<bool> fits =
              RequestFitsCapacity(nullptr, *view.capacity_requests, device.capacity, nullptr,
                                  allocator_.features().fractional_capacity_range);
          if (!fits.ok()) {
            return fits.status().WithPrefix(prefix() + "checking capacity for device " +
                                            device.name);
          }
          if (!*fits) continue;
        }
        data.all_devices.push_back(
            Candidate{.id = DeviceRef{slice->driver, slice->pool_name, slice->devices[i].name},
                      .device = &slice->devices[i],
                      .slice = slice,
                      .pool = &pool,
                      .index = position < 0 ? -1 : allocator_.inventory().DeviceIndexAt(position)});
      }
    }
  }
  data.num_devices = static_cast<int64_t>(data.all_devices.size());
  return data;
}

StatusOr<int64_t> Search::PrepareRequest(int c, int q) {
  const Features& features = allocator_.features();
  const api::DeviceRequest& request = claims_[c]->devices.requests[q];
  auto prefix = [&] { return "claim " + ClaimName(c) + ", request " + request.name + ": "; };
  const bool has_subs = !request.first_available.empty();
  if (has_subs && !features.prioritized_list) {
    return InvalidArgumentError(prefix() +
                                "has subrequests, but the DRAPrioritizedList feature is disabled");
  }
  if (!features.consumable_capacity) {
    if (request.exactly && !request.exactly->capacity_requests.empty()) {
      return InvalidArgumentError(
          prefix() + "has capacity requests, but the DRAConsumableCapacity feature is disabled");
    }
    for (const auto& sub : request.first_available) {
      if (!sub.capacity_requests.empty()) {
        return InvalidArgumentError("claim " + ClaimName(c) + ", subrequest " + sub.name +
                                    ": has capacity requests, but the DRAConsumableCapacity "
                                    "feature is disabled");
      }
    }
  }
  if (!has_subs) {
    std::optional<RequestView> view = ViewOf(request);
    if (!view) {
      return InvalidArgumentError(prefix() +
                                  "missing device class name (unsupported request type?)");
    }
    ASSIGN_OR_RETURN(RequestData data,
                     CheckRequest(*view, nullptr, Index{.claim = c, .request = q}));
    data_[c][q].push_back(std::move(data));
    return data_[c][q].back().num_devices;
  }
  // Which subrequest wins is only known later, so the fewest devices any of them takes counts.
  const RequestView parent{.name = &request.name};
  int64_t fewest = 0;
  for (size_t s = 0; s < request.first_available.size(); ++s) {
    Index key{.claim = c, .request = q, .sub = static_cast<int>(s)};
    ASSIGN_OR_RETURN(RequestData data,
                     CheckRequest(ViewOf(request.first_available[s]), &parent, key));
    fewest = s == 0 ? data.num_devices : std::min(fewest, data.num_devices);
    data_[c][q].push_back(std::move(data));
  }
  return fewest;
}

Status Search::Prepare() {
  // The scratch may hold an earlier node's search: every entry is reset, keeping its memory.
  data_.resize(claims_.size());
  selected_sub_.resize(claims_.size());
  constraints_.resize(claims_.size());
  results_.resize(claims_.size());
  allocating_.clear();
  for (size_t c = 0; c < claims_.size(); ++c) {
    const api::DeviceClaim& spec = claims_[c]->devices;
    data_[c].resize(spec.requests.size());
    for (auto& subs : data_[c]) subs.clear();
    selected_sub_[c].assign(spec.requests.size(), 0);
    results_[c].clear();
    int64_t claim_min = 0;
    for (size_t q = 0; q < spec.requests.size(); ++q) {
      ASSIGN_OR_RETURN(int64_t request_min,
                       PrepareRequest(static_cast<int>(c), static_cast<int>(q)));
      // Compared against what is left, so a huge count cannot overflow the sum.
      if (request_min > kAllocationResultsMaxSize - claim_min) {
        return InvalidArgumentError("claim " + ClaimName(c) + ", request " + spec.requests[q].name +
                                    ": adding " + std::to_string(request_min) +
                                    " devices exceeds the claim limit of " +
                                    std::to_string(kAllocationResultsMaxSize) + ", with " +
                                    std::to_string(claim_min) + " already accounted for");
      }
      claim_min += request_min;
    }
    for (size_t i = 0; i < spec.constraints.size(); ++i) {
      std::unique_ptr<Constraint> constraint = MakeConstraint(spec.constraints[i]);
      if (!constraint) {
        return InvalidArgumentError("claim " + ClaimName(c) + ", constraint #" + std::to_string(i) +
                                    ": empty constraint (unsupported constraint type?)");
      }
      constraints_[c].push_back(std::move(constraint));
    }
  }
  return Status();
}

StatusOr<Search::Step> Search::AllocateOne(Index r, bool in_sub, Location start) {
  if (stop_.stop_requested()) return CancelledError("filter operation aborted: context canceled");
  // The clock is read every 16th step: a step is one device visited, and reading it each time
  // was a thirtieth of a Filter call.
  if (deadline_ != std::chrono::steady_clock::time_point::max() && (steps_++ & 15) == 0 &&
      std::chrono::steady_clock::now() >= deadline_) {
    return DeadlineExceededError("context deadline exceeded");
  }
  if (r.claim >= static_cast<int>(claims_.size())) return Step::kDone;
  const api::DeviceClaim& spec = claims_[r.claim]->devices;
  if (r.request >= static_cast<int>(spec.requests.size())) {
    ASSIGN_OR_RETURN(Step step, AllocateOne(Index{.claim = r.claim + 1}, false, {}));
    // Too many devices for one claim is not final: an earlier claim may change a subrequest.
    return step == Step::kMaxSizeExceeded ? Step::kNotDone : step;
  }
  const RequestData& data = Data(r);
  if (!in_sub && data.parent) {
    // Try the subrequests in order; the first that leads to a full solution wins.
    bool all_exceeded = true;
    for (size_t s = 0; s < data_[r.claim][r.request].size(); ++s) {
      r.sub = static_cast<int>(s);
      ASSIGN_OR_RETURN(Step step, AllocateOne(r, true, {}));
      if (step == Step::kMaxSizeExceeded) continue;
      all_exceeded = false;
      if (step == Step::kDone) {
        selected_sub_[r.claim][r.request] = static_cast<int>(s);
        return Step::kDone;
      }
    }
    return all_exceeded ? Step::kMaxSizeExceeded : Step::kNotDone;
  }
  if (data.request.All() && data.all_devices.empty()) return Step::kNotDone;
  if (r.device >= data.num_devices) {
    return AllocateOne(Index{.claim = r.claim, .request = r.request + 1}, false, {});
  }
  const int64_t remaining = data.num_devices - r.device;
  const int64_t room = kAllocationResultsMaxSize - static_cast<int64_t>(results_[r.claim].size());
  if (remaining > room) return Step::kMaxSizeExceeded;
  if (data.request.All()) return AllocateAll(r, in_sub, data);

  const bool admin = data.request.admin_access;
  for (size_t p = start.pool; p < pools().size(); ++p) {
    const Pool& pool = pools()[p];
    if (pool.incomplete || pool.invalid) continue;
    for (size_t s = p == start.pool ? start.slice : 0; s < pool.slices_on_node.size(); ++s) {
      const api::ResourceSlice& slice = *pool.slices_on_node[s];
      const bool resume = p == start.pool && s == start.slice;
      const int64_t first = allocator_.inventory().DevicePosition(slice, 0);
      for (size_t d = resume ? start.device : 0; d < slice.devices.size(); ++d) {
        // The cheap in-use checks first, before the selectors.
        const DeviceRef ref{pool.id.driver, pool.id.pool, slice.devices[d].name};
        const int64_t position = first < 0 ? -1 : first + static_cast<int64_t>(d);
        const int32_t index = position < 0 ? -1 : allocator_.inventory().DeviceIndexAt(position);
        if (admin ? AllocatingForClaim(ref, r.claim) : InUse(ref, index)) continue;
        ASSIGN_OR_RETURN(bool selectable, IsSelectable(r, data, slice, d, position));
        if (!selectable) continue;
        Candidate c{
            .id = ref, .device = &slice.devices[d], .slice = &slice, .pool = &pool, .index = index};
        if (allocator_.features().consumable_capacity) {
          StatusOr<bool> fits = FitsCapacity(data.request, c);
          if (!fits.ok()) {
            return fits.status().WithPrefix("claim " + ClaimName(r.claim) + ", request " +
                                            *data.request.name + ": checking capacity for device " +
                                            c.id.String());
          }
          if (!*fits) continue;
        }
        Undo undo;
        ASSIGN_OR_RETURN(bool taken, AllocateDevice(r, c, false, undo));
        if (!taken) continue;
        Index next = r;
        ++next.device;
        StatusOr<Step> step = AllocateOne(next, in_sub, Location{p, s, d + 1});
        if (step.ok() && *step == Step::kDone) return Step::kDone;
        Rollback(undo);
        if (!step.ok() || *step == Step::kMaxSizeExceeded) return step;
      }
    }
  }
  return Step::kNotDone;
}

StatusOr<Search::Step> Search::AllocateAll(const Index& r, bool in_sub, const RequestData& data) {
  // The devices are known; the order does not matter, so only the next one is tried.
  Undo undo;
  ASSIGN_OR_RETURN(bool taken, AllocateDevice(r, data.all_devices[r.device], true, undo));
  if (!taken) return Step::kNotDone;
  Index next = r;
  ++next.device;
  StatusOr<Step> step = AllocateOne(next, in_sub, {});
  if (!step.ok() || *step != Step::kDone) Rollback(undo);
  return step;
}

}  // namespace stowage::dra
