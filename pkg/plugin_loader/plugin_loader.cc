#include "pkg/plugin_loader/plugin_loader.h"

#include <dlfcn.h>

#include <map>
#include <string_view>

#include "pkg/common/go_quote.h"
#include "pkg/common/logging.h"
#include "pkg/common/macros.h"
#include "pkg/plugin_loader/root_owned_file.h"
#include "stowage/framework/plugin_library.h"

namespace stowage::plugin_loader {
namespace {

// The entry point's type, as STOWAGE_PLUGIN_LIBRARY defines it.
using EntryFn = void (*)(framework::Registry*, Status*);

// dlerror's text names the /proc/self/fd path it was given; the operator wants the real one.
std::string DlError(const std::string& proc_path, const std::string& path) {
  const char* e = ::dlerror();
  std::string text = e != nullptr ? e : "unknown dlopen error";
  for (size_t at = text.find(proc_path); at != std::string::npos;
       at = text.find(proc_path, at + path.size())) {
    text.replace(at, proc_path.size(), path);
  }
  return text;
}

// Maps the checked library and verifies its tag; the handle is closed on any refusal.
StatusOr<void*> Open(const std::string& path, const std::string& where) {
  ASSIGN_OR_RETURN(OwnedFd fd, OpenRootOwnedFile(path));
  const std::string proc_path = "/proc/self/fd/" + std::to_string(fd.get());
  // RTLD_NOW: an undefined symbol (a plugin built against an API the binary lacks) fails here
  // rather than at its first call in the middle of a scheduling cycle. RTLD_LOCAL: one library's
  // symbols are not used to resolve another's.
  void* handle = ::dlopen(proc_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return FailedPreconditionError(where + ": dlopen: " + DlError(proc_path, path));
  }
  // The descriptor stays open for good: the dynamic linker knows the library by its
  // /proc/self/fd name, and a later library opened under a reused number would be taken for it.
  (void)fd.release();
  auto refuse = [&](std::string why) {
    ::dlclose(handle);
    return FailedPreconditionError(where + ": " + why);
  };
  const auto* tag = static_cast<const char*>(::dlsym(handle, framework::kPluginAbiTagSymbol));
  if (tag == nullptr) {
    return refuse("no symbol " + std::string(framework::kPluginAbiTagSymbol) +
                  ": not a stowage plugin library (STOWAGE_PLUGIN_LIBRARY missing)");
  }
  if (std::string_view(tag) != framework::kPluginAbiTag) {
    return refuse("ABI tag mismatch: the library was built as \"" + std::string(tag) +
                  "\", this scheduler as \"" + std::string(framework::kPluginAbiTag) +
                  "\"; rebuild the library against this stowage's SDK with the same compiler");
  }
  if (::dlsym(handle, framework::kPluginEntrySymbol) == nullptr) {
    return refuse("no entry point " + std::string(framework::kPluginEntrySymbol) +
                  " (STOWAGE_PLUGIN_LIBRARY missing)");
  }
  return handle;
}

}  // namespace

StatusOr<std::vector<LoadedLibrary>> LoadPluginLibraries(const std::vector<std::string>& paths,
                                                         framework::Registry& registry) {
  // Who registered each name, for the clash message.
  std::map<std::string, std::string, std::less<>> owner;
  for (const auto& [name, factory] : registry.factories()) owner[name] = "the scheduler binary";
  std::vector<LoadedLibrary> loaded;
  for (const std::string& path : paths) {
    const std::string where = "plugin library " + GoQuote(path);
    ASSIGN_OR_RETURN(void* handle, Open(path, where));
    auto entry = reinterpret_cast<EntryFn>(::dlsym(handle, framework::kPluginEntrySymbol));
    framework::Registry own;
    Status registered;
    entry(&own, &registered);
    if (!registered.ok()) {
      // The library's factories die with own; nothing of it is referenced any more.
      ::dlclose(handle);
      return registered.WithPrefix(where + ": registration failed");
    }
    LoadedLibrary lib{.path = path};
    for (const auto& [name, factory] : own.factories()) {
      if (auto it = owner.find(name); it != owner.end()) {
        return AlreadyExistsError(where + ": plugin \"" + name + "\" is already registered by " +
                                  it->second);
      }
      lib.plugins.push_back(name);
    }
    // Checked above, so the merge cannot fail half-way.
    RETURN_IF_ERROR(registry.Merge(own));
    for (const std::string& name : lib.plugins) owner[name] = where;
    std::string names;
    for (const std::string& name : lib.plugins) names += (names.empty() ? "" : ", ") + name;
    LOG_INFO("loaded {} with plugins {}", where, names);
    loaded.push_back(std::move(lib));
  }
  return loaded;
}

}  // namespace stowage::plugin_loader
