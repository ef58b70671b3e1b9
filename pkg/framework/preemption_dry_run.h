// The mark `stowage explain` leaves in a CycleState before it runs PostFilter for a pod that fits
// nowhere. DefaultPreemption, finding it, looks for candidates and picks one exactly as it would,
// but evicts and nominates nothing, and writes what it found back here; DynamicResources
// deallocates no claim. explain runs PostFilter only when those two are the profile's only
// PostFilter plugins, as another would not know the mark.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/framework/cycle_state.h"

namespace stowage::framework {

inline constexpr std::string_view kPreemptionDryRunKey = "stowage.io/preemption-dry-run";

struct PreemptionDryRun : StateData {
  struct Candidate {
    std::string node;
    std::vector<std::string> victims;  // namespace/name, most important first
    int pdb_violations = 0;
  };
  // What the search found, in the order it found them (those violating no PDB first).
  std::vector<Candidate> candidates;
  std::string chosen;  // the node the plugin would evict on and nominate; "" for none
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreemptionDryRun>(*this);
  }
};

}  // namespace stowage::framework
