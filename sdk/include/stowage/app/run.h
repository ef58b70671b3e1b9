// The front door of a custom scheduler: stowage's whole command (every flag, --config, the
// secure port, leader election, metrics, the sandbox) with out-of-tree plugins added, as
// upstream's app.NewSchedulerCommand(app.WithPlugin(...)). A custom binary's main is
//
//   int main(int argc, char** argv) {
//     return stowage::app::Run(argc, argv, {stowage::app::WithPlugin("MyPlugin", my::New)});
//   }
//
// stowage's own main is Run(argc, argv). A profile of --config enables the plugins by name, and
// their pluginConfig args reach the factory as config::RawArgs (decode them with
// config::DecodeArgs, stowage/plugin_config/raw_args.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/registry.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::app {

// Adds plugins to the out-of-tree registry; an error stops the command before it starts. The
// signature is that of a plugin's registration function, so `Register<Example>` is an Option.
using Option = std::function<stowage::Status(framework::Registry&)>;

// Registers factory under name (upstream's app.WithPlugin).
Option WithPlugin(std::string name, framework::PluginFactory factory);

// Runs the scheduler command with the plugins of options beside the in-tree ones and returns the
// process exit code. A name registered twice, or one that is an in-tree plugin's (implemented or
// not yet), makes it print the error and return 1 before parsing anything.
int Run(int argc, char** argv, const std::vector<Option>& options = {});

// The out-of-tree registry options build, or the first error: a failing Option, a duplicate, or
// a name of upstream's in-tree plugins.
StatusOr<framework::Registry> OutOfTreeRegistry(const std::vector<Option>& options);

}  // namespace stowage::app

#pragma GCC visibility pop
