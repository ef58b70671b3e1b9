// How an unbound claim is matched with a PersistentVolume on a node, and what a binding writes,
// as component-helpers' storage/volume helpers define it (FindMatchingVolume,
// GetBindVolumeToClaim, CheckAccessModes). Pure functions; thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"

namespace stowage::plugins::volume_binding {

using ClaimPtr = std::shared_ptr<const api::PersistentVolumeClaim>;
using VolumePtr = std::shared_ptr<const api::PersistentVolume>;

// The annotations the binder reads and writes.
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
// A class whose volumes are never provisioned (local volumes).
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";

// A PV that may be matched, with its node affinity compiled once per cycle.
struct Candidate {
  VolumePtr pv;
  std::optional<api::NodeSelectorMatcher> affinity;  // none: any node
  bool Fits(const api::StringMap& node_labels) const {
    return !affinity || affinity->Matches(node_labels, "");
  }
};
Candidate MakeCandidate(VolumePtr pv);

// The PV's class: the beta annotation first, then spec.storageClassName.
std::string VolumeClass(const api::PersistentVolume& pv);
// The storage request of a claim or capacity of a volume, 0 when absent.
int64_t StorageBytes(const api::ResourceList& r);
// True when the volume's claimRef names claim (the UID too, when the reference has one).
bool VolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim);
// Every access mode of the claim is one of the volume's.
bool AccessModesFit(const api::PersistentVolumeClaim& claim, const api::PersistentVolume& pv);

// The volume for claim on the node with node_labels among candidates, skipping the names in
// excluded: a volume already bound to the claim wins (or, if its affinity misses the node,
// nothing does); otherwise the smallest Available volume of the claim's class, size, mode,
// attributes class, selector, access modes and node affinity, the first of equal sizes.
// error is set when the claim's selector is invalid.
const Candidate* FindMatchingVolume(const api::PersistentVolumeClaim& claim,
                                    const std::vector<Candidate>& candidates,
                                    const api::StringMap& node_labels,
                                    const std::set<std::string>& excluded, std::string* error);

// pv bound to claim as the binder writes it: the claimRef set (when it names another object)
// and bound-by-controller annotated (when the volume was not bound to the claim before); dirty
// says whether anything changed.
VolumePtr BindVolumeToClaim(const VolumePtr& pv, const api::PersistentVolumeClaim& claim,
                            bool& dirty);
// claim with the selected-node annotation set to node.
ClaimPtr WithSelectedNode(const api::PersistentVolumeClaim& claim, std::string_view node);
// An object's metadata with one annotation set.
api::StringMap WithAnnotation(const api::StringMap& annotations, std::string_view key,
                              std::string_view value);

// v1helper.MatchTopologySelectorTerms: no terms match every node; otherwise some term must have
// each of its keys among the node's labels with one of its values.
bool MatchTopology(const std::vector<std::vector<api::TopologySelectorRequirement>>& terms,
                   const api::StringMap& node_labels);

}  // namespace stowage::plugins::volume_binding
