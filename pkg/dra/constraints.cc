#include "pkg/dra/constraints.h"

#include <utility>

namespace stowage::dra {

const api::DeviceAttribute* LookupAttribute(const api::Device& device, const DeviceRef& id,
                                            std::string_view name) {
  if (const auto* attr = device.attributes.Get(name)) return attr;
  size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.substr(0, slash) != id.driver) return nullptr;
  return device.attributes.Get(name.substr(slash + 1));
}

namespace {

// The value type an attribute holds, checked in upstream's order (string, int, bool, version).
enum class Kind { kString, kInt, kBool, kVersion, kNone };

Kind KindOf(const api::DeviceAttribute& a) {
  if (a.string_value) return Kind::kString;
  if (a.int_value) return Kind::kInt;
  if (a.bool_value) return Kind::kBool;
  if (a.version_value) return Kind::kVersion;
  return Kind::kNone;
}

// Whether b holds the value a holds, judged by a's kind; versions are minimal semver strings, so
// string equality is version equality.
bool SameValue(const api::DeviceAttribute& a, const api::DeviceAttribute& b) {
  switch (KindOf(a)) {
    case Kind::kString: return b.string_value && *a.string_value == *b.string_value;
    case Kind::kInt: return b.int_value && *a.int_value == *b.int_value;
    case Kind::kBool: return b.bool_value && *a.bool_value == *b.bool_value;
    case Kind::kVersion: return b.version_value && *a.version_value == *b.version_value;
    case Kind::kNone: return false;
  }
  return false;
}

class AttributeConstraint : public Constraint {
 public:
  AttributeConstraint(const std::vector<std::string>& requests, std::string attribute)
      : requests_(requests.begin(), requests.end()), attribute_(std::move(attribute)) {}

 protected:
  // Whether a device of this request counts; an empty request list means every request.
  bool Applies(std::string_view request, std::string_view sub) const {
    if (requests_.empty()) return true;
    if (requests_.count(std::string(request))) return true;
    return !sub.empty() && requests_.count(std::string(request) + "/" + std::string(sub));
  }
  std::set<std::string> requests_;
  std::string attribute_;
};

class MatchAttribute : public AttributeConstraint {
 public:
  using AttributeConstraint::AttributeConstraint;
  bool Add(std::string_view request, std::string_view sub, const api::Device& device,
           const DeviceRef& id) override {
    if (!Applies(request, sub)) return true;
    const api::DeviceAttribute* attr = LookupAttribute(device, id, attribute_);
    if (attr == nullptr) return false;
    if (count_ == 0) {
      // The first device sets the value; later ones are compared with it.
      first_ = *attr;
    } else if (!SameValue(*attr, first_)) {
      return false;
    }
    ++count_;
    return true;
  }
  void Remove(std::string_view request, std::string_view sub, const api::Device&,
              const DeviceRef&) override {
    if (Applies(request, sub)) --count_;
  }

 private:
  api::DeviceAttribute first_;
  int count_ = 0;
};

class DistinctAttribute : public AttributeConstraint {
 public:
  using AttributeConstraint::AttributeConstraint;
  bool Add(std::string_view request, std::string_view sub, const api::Device& device,
           const DeviceRef& id) override {
    if (!Applies(request, sub)) return true;
    const api::DeviceAttribute* attr = LookupAttribute(device, id, attribute_);
    if (attr == nullptr) return false;
    // A value of no known kind cannot be shown distinct from what is there already.
    if (KindOf(*attr) == Kind::kNone && !seen_.empty()) return false;
    for (const api::DeviceAttribute* seen : seen_) {
      if (SameValue(*attr, *seen)) return false;
    }
    seen_.push_back(attr);
    return true;
  }
  void Remove(std::string_view request, std::string_view sub, const api::Device&,
              const DeviceRef&) override {
    if (Applies(request, sub)) seen_.pop_back();
  }

 private:
  std::vector<const api::DeviceAttribute*> seen_;  // point into the slices, which outlive us
};

}  // namespace

std::unique_ptr<Constraint> MakeConstraint(const api::DeviceConstraint& spec) {
  if (spec.match_attribute) {
    return std::make_unique<MatchAttribute>(spec.requests, *spec.match_attribute);
  }
  if (spec.distinct_attribute) {
    return std::make_unique<DistinctAttribute>(spec.requests, *spec.distinct_attribute);
  }
  return nullptr;
}

}  // namespace stowage::dra
