// Victim selection on one node (upstream DefaultPreemption.SelectVictimsOnNode): remove every
// pod of lower priority than the preemptor, check that the preemptor then fits, and add pods
// back, the most important first and the PDB-violating ones before the others, keeping each
// that still lets the preemptor fit. The PreFilter state follows every removal and addition
// through the profile's PreFilter extensions, and each check is a Filter with the nominated pods
// (PluginsRunner), so the result is what the next cycle would see on the node.
#pragma once

#include <vector>

#include "pkg/plugins/default_preemption/pdb.h"
#include "stowage/api/types.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/status.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::default_preemption {

// The victims chosen on one node, the most important first, and how many of them break a PDB.
struct NodeVictims {
  std::vector<framework::PodInfoPtr> pods;
  int num_pdb_violations = 0;
};

// Whether a is more important than b as a victim: higher priority, then the earlier start
// (a pod not started yet counts as starting now), as upstream's MoreImportantVictim for pods.
bool MoreImportantPod(const api::Pod& a, const api::Pod& b);

// The priority upstream's corev1helpers.PodPriority reads (0 when unset).
inline int32_t PodPriority(const api::Pod& pod) { return pod.spec.priority.value_or(0); }

// Chooses the victims on node for preemptor. state is the cycle's state cloned for this node
// and node a copy of the snapshot's NodeInfo: both are changed. Success with the victims;
// UnschedulableAndUnresolvable "No preemption victims found for incoming pod" when no pod has a
// lower priority; the Filter's status when the preemptor does not fit even without them.
framework::Status SelectVictimsOnNode(framework::PluginsRunner& runner,
                                      framework::CycleState& state,
                                      const framework::PodInfo& preemptor,
                                      framework::NodeInfo& node,
                                      const std::vector<CompiledPdb>& pdbs, NodeVictims& out);

}  // namespace stowage::plugins::default_preemption
