#include "pkg/plugins/dynamic_resources/cel_compiler.h"

#include <utility>

namespace stowage::plugins::dynamic_resources {
namespace {

// One compiled selector; the program owns its Go-side handle.
class CelSelector final : public dra::DeviceSelector {
 public:
  explicit CelSelector(cel::Program program) : program_(std::move(program)) {}
  StatusOr<bool> Matches(const dra::DeviceView& view) const override {
    return program_.Matches(view.device, view.driver);
  }

 private:
  cel::Program program_;
};

}  // namespace

StatusOr<dra::DeviceSelectorPtr> CelSelectorCompiler::Compile(std::string_view expression) const {
  StatusOr<cel::Program> program = engine_.Compile(expression);
  if (!program.ok()) return program.status();
  return dra::DeviceSelectorPtr(std::make_shared<const CelSelector>(std::move(*program)));
}

}  // namespace stowage::plugins::dynamic_resources
