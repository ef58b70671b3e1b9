// Score normalisation shared by Score plugins (upstream plugins/helper/normalize_score.go).
#pragma once

#include <cstdint>

#include "stowage/framework/interface.h"
#include "stowage/framework/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// Scales scores linearly so the highest becomes max_priority (integer division, as upstream:
// s = max_priority * s / max). With reverse, each result is then mirrored to max_priority - s,
// so the lowest raw score ranks best. When every score is 0 nothing is scaled: the scores stay 0,
// or all become max_priority with reverse. Scores are assumed to be non-negative. Always
// returns Success; the Status return lets NormalizeScore implementations forward it.
framework::Status DefaultNormalizeScore(int64_t max_priority, bool reverse,
                                        framework::NodeScoreList& scores);

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
