// CycleState: per-pod scratch data that plugins pass from one extension point to the next within
// one scheduling cycle (e.g. PreFilter computes, Filter reads).
//
// Reading is checked: each entry remembers the type it was written as (a per-type tag, so a
// read is a string compare and a pointer compare, no dynamic_cast), and reading it as another
// type finds nothing. The runtime's own bookkeeping (which plugins PreFilter and PreScore
// skipped) is private to it.
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
#include <type_traits>
#include <utility>
#include <vector>

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::framework {

class Framework;

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

  // Stores data under key as a T (replacing what was there); Read<T> finds it again. Write the
  // concrete type a reader will ask for.
  template <typename T>
  void Write(std::string_view key, std::unique_ptr<T> data) {
    Put(key, std::move(data), TagOf<T>());
  }
  // The data under key, or nullptr when there is none or it was written as another type (as
  // upstream's Read fails on a missing key and its callers' type assertion on another type).
  template <typename T>
  const T* Read(std::string_view key) const {
    return static_cast<const T*>(Find(key, TagOf<T>()));
  }
  template <typename T>
  T* ReadMutable(std::string_view key) {
    return static_cast<T*>(const_cast<StateData*>(Find(key, TagOf<T>())));
  }
  std::unique_ptr<CycleState> Clone() const;

 private:
  friend class Framework;
  using TypeTag = const void*;
  template <typename T>
  static TypeTag TagOf() {
    static_assert(std::is_base_of_v<StateData, T>);
    static constexpr char kTag = 0;  // one address per type
    return &kTag;
  }
  struct Entry {
    std::string key;
    TypeTag tag;
    std::unique_ptr<StateData> data;
  };

  void Put(std::string_view key, std::unique_ptr<StateData> data, TypeTag tag);
  const StateData* Find(std::string_view key, TypeTag tag) const;

  std::vector<Entry> data_;  // a handful of entries

  // Runtime state. Plugins whose PreFilter / PreScore returned Skip: their Filter / Score is
  // not run.
  std::set<std::string> skip_filter_plugins_;
  std::set<std::string> skip_score_plugins_;
  // skip_filter_plugins_ as bits over the profile's Filter plugins (bit i: the i-th), set by
  // the framework after PreFilter so the per-node Filter loop needs no string lookups.
  std::optional<uint64_t> skip_filter_mask_;
};

}  // namespace stowage::framework

#pragma GCC visibility pop
