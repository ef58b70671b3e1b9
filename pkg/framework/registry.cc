#include "stowage/framework/registry.h"

namespace stowage::framework {

stowage::Status Registry::Register(std::string name, PluginFactory factory) {
  if (factories_.count(name)) {
    return AlreadyExistsError("a plugin named \"" + name + "\" is already registered");
  }
  factories_.emplace(std::move(name), std::move(factory));
  return OkStatus();
}

stowage::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, f] : other.factories_) {
    if (auto s = Register(name, f); !s.ok()) return s;
  }
  return OkStatus();
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

StatusOr<std::unique_ptr<Plugin>> Registry::Build(std::string_view profile, std::string_view name,
                                                  const PluginArgs& args, Handle& handle,
                                                  const Features& features) const {
  const std::string where = "profile \"" + std::string(profile) + "\": ";
  const PluginFactory* factory = Find(name);
  if (factory == nullptr) {
    return NotFoundError(where + "plugin \"" + std::string(name) + "\" does not exist");
  }
  auto plugin = (*factory)(args, handle, features);
  if (!plugin.ok()) {
    return plugin.status().WithPrefix(where + "initializing plugin \"" + std::string(name) + "\"");
  }
  return plugin;
}

}  // namespace stowage::framework
