// Registry: plugin names to factories. stowage's in-tree plugins are listed explicitly in
// pkg/plugins/registry.cc (no static registration: one auditable list, and it works when linked
// as static archives); out-of-tree plugins are added with Register or Merge before the scheduler
// is built.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "pkg/common/status.h"
#include "pkg/framework/handle.h"
#include "pkg/framework/interface.h"

namespace stowage::framework {

// Builds a plugin. args holds the plugin's typed arguments from the configuration's
// pluginConfig (e.g. config::NodeResourcesFitArgs), or is empty when none were given.
using PluginFactory =
    std::function<StatusOr<std::unique_ptr<Plugin>>(const std::any& args, Handle& handle)>;

class Registry {
 public:
  // Fails if the name is already registered.
  stowage::Status Register(std::string name, PluginFactory factory);
  // Adds every entry of other; fails on the first duplicate name.
  stowage::Status Merge(const Registry& other);
  const PluginFactory* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  const std::map<std::string, PluginFactory, std::less<>>& factories() const { return factories_; }

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace stowage::framework
