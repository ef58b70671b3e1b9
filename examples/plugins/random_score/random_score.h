// ExamplePlugin: a Score plugin that gives each node a random score in [0, 100), and a PostBind
// that logs the decision:
//   Decision: default/example-pod => node-2
#pragma once

#include <random>

#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace example {

inline constexpr char kExamplePlugin[] = "ExamplePlugin";

class RandomScore final : public stowage::framework::ScorePlugin,
                          public stowage::framework::PostBindPlugin {
 public:
  std::string_view Name() const override { return kExamplePlugin; }
  stowage::framework::Status Score(const stowage::framework::CycleState& state,
                                   const stowage::framework::PodInfo& pod,
                                   const stowage::framework::NodeInfo& node,
                                   int64_t& score) override;
  void PostBind(stowage::framework::CycleState& state, const stowage::api::Pod& pod,
                std::string_view node) override;

 private:
  // Score runs on several threads at once; the generator is not thread-safe.
  stowage::Mutex mu_;
  std::minstd_rand random_ GUARDED_BY(mu_){std::random_device{}()};
};

stowage::Status RegisterExamplePlugin(stowage::framework::Registry& registry);

}  // namespace example
