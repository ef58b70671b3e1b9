// A base for plugins that implement PreFilter with AddPod/RemovePod and also Score.
// PreFilterPlugin::Extensions and ScorePlugin::Extensions share a name but not a return type, so
// a class implementing both points cannot override either directly; this layer does it for
// PreFilter, as ScoreWithNormalize does for Score.
#pragma once

#include "stowage/framework/interface.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

class PreFilterWithExtensions : public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions {
 public:
  framework::PreFilterExtensions* Extensions() override { return this; }
};

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
