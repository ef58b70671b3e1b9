// ImageLocality (upstream plugins/imagelocality): prefers nodes that already hold the pod's
// images, so less has to be pulled.
//
// Score sums, over the images of the pod's init containers, containers and image volumes that
// the node holds, size * (nodes holding the image / all nodes); the spread factor damps images
// present everywhere so pods do not pile onto a few nodes ("node heating"). The sum is clamped
// to [23 MiB, 1000 MiB * images] and mapped linearly onto [0, 100], where images counts the
// containers, init containers and image volumes (1.37; 1.36 left image volumes out of the
// bound, so an image volume could raise a score twice as fast). Names are compared
// after appending ":latest" to untagged references; nothing else is normalised (a
// "docker.io/library/" prefix is not added or removed, as upstream). There is no
// NormalizeScore. Thread-safe: Score only reads the node and the snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::plugins::image_locality {

inline constexpr std::string_view kName = "ImageLocality";
inline constexpr int64_t kMiB = 1024 * 1024;
// Bounds of the score range: roughly the 90th percentile range of compressed image sizes.
inline constexpr int64_t kMinThreshold = 23 * kMiB;
inline constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

class ImageLocality final : public framework::ScorePlugin {
 public:
  explicit ImageLocality(const framework::Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t& score) override;

 private:
  const framework::Handle& handle_;
};
static_assert(std::is_base_of_v<framework::ScorePlugin, ImageLocality>);

// The name a container runtime reports for image: ":latest" appended when the reference has no
// tag after its last '/' (a digest reference "name@sha256:..." counts as tagged).
std::string NormalizedImageName(std::string_view image);

// The pod's image score on node, before clamping (see above).
int64_t SumImageScores(const framework::NodeInfo& node, const api::Pod& pod, size_t total_nodes);

// The images the pod names: containers, init containers and image volumes.
size_t ImageCount(const api::Pod& pod);

// Maps a summed image score onto [0, 100] for a pod naming image_count images.
int64_t CalculatePriority(int64_t sum_scores, size_t image_count);

// Takes no arguments; keeps handle for the snapshot's node count.
StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& args,
                                                 framework::Handle& handle,
                                                 const framework::Features& features);

}  // namespace stowage::plugins::image_locality
