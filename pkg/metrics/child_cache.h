// ChildCache: the series of one labelled family, looked up by label values without building a
// prometheus::Labels map (or allocating) once the series exists. The first lookup of a
// combination creates the series in the family; later ones find the cached pointer under a
// short mutex. For series touched per node or per plugin call, resolve once and keep the
// reference (see profile_metrics.h); this cache is for per-pod and per-event paths.
//
// Thread-safe. Series are never removed, so returned references stay valid.
#pragma once

#include <prometheus/family.h>
#include <prometheus/histogram.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::metrics {

template <typename T>
class ChildCache {
 public:
  // label_names in the order Get takes values; buckets for histograms only.
  ChildCache(prometheus::Family<T>& family, std::vector<std::string> label_names,
             std::vector<double> buckets = {})
      : family_(family), names_(std::move(label_names)), buckets_(std::move(buckets)) {}

  // The series with these label values (one per label name, same order).
  T& Get(std::initializer_list<std::string_view> values) {
    MutexLock l(mu_);
    auto it = children_.find(values);
    if (it != children_.end()) return *it->second;
    prometheus::Labels labels;
    size_t i = 0;
    for (std::string_view v : values) labels.emplace(names_[i++], std::string(v));
    T* child;
    if constexpr (std::is_same_v<T, prometheus::Histogram>) {
      child = &family_.Add(labels, buckets_);
    } else {
      child = &family_.Add(labels);
    }
    children_.emplace(std::vector<std::string>(values.begin(), values.end()), child);
    return *child;
  }

 private:
  struct Less {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::lexicographical_compare(
          a.begin(), a.end(), b.begin(), b.end(),
          [](std::string_view x, std::string_view y) { return x < y; });
    }
  };

  prometheus::Family<T>& family_;
  const std::vector<std::string> names_;
  const std::vector<double> buckets_;
  Mutex mu_;
  std::map<std::vector<std::string>, T*, Less> children_ GUARDED_BY(mu_);
};

}  // namespace stowage::metrics
