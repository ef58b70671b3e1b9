#include "pkg/plugins/default_preemption/extenders.h"

#include "pkg/common/logging.h"

namespace stowage::plugins::default_preemption {

framework::Status CallExtenders(const std::vector<framework::Extender*>& extenders,
                                const api::Pod& preemptor, const framework::NodeInfoLister& nodes,
                                std::vector<Candidate>& candidates) {
  if (extenders.empty() || candidates.empty()) return {};
  framework::NodeToVictims victims;
  for (const Candidate& c : candidates) {
    framework::ExtenderVictims& v = victims[c.node];
    v.pods = c.victims.pods;
    v.num_pdb_violations = c.victims.num_pdb_violations;
  }
  bool asked = false;
  for (framework::Extender* e : extenders) {
    if (!e->SupportsPreemption() || !e->IsInterested(preemptor)) continue;
    framework::NodeToVictims kept;
    if (stowage::Status s = e->ProcessPreemption(preemptor, victims, nodes, kept); !s.ok()) {
      if (e->IsIgnorable()) {
        VLOG(2,
             "Skipped extender as it returned error and has ignorable flag set extender=\"{}\" "
             "err=\"{}\"",
             e->Name(), s.message());
        continue;
      }
      return framework::Status::Error(std::string(s.message()));
    }
    for (auto it = kept.begin(); it != kept.end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!e->IsIgnorable()) {
        return framework::Status::Error("expected at least one victim pod on node \"" + it->first +
                                        "\"");
      }
      VLOG(2,
           "Ignored node for which the extender didn't report victims node=\"{}\" extender=\"{}\"",
           it->first, e->Name());
      it = kept.erase(it);
    }
    victims = std::move(kept);
    asked = true;
    if (victims.empty()) break;
  }
  if (!asked) return {};
  candidates.clear();
  for (auto& [node, v] : victims) {
    Candidate c;
    c.node = node;
    c.victims.pods = std::move(v.pods);
    c.victims.num_pdb_violations = static_cast<int>(v.num_pdb_violations);
    candidates.push_back(std::move(c));
  }
  return {};
}

}  // namespace stowage::plugins::default_preemption
