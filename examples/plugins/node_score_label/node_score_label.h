// NodeScoreLabel: a Score plugin that steers pods away from nodes labelled node=hello, giving
// them 0 and every other node 1, then normalising to [0, 100].
#pragma once

#include <memory>

#include "stowage/common/status.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace example {

inline constexpr char kNodeScoreLabel[] = "NodeScoreLabel";

class NodeScoreLabel final : public stowage::framework::ScorePlugin,
                             public stowage::framework::ScoreExtensions {
 public:
  std::string_view Name() const override { return kNodeScoreLabel; }
  stowage::framework::Status Score(const stowage::framework::CycleState& state,
                                   const stowage::framework::PodInfo& pod,
                                   const stowage::framework::NodeInfo& node,
                                   int64_t& score) override;
  ScoreExtensions* Extensions() override { return this; }
  stowage::framework::Status NormalizeScore(const stowage::framework::CycleState& state,
                                            const stowage::framework::PodInfo& pod,
                                            stowage::framework::NodeScoreList& scores) override;
};

// Registers NodeScoreLabel under its name.
stowage::Status RegisterNodeScoreLabel(stowage::framework::Registry& registry);

}  // namespace example
