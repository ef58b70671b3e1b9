// Preemption's turn of the extenders (upstream Evaluator.callExtenders): each interested
// extender with a preempt verb, in order, may drop candidate nodes or victims; what it keeps is
// what the next one sees.
#pragma once

#include <vector>

#include "pkg/plugins/default_preemption/candidates.h"
#include "stowage/api/types.h"
#include "stowage/framework/extender.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/status.h"

namespace stowage::plugins::default_preemption {

// Narrows candidates through the extenders. A failing extender is skipped when ignorable (as is
// a node it names without victims); any other failure is returned as an Error status, and
// candidates are then unspecified.
framework::Status CallExtenders(const std::vector<framework::Extender*>& extenders,
                                const api::Pod& preemptor, const framework::NodeInfoLister& nodes,
                                std::vector<Candidate>& candidates);

}  // namespace stowage::plugins::default_preemption
