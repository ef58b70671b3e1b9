// The plugin library of the loader's tests (tests/unit/plugin_loader, tests/integration/app):
//   * PreferScoreLabel (Score): a node's score is its label plugin-library.stowage.test/score
//     (0 to 100), 0 without it;
//   * RefuseLabelled (Filter): a node labelled plugin-library.stowage.test/refuse does not fit.
// Built several ways from this one file: as it is; with STOWAGE_TEST_PLUGIN_FAIL its registration
// fails; with another STOWAGE_SDK_VERSION its ABI tag differs from the scheduler's.
#include <charconv>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "stowage/framework/interface.h"
#include "stowage/framework/plugin_library.h"
#include "stowage/framework/registry.h"

namespace stowage::testplugins {
namespace {

constexpr std::string_view kScoreLabel = "plugin-library.stowage.test/score";
constexpr std::string_view kRefuseLabel = "plugin-library.stowage.test/refuse";

class PreferScoreLabel final : public framework::ScorePlugin {
 public:
  std::string_view Name() const override { return "PreferScoreLabel"; }
  framework::Status Score(const framework::CycleState&, const framework::PodInfo&,
                          const framework::NodeInfo& node, int64_t& score) override {
    score = 0;
    const std::string* value = node.node()->metadata.labels.Get(kScoreLabel);
    if (value == nullptr) return {};
    int64_t parsed = 0;
    auto [end, err] = std::from_chars(value->data(), value->data() + value->size(), parsed);
    if (err != std::errc() || end != value->data() + value->size()) {
      return framework::Status::Error("label " + std::string(kScoreLabel) + " is not a number");
    }
    score = std::clamp<int64_t>(parsed, framework::kMinNodeScore, framework::kMaxNodeScore);
    return {};
  }
};
static_assert(std::is_base_of_v<framework::ScorePlugin, PreferScoreLabel>);

class RefuseLabelled final : public framework::FilterPlugin {
 public:
  std::string_view Name() const override { return "RefuseLabelled"; }
  framework::Status Filter(const framework::CycleState&, const framework::PodInfo&,
                           const framework::NodeInfo& node) override {
    if (node.node()->metadata.labels.Has(kRefuseLabel)) {
      return framework::Status::Unschedulable("node(s) refused by RefuseLabelled");
    }
    return {};
  }
};
static_assert(std::is_base_of_v<framework::FilterPlugin, RefuseLabelled>);

template <typename P>
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs&, framework::Handle&,
                                                 const framework::Features&) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<P>());
}

Status Register(framework::Registry& registry) {
#ifdef STOWAGE_TEST_PLUGIN_FAIL
  return FailedPreconditionError("the test library refuses to register");
#endif
  if (Status s = registry.Register("PreferScoreLabel", New<PreferScoreLabel>); !s.ok()) return s;
  return registry.Register("RefuseLabelled", New<RefuseLabelled>);
}

}  // namespace
}  // namespace stowage::testplugins

STOWAGE_PLUGIN_LIBRARY(stowage::testplugins::Register)
