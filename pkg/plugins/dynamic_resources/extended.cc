#include "pkg/plugins/dynamic_resources/extended.h"

#include <algorithm>
#include <string>

#include "pkg/common/random.h"

namespace stowage::plugins::dynamic_resources {
namespace {

// The claim kept in memory until PreBind creates it: the apiserver names it from generateName.
dra::ResourceClaimPtr InMemoryClaim(const api::Pod& pod) {
  auto claim = std::make_shared<api::ResourceClaim>();
  claim->metadata.namespace_ = pod.metadata.namespace_;
  claim->metadata.name = std::string(kInMemoryClaimName);
  claim->metadata.uid = RandomUuid();
  claim->metadata.generate_name = pod.metadata.name + "-extended-resources-";
  claim->metadata.owner_references.push_back({.api_version = "v1",
                                              .kind = "Pod",
                                              .name = pod.metadata.name,
                                              .uid = pod.metadata.uid,
                                              .controller = true});
  claim->metadata.annotations =
      api::StringMap({{std::string(dra::kExtendedResourceClaimAnnotation), "true"}});
  return claim;
}

// Whether the node's allocatable lists resource (with any quantity, zero included).
bool Lists(const framework::Resource& allocatable, std::string_view resource) {
  auto it = std::lower_bound(allocatable.scalar.begin(), allocatable.scalar.end(), resource,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return it != allocatable.scalar.end() && it->first == resource;
}

}  // namespace

dra::ResourceClaimPtr PreFilterExtended(const framework::PodInfo& pod,
                                        const framework::Lister<api::DeviceClass>& classes,
                                        ClaimTracker& claims,
                                        std::optional<ExtendedResources>& extended) {
  std::vector<std::pair<std::string, int64_t>> requests;
  for (const auto& [name, quantity] : pod.requests.scalar) {
    if (quantity != 0 && framework::IsDRAExtendedResourceName(name)) {
      requests.emplace_back(name, quantity);
    }
  }
  if (requests.empty()) return nullptr;  // the common case: no class is listed
  dra::DeviceClassResolver resolver(classes.List());
  const bool served = std::any_of(requests.begin(), requests.end(),
                                  [&](const auto& r) { return resolver.Get(r.first) != nullptr; });
  if (!served) return nullptr;

  dra::ResourceClaimPtr claim = claims.FindExtendedClaim(*pod);
  if (claim == nullptr) claim = InMemoryClaim(*pod);
  extended.emplace();
  extended->requests = std::move(requests);
  extended->resolver = std::move(resolver);
  extended->initial_uid = claim->metadata.uid;
  for (const auto& [name, quantity] : extended->requests) {
    if (extended->resolver.Get(name) != nullptr) extended->all_through_dra.push_back(name);
  }
  if (claim->devices.requests.empty() && !claim->allocation) {
    dra::ExtendedRequests made =
        dra::MakeExtendedRequests(*pod, extended->all_through_dra, extended->resolver);
    auto variant = std::make_shared<api::ResourceClaim>(*claim);
    variant->devices.requests = std::move(made.requests);
    extended->all_dra_claim = std::move(variant);
    extended->all_dra_mappings =
        std::make_shared<const std::vector<api::ContainerExtendedResourceRequest>>(
            std::move(made.mappings));
  }
  return claim;
}

framework::Status FilterExtended(const StateData::Data& d, const api::Pod& pod,
                                 const framework::NodeInfo& node_info, NodeAllocation& out) {
  const dra::ResourceClaimPtr* claim = StateData::ExtendedClaim(d);
  if (claim == nullptr) return {};
  // Left by an earlier attempt: fail here, so that PostFilter deletes it and the next attempt
  // starts afresh.
  if (!(*claim)->devices.requests.empty()) {
    return framework::Status::Unresolvable("cannot schedule extended resource claim");
  }
  const framework::Resource& allocatable = node_info.allocatable();
  std::vector<std::string> through_dra;
  for (const auto& [name, quantity] : d.extended->requests) {
    const bool dra_capable = d.extended->resolver.Get(name) != nullptr;
    if (dra_capable && allocatable.Scalar(name) == 0) {
      through_dra.push_back(name);
    } else if (!Lists(allocatable, name)) {
      // Neither a device plugin nor a DeviceClass provides it.
      return framework::Status::Unresolvable("cannot fit resource");
    }
  }
  // Device plugins serve everything here; NodeResourcesFit has checked their room.
  if (d.claims.size() == 1 && through_dra.empty()) return {};
  if ((*claim)->allocation) return {};
  // Each node gets its own variant of the claim. With user claims beside it, upstream makes one
  // even when it has no request (the allocator then allocates nothing for it).
  if (through_dra == d.extended->all_through_dra && d.extended->all_dra_claim != nullptr) {
    out.extended_claim = d.extended->all_dra_claim;
    out.mappings = d.extended->all_dra_mappings;
    return {};
  }
  dra::ExtendedRequests made = dra::MakeExtendedRequests(pod, through_dra, d.extended->resolver);
  auto node_claim = std::make_shared<api::ResourceClaim>(**claim);
  node_claim->devices.requests = std::move(made.requests);
  out.extended_claim = std::move(node_claim);
  out.mappings = std::make_shared<const std::vector<api::ContainerExtendedResourceRequest>>(
      std::move(made.mappings));
  return {};
}

StatusOr<dra::ResourceClaimPtr> CreateExtendedClaim(framework::ClaimWriter& writer,
                                                    const NodeAllocation& node) {
  if (node.extended_claim == nullptr) {
    return InternalError("extended resource claim not found for the node");
  }
  api::ResourceClaim claim = *node.extended_claim;
  claim.allocation.reset();
  claim.metadata.name.clear();
  claim.metadata.uid.clear();
  auto created = writer.CreateClaim(claim);
  if (!created.ok()) {
    return Status(created.status().code(), "create claim for extended resources " +
                                               claim.metadata.namespace_ + "/" +
                                               claim.metadata.generate_name + ": " +
                                               std::string(created.status().message()));
  }
  return dra::ResourceClaimPtr(*created);
}

Status RecordExtendedClaim(framework::PodWriter& writer, const api::Pod& pod,
                           const api::ResourceClaim& claim, const NodeAllocation& node) {
  if (node.mappings == nullptr || node.mappings->empty()) {
    return InternalError("nil or empty request mappings, no update of pod " +
                         pod.metadata.namespace_ + "/" + pod.metadata.name +
                         " ExtendedResourceClaimStatus");
  }
  api::PodStatus status = pod.status;
  status.extended_resource_claim_status = api::PodExtendedResourceClaimStatus{
      .request_mappings = *node.mappings, .resource_claim_name = claim.metadata.name};
  Status s = writer.PatchPodStatus(pod, status);
  if (!s.ok()) {
    return Status(s.code(), "update pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                " ExtendedResourceClaimStatus: " + std::string(s.message()));
  }
  return OkStatus();
}

}  // namespace stowage::plugins::dynamic_resources
