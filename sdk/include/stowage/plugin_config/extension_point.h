// ExtensionPoint: the one list of the scheduling framework's extension points, shared by the
// configuration (which names them in `plugins`), the runtime (which runs them) and the metrics
// (which label by them). Everything else is derived from kExtensionPoints, indexed by the enum.
//
// It lives in pkg/plugin_config, below both config and the framework, so that config and
// metrics use it without linking the plugin API. Pure constants: thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

// The configurable points come first, in the order of the v1 `plugins` fields; the points the
// runtime measures but a configuration never names (sub-steps of a point) follow.
enum class ExtensionPoint : uint8_t {
  kPreEnqueue,
  kQueueSort,
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kReserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
  kPlacementGenerate,
  kPlacementScore,
  kPodGroupPostFilter,
  // Not configurable: upstream's metric labels for parts of a point.
  kPreFilterExtensionAddPod,
  kPreFilterExtensionRemovePod,
  kScoreExtensionNormalize,
  kPreBindPreFlight,
  kUnreserve,
  kSign,
};

struct ExtensionPointInfo {
  ExtensionPoint point;
  // The field under a profile's `plugins` ("preFilter"); empty when not configurable.
  std::string_view field;
  // Upstream's Go interface ("PreFilterPlugin"), quoted by configuration errors.
  std::string_view interface_name;
  // The "extension_point" label of upstream's metrics ("PreFilter").
  std::string_view metric_label;
};

inline constexpr auto kExtensionPoints = std::to_array<ExtensionPointInfo>({
    {ExtensionPoint::kPreEnqueue, "preEnqueue", "PreEnqueuePlugin", "PreEnqueue"},
    {ExtensionPoint::kQueueSort, "queueSort", "QueueSortPlugin", "QueueSort"},
    {ExtensionPoint::kPreFilter, "preFilter", "PreFilterPlugin", "PreFilter"},
    {ExtensionPoint::kFilter, "filter", "FilterPlugin", "Filter"},
    {ExtensionPoint::kPostFilter, "postFilter", "PostFilterPlugin", "PostFilter"},
    {ExtensionPoint::kPreScore, "preScore", "PreScorePlugin", "PreScore"},
    {ExtensionPoint::kScore, "score", "ScorePlugin", "Score"},
    {ExtensionPoint::kReserve, "reserve", "ReservePlugin", "Reserve"},
    {ExtensionPoint::kPermit, "permit", "PermitPlugin", "Permit"},
    {ExtensionPoint::kPreBind, "preBind", "PreBindPlugin", "PreBind"},
    {ExtensionPoint::kBind, "bind", "BindPlugin", "Bind"},
    {ExtensionPoint::kPostBind, "postBind", "PostBindPlugin", "PostBind"},
    {ExtensionPoint::kPlacementGenerate, "placementGenerate", "PlacementGeneratePlugin",
     "PlacementGenerate"},
    {ExtensionPoint::kPlacementScore, "placementScore", "PlacementScorePlugin", "PlacementScore"},
    {ExtensionPoint::kPodGroupPostFilter, "podGroupPostFilter", "PodGroupPostFilterPlugin",
     "PodGroupPostFilter"},
    {ExtensionPoint::kPreFilterExtensionAddPod, "", "", "PreFilterExtensionAddPod"},
    {ExtensionPoint::kPreFilterExtensionRemovePod, "", "", "PreFilterExtensionRemovePod"},
    {ExtensionPoint::kScoreExtensionNormalize, "", "", "ScoreExtensionNormalize"},
    {ExtensionPoint::kPreBindPreFlight, "", "", "PreBindPreFlight"},
    {ExtensionPoint::kUnreserve, "", "", "Unreserve"},
    {ExtensionPoint::kSign, "", "", "Sign"},
});
// Every point, configurable or not: the size of per-point metric arrays.
inline constexpr size_t kNumExtensionPoints = kExtensionPoints.size();

constexpr const ExtensionPointInfo& Info(ExtensionPoint point) {
  return kExtensionPoints[static_cast<size_t>(point)];
}

// The points a profile configures (those with a field), in enum order.
inline constexpr size_t kNumConfigurableExtensionPoints = [] {
  size_t n = 0;
  while (n < kExtensionPoints.size() && !kExtensionPoints[n].field.empty()) ++n;
  return n;
}();
inline constexpr auto kConfigurableExtensionPoints = [] {
  std::array<ExtensionPoint, kNumConfigurableExtensionPoints> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = kExtensionPoints[i].point;
  return out;
}();

// The table is in enum order and the configurable points lead it.
static_assert([] {
  for (size_t i = 0; i < kExtensionPoints.size(); ++i) {
    if (static_cast<size_t>(kExtensionPoints[i].point) != i) return false;
    if (i >= kNumConfigurableExtensionPoints && !kExtensionPoints[i].field.empty()) return false;
  }
  return true;
}());

}  // namespace stowage::framework

#pragma GCC visibility pop
