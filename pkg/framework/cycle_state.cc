#include "stowage/framework/cycle_state.h"

namespace stowage::framework {

void CycleState::Put(std::string_view key, std::unique_ptr<StateData> data, TypeTag tag) {
  for (Entry& e : data_) {
    if (e.key == key) {
      e.tag = tag;
      e.data = std::move(data);
      return;
    }
  }
  data_.push_back({std::string(key), tag, std::move(data)});
}

const StateData* CycleState::Find(std::string_view key, TypeTag tag) const {
  for (const Entry& e : data_) {
    if (e.key == key) return e.tag == tag ? e.data.get() : nullptr;
  }
  return nullptr;
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto c = std::make_unique<CycleState>();
  c->data_.reserve(data_.size());
  for (const Entry& e : data_)
    c->data_.push_back({e.key, e.tag, e.data ? e.data->Clone() : nullptr});
  c->skip_filter_plugins_ = skip_filter_plugins_;
  c->skip_score_plugins_ = skip_score_plugins_;
  c->skip_filter_mask_ = skip_filter_mask_;
  return c;
}

}  // namespace stowage::framework
