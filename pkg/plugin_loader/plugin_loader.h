// Loading plugin libraries (--plugin-library) into the scheduler's registry at start-up.
//
// Each library is opened through OpenRootOwnedFile and mapped with dlopen on that descriptor
// (/proc/self/fd/N), so the file checked is the file loaded. Before anything in it is called, its
// ABI tag (stowage/framework/plugin_library.h) must equal the scheduler's own; then its
// registration function fills a registry of its own, whose names are merged into the scheduler's
// only if none is taken already. A library is never unloaded: its plugins' code lives in it.
//
// Call from main's thread before the sandbox is entered (opening and mapping files is what the
// sandbox takes away) and before profiles are built. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/registry.h"

namespace stowage::plugin_loader {

// What one library added.
struct LoadedLibrary {
  std::string path;
  std::vector<std::string> plugins;  // sorted
};

// Loads every library of paths, in order, into registry, whose existing entries are taken to be
// compiled into the scheduler. Stops at the first library refused; the error names its path and
// the reason (not found, ownership or mode, ABI tag mismatch with both tags, a missing symbol,
// dlopen's own error, the registration function's error, a plugin name already registered and
// by whom). Libraries loaded before the refused one stay mapped.
StatusOr<std::vector<LoadedLibrary>> LoadPluginLibraries(const std::vector<std::string>& paths,
                                                         framework::Registry& registry);

}  // namespace stowage::plugin_loader
