#include "pkg/plugins/default_preemption/pdb.h"

#include <algorithm>

namespace stowage::plugins::default_preemption {

std::vector<CompiledPdb> CompilePdbs(
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs) {
  std::vector<CompiledPdb> out;
  out.reserve(pdbs.size());
  for (const auto& pdb : pdbs) {
    CompiledPdb c{pdb};
    if (pdb->selector) {
      auto s = api::Selector::FromLabelSelector(&*pdb->selector);
      // An empty selector selects nothing for a budget, unlike for most kinds.
      if (s.ok() && !s->Empty()) c.selector = std::move(*s);
    }
    out.push_back(std::move(c));
  }
  return out;
}

PdbSplit SplitByPdbViolation(const std::vector<framework::PodInfoPtr>& victims,
                             const std::vector<CompiledPdb>& pdbs) {
  std::vector<int64_t> allowed;
  allowed.reserve(pdbs.size());
  for (const auto& c : pdbs) allowed.push_back(c.pdb->disruptions_allowed);
  PdbSplit out;
  for (const auto& v : victims) {
    const api::Pod& pod = *v->pod;
    bool violating = false;
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const auto& pdb = *pdbs[i].pdb;
        if (pdb.metadata.namespace_ != pod.metadata.namespace_) continue;
        if (!pdbs[i].selector.Matches(pod.metadata.labels)) continue;
        // Already counted by the disruption controller: charging it again would over-count.
        if (pdb.disrupted_pods.Has(pod.metadata.name)) continue;
        if (--allowed[i] < 0) {
          violating = true;
          break;
        }
      }
    }
    (violating ? out.violating : out.non_violating).push_back(v);
  }
  return out;
}

}  // namespace stowage::plugins::default_preemption
