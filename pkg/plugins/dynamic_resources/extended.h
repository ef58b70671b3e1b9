// DynamicResources' part in extended resources that DeviceClasses provide (upstream's
// extendeddynamicresources.go, DRAExtendedResource, GA in 1.37):
//   PreFilter  a pod asking for such a resource gets a claim for it: the one an earlier attempt
//              created (annotated, controlled by the pod), or a new one kept in memory with the
//              name "<extended-resources>" and a made-up UID;
//   Filter     per node, the requests DRA must serve there (those the node's allocatable lacks)
//              become that node's variant of the claim; a claim left by an earlier attempt fails
//              every node, so that PostFilter deletes it and the next attempt starts afresh;
//   PreBind    creates the node's claim, writes its allocation, and records the claim and the
//              container mappings in the pod's status.extendedResourceClaimStatus;
//   Unreserve  drops the claim's pending allocation and deletes a claim PreBind created.
// Internal to the plugin; the functions hold no state of their own.
#pragma once

#include <vector>

#include "pkg/plugins/dynamic_resources/claim_tracker.h"
#include "pkg/plugins/dynamic_resources/state.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::dynamic_resources {

// The pod's claim for extended resources, or null when no DeviceClass provides any extended
// resource the pod asks for; sets extended when there is one.
dra::ResourceClaimPtr PreFilterExtended(const framework::PodInfo& pod,
                                        const framework::Lister<api::DeviceClass>& classes,
                                        ClaimTracker& claims,
                                        std::optional<ExtendedResources>& extended);

// The node's variant of the claim for extended resources in out (null when the node's device
// plugins serve every request); an unsuccessful status when the node cannot serve the pod.
framework::Status FilterExtended(const StateData::Data& d, const api::Pod& pod,
                                 const framework::NodeInfo& node, NodeAllocation& out);

// Creates the node's claim for extended resources (PreBind), answering the stored claim.
StatusOr<dra::ResourceClaimPtr> CreateExtendedClaim(framework::ClaimWriter& writer,
                                                    const NodeAllocation& node);

// Records the created claim and the container mappings in the pod's status.
Status RecordExtendedClaim(framework::PodWriter& writer, const api::Pod& pod,
                           const api::ResourceClaim& claim, const NodeAllocation& node);

}  // namespace stowage::plugins::dynamic_resources
