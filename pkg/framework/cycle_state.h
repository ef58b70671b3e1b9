// CycleState: per-pod scratch data that plugins pass from one extension point to the next within
// one scheduling cycle (e.g. PreFilter computes, Filter reads).
//
// Thread-safety: Write happens only in the sequential phases (PreFilter, PreScore, Reserve); the
// parallel phases (Filter, Score) only Read, so no lock is needed. Preemption clones the state
// to simulate removing pods without disturbing the real cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stowage::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> Clone() const = 0;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  void Write(std::string_view key, std::unique_ptr<StateData> data);
  // The data under key, or nullptr. T must be the type written.
  template <typename T>
  const T* Read(std::string_view key) const {
    return static_cast<const T*>(Find(key));
  }
  template <typename T>
  T* ReadMutable(std::string_view key) {
    return static_cast<T*>(const_cast<StateData*>(Find(key)));
  }
  std::unique_ptr<CycleState> Clone() const;

  // Plugins whose PreFilter / PreScore returned Skip: their Filter / Score is not run.
  std::set<std::string> skip_filter_plugins;
  std::set<std::string> skip_score_plugins;
  // skip_filter_plugins as bits over the profile's Filter plugins (bit i: the i-th), set by the
  // framework after PreFilter so the per-node Filter loop needs no string lookups.
  std::optional<uint64_t> skip_filter_mask;

 private:
  const StateData* Find(std::string_view key) const;
  std::vector<std::pair<std::string, std::unique_ptr<StateData>>> data_;  // a handful of entries
};

}  // namespace stowage::framework
