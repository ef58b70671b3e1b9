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
  // The tag first: a pointer compare rules out most entries before a string compare. Keys are
  // unique, so an entry under key with another tag is never matched and the result is nullptr,
  // as reading it as another type should be.
  for (const Entry& e : data_) {
    if (e.tag == tag && e.key == key) return e.data.get();
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
