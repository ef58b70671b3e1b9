// The registration, apart from the plugin, so a scheduler binary and a plugin library can both
// call it.
#include "random_score.h"

namespace example {

stowage::Status RegisterExamplePlugin(stowage::framework::Registry& registry) {
  return registry.Register(
      kExamplePlugin,
      [](const stowage::framework::PluginArgs&, stowage::framework::Handle&,
         const stowage::framework::Features&)
          -> stowage::StatusOr<std::unique_ptr<stowage::framework::Plugin>> {
        return std::unique_ptr<stowage::framework::Plugin>(std::make_unique<RandomScore>());
      });
}

}  // namespace example
