// A base for plugins that implement both PreFilter and Score with NormalizeScore.
// PreFilterPlugin::Extensions and ScorePlugin::Extensions share a name but not a return type, so
// a class implementing both points cannot override the latter directly; this layer does it.
#pragma once

#include "stowage/framework/interface.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

class ScoreWithNormalize : public framework::ScorePlugin, public framework::ScoreExtensions {
 public:
  framework::ScoreExtensions* Extensions() override { return this; }
};

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
