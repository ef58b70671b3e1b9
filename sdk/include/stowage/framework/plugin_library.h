// The contract of a loadable plugin library: a shared object that stowage opens at start-up
// (--plugin-library, pkg/plugin_loader) and whose registration function adds plugins to the
// scheduler's registry, so a plugin runs without rebuilding the scheduler.
//
// A library says, in one source file:
//
//   #include "stowage/framework/plugin_library.h"
//   #include "stowage/framework/registry.h"
//   stowage::Status RegisterMyPlugins(stowage::framework::Registry& registry) {
//     return registry.Register("MyPlugin", &NewMyPlugin);
//   }
//   STOWAGE_PLUGIN_LIBRARY(RegisterMyPlugins)
//
// The macro exports two C-linkage symbols: the ABI tag (kPluginAbiTagSymbol), a string computed
// here at the library's compile time, and the entry point (kPluginEntrySymbol). The scheduler
// compiles this same header, so its own tag and the library's are equal exactly when both were
// built by the same compiler and version, against the same C++ standard library and ABI, in the
// same C++ standard and against the same SDK version: the conditions under which passing C++
// objects (Registry, std::function, std::string) between the two is sound. The loader compares
// the strings before it calls anything and refuses a library whose tag differs.
//
// This header includes standard-library headers only; the types the macro names come from the
// plugin's own includes (registry.h), since the macro expands in the plugin's source file.
// STOWAGE_SDK_VERSION is defined by the stowage_plugin_library target (and the installed SDK's),
// from the project's version.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <version>  // the standard library's identification macros

#ifndef STOWAGE_SDK_VERSION
#error "STOWAGE_SDK_VERSION is undefined: build plugin libraries against stowage's SDK target"
#endif

#define STOWAGE_PLUGIN_STR_(x) #x
#define STOWAGE_PLUGIN_STR(x) STOWAGE_PLUGIN_STR_(x)

// The compiler family and its full version.
#if defined(__clang__)
#define STOWAGE_PLUGIN_ABI_COMPILER                                    \
  "clang " STOWAGE_PLUGIN_STR(__clang_major__) "." STOWAGE_PLUGIN_STR( \
      __clang_minor__) "." STOWAGE_PLUGIN_STR(__clang_patchlevel__)
#elif defined(__GNUC__)
#define STOWAGE_PLUGIN_ABI_COMPILER                           \
  "gcc " STOWAGE_PLUGIN_STR(__GNUC__) "." STOWAGE_PLUGIN_STR( \
      __GNUC_MINOR__) "." STOWAGE_PLUGIN_STR(__GNUC_PATCHLEVEL__)
#else
#define STOWAGE_PLUGIN_ABI_COMPILER "unknown-compiler"
#endif

// The C++ standard library, its release and its ABI switch (libstdc++'s dual ABI changes the
// layout of std::string and std::list; libc++'s ABI version changes its inline namespace).
#if defined(_LIBCPP_VERSION)
#define STOWAGE_PLUGIN_ABI_STDLIB \
  "libc++ " STOWAGE_PLUGIN_STR(_LIBCPP_VERSION) " abi=" STOWAGE_PLUGIN_STR(_LIBCPP_ABI_VERSION)
#elif defined(__GLIBCXX__)
#define STOWAGE_PLUGIN_ABI_STDLIB                                                    \
  "libstdc++ " STOWAGE_PLUGIN_STR(_GLIBCXX_RELEASE) " cxx11abi=" STOWAGE_PLUGIN_STR( \
      _GLIBCXX_USE_CXX11_ABI)
#else
#define STOWAGE_PLUGIN_ABI_STDLIB "unknown-stdlib"
#endif

// The whole tag, e.g. "gcc 12.2.0; libstdc++ 12 cxx11abi=1; c++ 202002L; stowage-sdk 0.1.0".
#define STOWAGE_PLUGIN_ABI_TAG   \
  STOWAGE_PLUGIN_ABI_COMPILER    \
  "; " STOWAGE_PLUGIN_ABI_STDLIB \
  "; c++ " STOWAGE_PLUGIN_STR(__cplusplus) "; stowage-sdk " STOWAGE_SDK_VERSION

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// The names the loader looks up with dlsym.
inline constexpr char kPluginAbiTagSymbol[] = "stowage_plugin_abi_tag";
inline constexpr char kPluginEntrySymbol[] = "stowage_plugin_register";

// The tag of whatever includes this header: the scheduler's own when the loader compiles it.
inline constexpr std::string_view kPluginAbiTag = STOWAGE_PLUGIN_ABI_TAG;

}  // namespace stowage::framework

// Exports the tag and an entry point that runs fn(registry) into *status. An exception escaping
// fn becomes an error status rather than unwinding through the loader.
#define STOWAGE_PLUGIN_LIBRARY(fn)                                                        \
  extern "C" __attribute__((visibility("default"))) const char stowage_plugin_abi_tag[] = \
      STOWAGE_PLUGIN_ABI_TAG;                                                             \
  extern "C" __attribute__((visibility("default"))) void stowage_plugin_register(         \
      ::stowage::framework::Registry* registry, ::stowage::Status* status) {              \
    try {                                                                                 \
      *status = fn(*registry);                                                            \
    } catch (const std::exception& e) {                                                   \
      *status = ::stowage::InternalError(std::string("registration threw: ") + e.what()); \
    }                                                                                     \
  }

#pragma GCC visibility pop
