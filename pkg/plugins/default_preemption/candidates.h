// The candidate search of preemption (upstream Evaluator.DryRunPreemption and
// pickOneNodeForPreemption): dry-run victim selection on the potential nodes, in parallel from
// an offset, until enough candidates are found; then the one candidate upstream's ordering
// prefers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pkg/plugins/default_preemption/pdb.h"
#include "pkg/plugins/default_preemption/victims.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"

namespace stowage::plugins::default_preemption {

struct Candidate {
  std::string node;
  NodeVictims victims;
};

// How many candidates the dry run looks for among num_nodes potential nodes:
// num_nodes * percentage / 100, at least absolute, at most num_nodes.
int32_t NumCandidates(int32_t num_nodes, int32_t percentage, int32_t absolute);

struct DryRunResult {
  // The candidates without PDB violations first, then the others, each in the order found.
  std::vector<Candidate> candidates;
  // The status of every node tried that gave no candidate.
  framework::NodeToStatus statuses;
  // The first Error status met, if any.
  framework::Status error;
};

// Tries potential[(offset + i) % n] for i in [0, n) on the parallelizer, each on its own copy of
// the node and clone of state, and stops once num_candidates are found of which at least one
// violates no PDB.
DryRunResult DryRunPreemption(framework::Parallelizer& parallelizer,
                              framework::PluginsRunner& runner, const framework::CycleState& state,
                              const framework::PodInfo& preemptor,
                              const std::vector<const framework::NodeInfo*>& potential,
                              const std::vector<CompiledPdb>& pdbs, size_t offset,
                              size_t num_candidates);

// The candidate upstream's ordering picks: fewest PDB violations, then the lowest highest
// victim priority, the smallest sum of priorities, the fewest victims, the latest start of the
// most important victims; the first of those still tied. nullptr for none.
const Candidate* SelectCandidate(const std::vector<Candidate>& candidates);

}  // namespace stowage::plugins::default_preemption
