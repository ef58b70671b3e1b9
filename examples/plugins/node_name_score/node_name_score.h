// NameScore: a Score plugin that ranks nodes by the number their name ends with (k8s-node02
// scores 2, k8s-node10 scores 10, a name without one 0), normalised so the highest-numbered
// feasible node scores 100. A stand-in for any policy that can be read off node names.
#pragma once

#include <cstdint>
#include <string_view>

#include "stowage/common/status.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace example {

inline constexpr char kNameScore[] = "NameScore";

// The number a node name ends with, 0 for none; saturates at kMaxNodeScore.
int64_t NameNumber(std::string_view name);

class NameScore final : public stowage::framework::ScorePlugin,
                        public stowage::framework::ScoreExtensions {
 public:
  std::string_view Name() const override { return kNameScore; }
  stowage::framework::Status Score(const stowage::framework::CycleState& state,
                                   const stowage::framework::PodInfo& pod,
                                   const stowage::framework::NodeInfo& node,
                                   int64_t& score) override;
  ScoreExtensions* Extensions() override { return this; }
  stowage::framework::Status NormalizeScore(const stowage::framework::CycleState& state,
                                            const stowage::framework::PodInfo& pod,
                                            stowage::framework::NodeScoreList& scores) override;
};

stowage::Status RegisterNameScore(stowage::framework::Registry& registry);

}  // namespace example
