#include "pkg/dra/consumable_capacity.h"

#include <algorithm>
#include <limits>

namespace stowage::dra {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr char kNotRepresentable[] =
    "capacity request cannot be represented in the device's range arithmetic: ";

bool HasPolicy(const api::DeviceCapacity& cap) {
  return cap.request_default || !cap.request_valid_values.empty() || cap.request_valid_range;
}

// The value in thousandths, when that is exact.
std::optional<int64_t> ExactMilli(const api::Quantity& q) {
  int64_t milli = q.MilliValue();
  if (api::Quantity::FromMilli(milli).Nanos() != q.Nanos()) return std::nullopt;
  return milli;
}

// Whether range arithmetic runs in thousandths (fractional ranges) rather than whole units.
bool UseMilli(const api::CapacityRange& range, bool fractional) {
  if (!fractional) return false;
  for (const auto* q : {&range.min, &range.max, &range.step}) {
    if (q->has_value() && !ExactMilli(**q)) return false;
  }
  return !range.step || *ExactMilli(*range.step) >= 1;
}

int64_t CeilSteps(int64_t added, int64_t step) { return added / step + (added % step != 0); }

StatusOr<api::Quantity> RoundUpRange(const api::Quantity& requested,
                                     const api::CapacityRange& range, bool fractional) {
  const api::Quantity min = range.min.value_or(api::Quantity());
  if (requested < min) return min;
  if (!range.step) return requested;
  const api::Quantity::Format format = range.step->format();
  if (UseMilli(range, fractional)) {
    std::optional<int64_t> req = ExactMilli(requested);
    if (!req) {
      return InvalidArgumentError(std::string(kNotRepresentable) + "request " + requested.String() +
                                  " is not a representable milli value");
    }
    const int64_t step = range.step->MilliValue(), lo = min.MilliValue();
    const int64_t n = CeilSteps(*req - lo, step);
    if (n > (kMaxInt64 - lo) / step) {
      return InvalidArgumentError(std::string(kNotRepresentable) + "rounding request " +
                                  requested.String() +
                                  " up to the next step passes the milli-value range");
    }
    const int64_t value = lo + step * n;
    return value % 1000 == 0 ? api::Quantity::FromValue(value / 1000, format)
                             : api::Quantity::FromMilli(value, format);
  }
  if (requested.Nanos() > static_cast<__int128>(kMaxInt64) * 1000000000) {
    return InvalidArgumentError(std::string(kNotRepresentable) + "request " + requested.String() +
                                " exceeds MaxInt64");
  }
  const int64_t step = range.step->Value(), lo = min.Value();
  if (step <= 0) return requested;  // validation forbids it; never divide by it
  const int64_t n = CeilSteps(requested.Value() - lo, step);
  if (lo >= 0 && n > (kMaxInt64 - lo) / step) {
    return InvalidArgumentError(std::string(kNotRepresentable) + "rounding request " +
                                requested.String() + " up to the next step passes MaxInt64");
  }
  return api::Quantity::FromValue(lo + step * n, format);
}

StatusOr<api::Quantity> Consumed(const api::Quantity* requested, const api::DeviceCapacity& cap,
                                 bool fractional) {
  if (requested == nullptr) return cap.request_default.value_or(cap.value);
  if (cap.request_valid_range && cap.request_valid_range->min) {
    return RoundUpRange(*requested, *cap.request_valid_range, fractional);
  }
  for (const api::Quantity& valid : cap.request_valid_values) {
    if (*requested <= valid) return valid;
  }
  return *requested;
}

bool ViolatesPolicy(const api::Quantity& value, const api::DeviceCapacity& cap, bool fractional) {
  if (!HasPolicy(cap)) return false;
  if (cap.request_default && value == *cap.request_default) return false;
  if (cap.request_valid_range) {
    const api::CapacityRange& range = *cap.request_valid_range;
    if (range.max && value > *range.max) return true;
    if (!range.step) return false;
    const api::Quantity min = range.min.value_or(api::Quantity());
    int64_t v, step, lo;
    if (UseMilli(range, fractional)) {
      std::optional<int64_t> milli = ExactMilli(value);
      if (!milli) return true;
      v = *milli, step = range.step->MilliValue(), lo = min.MilliValue();
    } else {
      v = value.Value(), step = range.step->Value(), lo = min.Value();
    }
    return step != 0 && (v - lo) % step != 0;
  }
  if (!cap.request_valid_values.empty()) {
    for (const api::Quantity& valid : cap.request_valid_values) {
      if (value == valid) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, api::Quantity>>> ConsumedByRequest(
    const api::ResourceList& requests, const api::Map<api::DeviceCapacity>& capacity,
    bool fractional) {
  std::vector<std::pair<std::string, api::Quantity>> out;
  for (const auto& [name, cap] : capacity.entries()) {
    StatusOr<api::Quantity> consumed = Consumed(requests.Get(name), cap, fractional);
    if (!consumed.ok()) {
      return consumed.status().WithPrefix("capacity \"" + name + "\"");
    }
    out.emplace_back(name, *consumed);
  }
  return out;
}

StatusOr<bool> RequestFitsCapacity(const CapacityAmounts* consumed,
                                   const api::ResourceList& requests,
                                   const api::Map<api::DeviceCapacity>& capacity,
                                   const CapacityAmounts* allocating, bool fractional) {
  for (const auto& [name, value] : requests.entries()) {
    if (!capacity.Has(name)) return false;  // another device may have it
  }
  // The common device: nothing asked, no policy and no other share, so each capacity is taken
  // whole and fits.
  const auto none = [](const CapacityAmounts* m) { return m == nullptr || m->empty(); };
  if (requests.empty() && none(consumed) && none(allocating) &&
      std::all_of(capacity.entries().begin(), capacity.entries().end(), [](const auto& entry) {
        return !HasPolicy(entry.second) && entry.second.value.Sign() >= 0;
      })) {
    return true;
  }
  // Every amount is resolved before any soft check, so whether this aborts or skips does not
  // depend on the order capacities are visited in; resolving twice costs less than a vector
  // of names per device visited.
  for (const auto& [name, cap] : capacity.entries()) {
    StatusOr<api::Quantity> amount = Consumed(requests.Get(name), cap, fractional);
    if (!amount.ok()) return amount.status().WithPrefix("capacity \"" + name + "\"");
    if (amount->Sign() < 0) {
      return InvalidArgumentError("capacity \"" + name + "\": capacity value is negative");
    }
  }
  auto lookup = [](const CapacityAmounts* m, const std::string& name) -> __int128 {
    if (m == nullptr || m->empty()) return 0;
    auto it = m->find(name);
    return it == m->end() ? 0 : it->second;
  };
  for (const auto& [name, cap] : capacity.entries()) {
    const api::Quantity amount = *Consumed(requests.Get(name), cap, fractional);
    if (ViolatesPolicy(amount, cap, fractional)) return false;
    __int128 total = lookup(consumed, name) + amount.Nanos() + lookup(allocating, name);
    if (total > cap.value.Nanos()) return false;
  }
  return true;
}

}  // namespace stowage::dra
