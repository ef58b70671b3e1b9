// PodDisruptionBudget accounting of preemption (upstream preemption.FilterVictimsWithPDBViolation):
// which victims would take a budget below zero if evicted in order. Pure functions; thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::default_preemption {

// A budget with its selector compiled once per preemption attempt.
struct CompiledPdb {
  std::shared_ptr<const api::PodDisruptionBudget> pdb;
  // Nothing for a missing, empty or invalid selector: such a budget protects no pod.
  api::Selector selector = api::Selector::Nothing();
};
std::vector<CompiledPdb> CompilePdbs(
    const std::vector<std::shared_ptr<const api::PodDisruptionBudget>>& pdbs);

struct PdbSplit {
  std::vector<framework::PodInfoPtr> violating;
  std::vector<framework::PodInfoPtr> non_violating;
};

// Walks victims in order, charging each to every budget of its namespace that selects it
// (unless the budget already counts it in status.disruptedPods); a victim that takes a budget's
// disruptionsAllowed below zero violates it. A pod without labels violates nothing. Order is
// kept within each half.
PdbSplit SplitByPdbViolation(const std::vector<framework::PodInfoPtr>& victims,
                             const std::vector<CompiledPdb>& pdbs);

}  // namespace stowage::plugins::default_preemption
