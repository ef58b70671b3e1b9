#include "pkg/plugins/image_locality/image_locality.h"

namespace stowage::plugins::image_locality {
namespace {

// size scaled by the fraction of nodes holding the image, computed in double precision and
// truncated toward zero, as upstream does.
int64_t ScaledImageScore(const framework::ImageStateSummary& state, size_t total_nodes) {
  if (total_nodes == 0) return 0;  // cannot happen for a node taken from the snapshot
  double spread = static_cast<double>(state.num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(state.size) * spread);
}

// Writes image's normalized name into out, reusing out's storage.
void NormalizeInto(std::string_view image, std::string& out) {
  // Positions as signed values, so "not found" (-1) orders before every index.
  auto last = [&](char c) {
    size_t pos = image.rfind(c);
    return pos == std::string_view::npos ? int64_t{-1} : static_cast<int64_t>(pos);
  };
  out.assign(image);
  if (last(':') <= last('/')) out += ":latest";
}

int64_t ScoreOf(const framework::NodeInfo& node, std::string_view image, size_t total_nodes) {
  const auto& states = node.image_states();
  // One buffer per thread: Score runs for every node and image, and a name longer than the
  // small-string buffer would otherwise be allocated and freed each time.
  thread_local std::string key;
  NormalizeInto(image, key);
  auto it = states.find(key);
  return it == states.end() ? 0 : ScaledImageScore(it->second, total_nodes);
}

}  // namespace

std::string NormalizedImageName(std::string_view image) {
  std::string name;
  NormalizeInto(image, name);
  return name;
}

int64_t SumImageScores(const framework::NodeInfo& node, const api::Pod& pod, size_t total_nodes) {
  // A node that reports no images scores 0 whatever the pod names.
  if (node.image_states().empty()) return 0;
  int64_t sum = 0;
  for (const auto& c : pod.spec.init_containers) sum += ScoreOf(node, c.image, total_nodes);
  for (const auto& c : pod.spec.containers) sum += ScoreOf(node, c.image, total_nodes);
  for (const auto& v : pod.spec.volumes) {
    if (v.source == "image") sum += ScoreOf(node, v.image_reference, total_nodes);
  }
  return sum;
}

size_t ImageCount(const api::Pod& pod) {
  size_t n = pod.spec.init_containers.size() + pod.spec.containers.size();
  for (const auto& v : pod.spec.volumes) n += v.source == "image" ? 1 : 0;
  return n;
}

int64_t CalculatePriority(int64_t sum_scores, size_t image_count) {
  int64_t max_threshold = kMaxContainerThreshold * static_cast<int64_t>(image_count);
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

framework::Status ImageLocality::Score(const framework::CycleState& /*state*/,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t& score) {
  size_t total_nodes = handle_.SnapshotSharedLister().List().size();
  int64_t sum = SumImageScores(node, *pod, total_nodes);
  score = CalculatePriority(sum, ImageCount(*pod));
  return {};
}

StatusOr<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& handle,
                                                 const framework::Features& /*features*/) {
  return std::unique_ptr<framework::Plugin>(std::make_unique<ImageLocality>(handle));
}

}  // namespace stowage::plugins::image_locality
