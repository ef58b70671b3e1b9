#include "pkg/plugins/volume_binding/matching.h"

#include <algorithm>

#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::volume_binding {
namespace {

std::string_view ModeOrFilesystem(const std::string& mode) {
  return mode.empty() ? std::string_view("Filesystem") : std::string_view(mode);
}

}  // namespace

Candidate MakeCandidate(VolumePtr pv) {
  Candidate c{std::move(pv), std::nullopt};
  if (c.pv->node_affinity) c.affinity = api::NodeSelectorMatcher::Compile(*c.pv->node_affinity);
  return c;
}

std::string VolumeClass(const api::PersistentVolume& pv) {
  if (const std::string* beta = pv.metadata.annotations.Get(helper::kAnnBetaStorageClass)) {
    return *beta;
  }
  return pv.storage_class_name;
}

int64_t StorageBytes(const api::ResourceList& r) {
  const api::Quantity* q = r.Get("storage");
  return q == nullptr ? 0 : q->Value();
}

bool VolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
  if (!pv.claim_ref) return false;
  const api::ObjectReference& r = *pv.claim_ref;
  if (r.name != claim.metadata.name || r.namespace_ != claim.metadata.namespace_) return false;
  return r.uid.empty() || r.uid == claim.metadata.uid;
}

bool AccessModesFit(const api::PersistentVolumeClaim& claim, const api::PersistentVolume& pv) {
  for (const std::string& mode : claim.access_modes) {
    if (std::find(pv.access_modes.begin(), pv.access_modes.end(), mode) == pv.access_modes.end()) {
      return false;
    }
  }
  return true;
}

const Candidate* FindMatchingVolume(const api::PersistentVolumeClaim& claim,
                                    const std::vector<Candidate>& candidates,
                                    const api::StringMap& node_labels,
                                    const std::set<std::string>& excluded, std::string* error) {
  std::optional<api::Selector> selector;
  if (claim.selector) {
    auto s = api::Selector::FromLabelSelector(&*claim.selector);
    if (!s.ok()) {
      *error = "error creating internal label selector for claim: " + claim.metadata.namespace_ +
               "/" + claim.metadata.name + ": " + std::string(s.status().message());
      return nullptr;
    }
    selector = std::move(*s);
  }
  const int64_t requested = StorageBytes(claim.requests);
  const std::string requested_class = helper::ClaimClass(claim);
  const Candidate* smallest = nullptr;
  int64_t smallest_size = 0;
  for (const Candidate& c : candidates) {
    const api::PersistentVolume& pv = *c.pv;
    if (excluded.contains(pv.metadata.name)) continue;
    const bool bound_to_claim = VolumeBoundToClaim(pv, claim);
    if (pv.claim_ref && !bound_to_claim) continue;
    const int64_t size = StorageBytes(pv.capacity);
    if (size < requested) continue;
    if (ModeOrFilesystem(claim.volume_mode) != ModeOrFilesystem(pv.volume_mode)) continue;
    if (claim.volume_attributes_class_name != pv.volume_attributes_class_name) continue;
    if (pv.metadata.deletion_timestamp) continue;
    const bool fits = c.Fits(node_labels);
    // A volume pre-bound to the claim decides alone: it fits this node or nothing does.
    if (bound_to_claim) return fits ? &c : nullptr;
    if (pv.phase != "Available") continue;
    if (selector && !selector->Matches(pv.metadata.labels)) continue;
    if (VolumeClass(pv) != requested_class) continue;
    if (!fits || !AccessModesFit(claim, pv)) continue;
    if (smallest == nullptr || smallest_size > size) {
      smallest = &c;
      smallest_size = size;
    }
  }
  return smallest;
}

api::StringMap WithAnnotation(const api::StringMap& annotations, std::string_view key,
                              std::string_view value) {
  std::vector<api::StringMap::Entry> entries;
  entries.reserve(annotations.size() + 1);
  for (const auto& e : annotations.entries()) {
    if (e.first != key) entries.push_back(e);
  }
  entries.emplace_back(std::string(key), std::string(value));
  return api::StringMap(std::move(entries));
}

VolumePtr BindVolumeToClaim(const VolumePtr& pv, const api::PersistentVolumeClaim& claim,
                            bool& dirty) {
  dirty = false;
  const bool was_bound = VolumeBoundToClaim(*pv, claim);
  auto out = std::make_shared<api::PersistentVolume>(*pv);
  const api::ObjectMeta& m = claim.metadata;
  if (!pv->claim_ref || pv->claim_ref->name != m.name ||
      pv->claim_ref->namespace_ != m.namespace_ || pv->claim_ref->uid != m.uid) {
    out->claim_ref = api::ObjectReference{.kind = "PersistentVolumeClaim",
                                          .namespace_ = m.namespace_,
                                          .name = m.name,
                                          .uid = m.uid,
                                          .api_version = "v1",
                                          .resource_version = m.resource_version};
    dirty = true;
  }
  if (!was_bound && !out->metadata.annotations.Has(kAnnBoundByController)) {
    out->metadata.annotations =
        WithAnnotation(out->metadata.annotations, kAnnBoundByController, "yes");
    dirty = true;
  }
  return out;
}

ClaimPtr WithSelectedNode(const api::PersistentVolumeClaim& claim, std::string_view node) {
  auto out = std::make_shared<api::PersistentVolumeClaim>(claim);
  out->metadata.annotations = WithAnnotation(claim.metadata.annotations, kAnnSelectedNode, node);
  return out;
}

bool MatchTopology(const std::vector<std::vector<api::TopologySelectorRequirement>>& terms,
                   const api::StringMap& node_labels) {
  if (terms.empty()) return true;
  for (const auto& term : terms) {
    bool all = true;
    for (const api::TopologySelectorRequirement& req : term) {
      const std::string* v = node_labels.Get(req.key);
      if (v == nullptr || std::find(req.values.begin(), req.values.end(), *v) == req.values.end()) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace stowage::plugins::volume_binding
