// The registration, apart from the plugin, so a scheduler binary and a plugin library can both
// call it.
#include "node_name_score.h"

namespace example {

stowage::Status RegisterNameScore(stowage::framework::Registry& registry) {
  return registry.Register(
      kNameScore,
      [](const stowage::framework::PluginArgs&, stowage::framework::Handle&,
         const stowage::framework::Features&)
          -> stowage::StatusOr<std::unique_ptr<stowage::framework::Plugin>> {
        return std::unique_ptr<stowage::framework::Plugin>(std::make_unique<NameScore>());
      });
}

}  // namespace example
