// Registry: plugin names to factories. stowage's in-tree plugins are listed explicitly in
// pkg/plugins/registry.cc (no static registration: one auditable list, and it works when linked
// as static archives); out-of-tree plugins are added with Register or Merge before the scheduler
// is built.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/plugin_config/args.h"
#include "stowage/plugin_config/features.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// A plugin's args as the configuration's pluginConfig gave them: typed for in-tree args kinds,
// RawArgs (JSON text) for others, std::monostate for none.
using PluginArgs = config::PluginArgs;
// The feature gates, as --feature-gates set them.
using Features = config::Features;

// Builds a plugin. The args were decoded, defaulted and validated by pkg/config, so a factory
// trusts them; out-of-tree plugins decode RawArgs with config::DecodeArgs (args/raw_args.h).
using PluginFactory = std::function<StatusOr<std::unique_ptr<Plugin>>(
    const PluginArgs& args, Handle& handle, const Features& features)>;

// The factory of a plugin with an in-tree args kind: make receives the typed args (value-
// initialised when the profile gave none). Args of another kind fail with upstream's message.
template <typename Args, typename Make>
PluginFactory WithArgs(Make make) {
  return [make = std::move(make)](const PluginArgs& args, Handle& handle,
                                  const Features& features) -> StatusOr<std::unique_ptr<Plugin>> {
    if (const Args* typed = std::get_if<Args>(&args)) return make(*typed, handle, features);
    if (std::holds_alternative<std::monostate>(args)) return make(Args{}, handle, features);
    const std::string_view got = config::ArgsKind(args);
    return InvalidArgumentError("want args to be of type " + std::string(config::KindOf<Args>()) +
                                ", got " + std::string(got.empty() ? "RawArgs" : got));
  };
}

class Registry {
 public:
  // Fails if the name is already registered.
  stowage::Status Register(std::string name, PluginFactory factory);
  // Adds every entry of other; fails on the first duplicate name.
  stowage::Status Merge(const Registry& other);
  const PluginFactory* Find(std::string_view name) const;
  // Builds the named plugin of profile. An unknown name or a factory's error is an error naming
  // the profile and the plugin, as upstream's framework reports them.
  StatusOr<std::unique_ptr<Plugin>> Build(std::string_view profile, std::string_view name,
                                          const PluginArgs& args, Handle& handle,
                                          const Features& features) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  const std::map<std::string, PluginFactory, std::less<>>& factories() const { return factories_; }

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace stowage::framework

#pragma GCC visibility pop
