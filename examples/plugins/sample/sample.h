// sample-plugin: PreFilter, Filter and PreBind with typed args from pluginConfig.
//
//   pluginConfig:
//   - name: sample-plugin
//     args: {favorite_color: blue, favorite_number: 7, thanks_to: thockin}
//
// PreFilter picks the colour the pod wants (its own `favorite-color` label, else the args'
// favorite_color) and keeps it in the CycleState; Filter admits only nodes labelled
// `favorite-color=<that colour>`; PreBind logs the chosen node with the args' thanks_to, and
// fails the binding if the node left the snapshot meanwhile.
#pragma once

#include <cstdint>
#include <string>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"
#include "stowage/plugin_config/raw_args.h"

namespace example {

inline constexpr char kSample[] = "sample-plugin";

// The args, by their JSON names; an unknown field or a wrong type fails the scheduler's start
// with the plugin and the field named.
struct SampleArgs {
  std::string favorite_color = "blue";
  int64_t favorite_number = 0;
  std::string thanks_to;
  void Describe(stowage::config::ArgsFields& f) {
    f.String("favorite_color", &favorite_color)
        .Int("favorite_number", &favorite_number)
        .String("thanks_to", &thanks_to);
  }
};

class Sample final : public stowage::framework::PreFilterPlugin,
                     public stowage::framework::FilterPlugin,
                     public stowage::framework::PreBindPlugin {
 public:
  Sample(SampleArgs args, stowage::framework::Handle& handle)
      : args_(std::move(args)), handle_(handle) {}
  std::string_view Name() const override { return kSample; }
  stowage::framework::Status PreFilter(
      stowage::framework::CycleState& state, const stowage::framework::PodInfo& pod,
      const std::vector<const stowage::framework::NodeInfo*>& nodes,
      stowage::framework::PreFilterResult& result) override;
  stowage::framework::Status Filter(const stowage::framework::CycleState& state,
                                    const stowage::framework::PodInfo& pod,
                                    const stowage::framework::NodeInfo& node) override;
  stowage::framework::Status PreBind(stowage::framework::CycleState& state,
                                     const stowage::api::Pod& pod, std::string_view node) override;

 private:
  const SampleArgs args_;
  stowage::framework::Handle& handle_;
};

stowage::Status RegisterSample(stowage::framework::Registry& registry);

}  // namespace example
