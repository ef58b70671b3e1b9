// CelSelectorCompiler: the allocator's SelectorCompiler over the real CEL engine (pkg/cel), so
// device selectors are evaluated by upstream's own cel-go environment. Compile errors and
// runtime errors carry the engine's texts, which are upstream's; the allocator adds the
// "class <name>: selector #<i>: CEL compile error: " prefixes (docs/cel.md).
//
// Thread-safety: Compile and the selectors' Matches may be called from any number of threads
// (cel::Engine is thread-safe). The engine loads its library at the first Compile, so a
// scheduler that never sees a selector never starts the Go runtime.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pkg/cel/engine.h"
#include "pkg/dra/selector.h"

namespace stowage::plugins::dynamic_resources {

class CelSelectorCompiler final : public dra::SelectorCompiler {
 public:
  // Uses the bridge at cel::Engine::DefaultLibraryPath().
  CelSelectorCompiler() = default;
  explicit CelSelectorCompiler(std::string library_path) : engine_(std::move(library_path)) {}

  StatusOr<dra::DeviceSelectorPtr> Compile(std::string_view expression) const override;

 private:
  // Compiling takes the engine's own lock; the interface is const because compiling changes
  // nothing a caller can observe.
  mutable cel::Engine engine_;
};

}  // namespace stowage::plugins::dynamic_resources
