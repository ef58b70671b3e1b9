// The registration, apart from the plugin, so a scheduler binary and a plugin library can both
// call it.
#include "node_score_label.h"

namespace example {

stowage::Status RegisterNodeScoreLabel(stowage::framework::Registry& registry) {
  return registry.Register(
      kNodeScoreLabel,
      [](const stowage::framework::PluginArgs&, stowage::framework::Handle&,
         const stowage::framework::Features&)
          -> stowage::StatusOr<std::unique_ptr<stowage::framework::Plugin>> {
        return std::unique_ptr<stowage::framework::Plugin>(std::make_unique<NodeScoreLabel>());
      });
}

}  // namespace example
