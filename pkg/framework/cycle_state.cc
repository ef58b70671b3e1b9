#include "pkg/framework/cycle_state.h"

namespace stowage::framework {

void CycleState::Write(std::string_view key, std::unique_ptr<StateData> data) {
  for (auto& [k, v] : data_) {
    if (k == key) {
      v = std::move(data);
      return;
    }
  }
  data_.emplace_back(std::string(key), std::move(data));
}

const StateData* CycleState::Find(std::string_view key) const {
  for (const auto& [k, v] : data_) {
    if (k == key) return v.get();
  }
  return nullptr;
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto c = std::make_unique<CycleState>();
  c->data_.reserve(data_.size());
  for (const auto& [k, v] : data_) c->data_.emplace_back(k, v ? v->Clone() : nullptr);
  c->skip_filter_plugins = skip_filter_plugins;
  c->skip_score_plugins = skip_score_plugins;
  c->skip_filter_mask = skip_filter_mask;
  return c;
}

}  // namespace stowage::framework
