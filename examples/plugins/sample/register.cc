// The registration, apart from the plugin, so a scheduler binary and a plugin library can both
// call it. The args arrive as the raw JSON of pluginConfig and are decoded here, once.
#include "sample.h"

namespace example {

stowage::Status RegisterSample(stowage::framework::Registry& registry) {
  return registry.Register(
      kSample,
      [](const stowage::framework::PluginArgs& raw, stowage::framework::Handle& handle,
         const stowage::framework::Features&)
          -> stowage::StatusOr<std::unique_ptr<stowage::framework::Plugin>> {
        auto args = stowage::config::DecodeArgs<SampleArgs>(kSample, raw);
        if (!args.ok()) return args.status();
        return std::unique_ptr<stowage::framework::Plugin>(
            std::make_unique<Sample>(std::move(*args), handle));
      });
}

}  // namespace example
