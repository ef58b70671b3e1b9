#include "pkg/plugins/default_preemption/victims.h"

#include <algorithm>

namespace stowage::plugins::default_preemption {

using framework::PodInfoPtr;
using framework::Status;

bool MoreImportantPod(const api::Pod& a, const api::Pod& b) {
  const int32_t pa = PodPriority(a), pb = PodPriority(b);
  if (pa != pb) return pa > pb;
  // RFC 3339 times of one format order as text; an unset start time is "now", the latest.
  const std::string& sa = a.status.start_time;
  const std::string& sb = b.status.start_time;
  if (sa.empty()) return false;
  if (sb.empty()) return true;
  return sa < sb;
}

Status SelectVictimsOnNode(framework::PluginsRunner& runner, framework::CycleState& state,
                           const framework::PodInfo& preemptor, framework::NodeInfo& node,
                           const std::vector<CompiledPdb>& pdbs, NodeVictims& out) {
  const api::Pod& pod = *preemptor.pod;
  const int32_t priority = PodPriority(pod);
  std::vector<PodInfoPtr> potential;
  for (const auto& p : node.pods()) {
    if (PodPriority(*p->pod) < priority) potential.push_back(p);
  }
  if (potential.empty()) {
    return Status::Unresolvable("No preemption victims found for incoming pod");
  }
  auto remove = [&](const PodInfoPtr& p) {
    node.RemovePod(*p->pod);
    return runner.RunPreFilterExtensionRemovePod(state, pod, *p, node);
  };
  auto add = [&](const PodInfoPtr& p) {
    node.AddPodInfo(p);
    return runner.RunPreFilterExtensionAddPod(state, pod, *p, node);
  };
  for (const auto& p : potential) {
    if (Status s = remove(p); !s.IsSuccess()) return Status::Error(s.Message());
  }
  // Not fitting without every lower-priority pod ends it: affinity to a victim is not helped.
  if (Status s = runner.RunFilterPluginsWithNominatedPods(state, preemptor, node); !s.IsSuccess()) {
    return s;
  }
  std::stable_sort(
      potential.begin(), potential.end(),
      [](const PodInfoPtr& a, const PodInfoPtr& b) { return MoreImportantPod(*a->pod, *b->pod); });
  PdbSplit split = SplitByPdbViolation(potential, pdbs);
  out.pods.clear();
  out.num_pdb_violations = 0;
  // Puts p back; if the preemptor no longer fits, takes it out again as a victim.
  auto reprieve = [&](const PodInfoPtr& p, bool& fits) -> Status {
    if (Status s = add(p); !s.IsSuccess()) return Status::Error(s.Message());
    fits = runner.RunFilterPluginsWithNominatedPods(state, preemptor, node).IsSuccess();
    if (!fits) {
      if (Status s = remove(p); !s.IsSuccess()) return Status::Error(s.Message());
      out.pods.push_back(p);
    }
    return {};
  };
  bool fits = false;
  for (const auto& p : split.violating) {
    if (Status s = reprieve(p, fits); !s.IsSuccess()) return s;
    if (!fits) ++out.num_pdb_violations;
  }
  for (const auto& p : split.non_violating) {
    if (Status s = reprieve(p, fits); !s.IsSuccess()) return s;
  }
  // Victims from both halves are merged back into importance order.
  if (!split.violating.empty() && !split.non_violating.empty()) {
    std::stable_sort(out.pods.begin(), out.pods.end(),
                     [](const PodInfoPtr& a, const PodInfoPtr& b) {
                       return MoreImportantPod(*a->pod, *b->pod);
                     });
  }
  return {};
}

}  // namespace stowage::plugins::default_preemption
