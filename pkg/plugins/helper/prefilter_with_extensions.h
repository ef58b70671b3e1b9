// A base for plugins whose PreFilter state is updated by AddPod/RemovePod (nominated pods,
// preemption). PreFilterPlugin::Extensions and ScorePlugin::Extensions share a name but not a
// return type, so a plugin with both points overrides each in a layer of its own: this one and
// ScoreWithNormalize.
#pragma once

#include "pkg/framework/interface.h"

namespace stowage::plugins::helper {

class PreFilterWithExtensions : public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions {
 public:
  framework::PreFilterExtensions* Extensions() override { return this; }
};

}  // namespace stowage::plugins::helper
