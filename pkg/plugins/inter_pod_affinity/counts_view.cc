#include "pkg/plugins/inter_pod_affinity/counts_view.h"

#include <algorithm>
#include <string>

namespace stowage::plugins::inter_pod_affinity {

template <typename Fn>
void CountsView::ForEachKey(Fn&& fn) const {
  if (base_) {
    for (const std::string& k : base_->keys()) fn(std::string_view(k));
  }
  for (const std::string& k : changes_.keys()) {
    if (base_ && std::find(base_->keys().begin(), base_->keys().end(), k) != base_->keys().end()) {
      continue;
    }
    fn(std::string_view(k));
  }
}

int64_t CountsView::Get(std::string_view key, std::string_view value) const {
  if (live_ == 0) return 0;
  const size_t hash = TopologyCounts::HashValue(value);
  int64_t n = base_ ? base_->Get(key, value, hash) : 0;
  if (changes_.pair_count() != 0) n += changes_.Get(key, value, hash);
  return n;
}

void CountsView::Update(const api::StringMap& node_labels, std::string_view key, int64_t delta) {
  const std::string* value = node_labels.Get(key);
  if (value == nullptr || delta == 0) return;
  const int64_t before = Get(key, *value);
  changes_.Add(key, *value, delta);
  const int64_t after = before + delta;
  if (before == 0 && after != 0) ++live_;
  if (before != 0 && after == 0) --live_;
}

bool CountsView::AnyPositive(const api::StringMap& node_labels) const {
  if (live_ == 0) return false;
  bool any = false;
  ForEachKey([&](std::string_view k) {
    if (any) return;
    const std::string* value = node_labels.Get(k);
    if (value != nullptr && Get(k, *value) > 0) any = true;
  });
  return any;
}

int64_t CountsView::Sum(const api::StringMap& node_labels) const {
  if (live_ == 0) return 0;
  int64_t sum = 0;
  ForEachKey([&](std::string_view k) {
    if (const std::string* value = node_labels.Get(k)) sum += Get(k, *value);
  });
  return sum;
}

bool operator==(const CountsView& a, const CountsView& b) {
  if (a.live_ != b.live_) return false;
  // Every pair of a with a non-zero sum has the same sum in b; with equal live counts, b then
  // has no other pair.
  bool same = true;
  auto check = [&](std::string_view key, std::string_view value, int64_t) {
    if (!same) return;
    const int64_t n = a.Get(key, value);
    if (n != 0 && b.Get(key, value) != n) same = false;
  };
  if (a.base_) a.base_->ForEachPair(check);
  a.changes_.ForEachPair(check);
  return same;
}

}  // namespace stowage::plugins::inter_pod_affinity
