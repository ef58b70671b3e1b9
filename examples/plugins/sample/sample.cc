#include "sample.h"

#include "stowage/common/log.h"

namespace example {

using stowage::framework::Status;

namespace {

// What PreFilter found, for Filter to read (Filter runs on many threads at once and only reads).
struct WantedColor final : stowage::framework::StateData {
  std::string color;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<WantedColor>(*this); }
};
constexpr char kStateKey[] = "PreFilter/sample-plugin";

}  // namespace

Status Sample::PreFilter(stowage::framework::CycleState& state,
                         const stowage::framework::PodInfo& pod,
                         const std::vector<const stowage::framework::NodeInfo*>&,
                         stowage::framework::PreFilterResult&) {
  auto wanted = std::make_unique<WantedColor>();
  const std::string* own = pod.pod->metadata.labels.Get("favorite-color");
  wanted->color = own != nullptr ? *own : args_.favorite_color;
  STOWAGE_VLOG(3) << "prefilter pod: " << pod.pod->metadata.name << " wants " << wanted->color;
  state.Write(kStateKey, std::move(wanted));
  return Status();
}

Status Sample::Filter(const stowage::framework::CycleState& state,
                      const stowage::framework::PodInfo&,
                      const stowage::framework::NodeInfo& node) {
  const WantedColor* wanted = state.Read<WantedColor>(kStateKey);
  if (wanted == nullptr) return Status::Error("PreFilter state missing");
  const std::string* color = node.node()->metadata.labels.Get("favorite-color");
  if (color == nullptr || *color != wanted->color) {
    return Status::Unschedulable("node's favorite-color is not " + wanted->color);
  }
  return Status();
}

Status Sample::PreBind(stowage::framework::CycleState&, const stowage::api::Pod& pod,
                       std::string_view node) {
  if (handle_.SnapshotSharedLister().Get(node) == nullptr) {
    return Status::Error("prebind get node info error: " + std::string(node));
  }
  STOWAGE_LOG(INFO) << "prebind " << pod.metadata.namespace_ << "/" << pod.metadata.name << " on "
                    << node << ", favorite number " << args_.favorite_number << ", thanks to "
                    << args_.thanks_to;
  return Status();
}

}  // namespace example
