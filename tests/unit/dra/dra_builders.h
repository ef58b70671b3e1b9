// Builders for the DRA objects of the allocator tests (cf. upstream's allocatortesting helpers).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/dra/allocator.h"
#include "stowage/api/quantity.h"
#include "stowage/api/types.h"

namespace stowage::dra::testing {

inline constexpr char kDriver[] = "driver.example.com";
inline constexpr char kClass[] = "gpu";

inline api::DeviceAttribute Str(std::string v) { return {.string_value = std::move(v)}; }
inline api::DeviceAttribute Int(int64_t v) { return {.int_value = v}; }

class DeviceB {
 public:
  explicit DeviceB(std::string name) { d_.name = std::move(name); }
  DeviceB& Attr(std::string name, api::DeviceAttribute value) {
    attrs_.emplace_back(std::move(name), std::move(value));
    d_.attributes = api::Map<api::DeviceAttribute>(attrs_);
    return *this;
  }
  DeviceB& Taint(std::string key, std::string effect) {
    d_.taints.push_back({.key = std::move(key), .value = "", .effect = std::move(effect)});
    return *this;
  }
  // Draws value of counter from the counter set set.
  DeviceB& Consumes(std::string set, std::string counter, int64_t value) {
    d_.consumes_counters.push_back(
        {.counter_set = std::move(set),
         .counters =
             api::Map<api::Counter>({{std::move(counter), {api::Quantity::FromValue(value)}}})});
    return *this;
  }
  DeviceB& OnNode(std::string node) {
    d_.node_name = std::move(node);
    return *this;
  }
  DeviceB& BindingConditions(std::vector<std::string> conditions) {
    d_.binding_conditions = std::move(conditions);
    return *this;
  }
  DeviceB& AllowMultiple() {
    d_.allow_multiple_allocations = true;
    return *this;
  }
  // A capacity; policy setters below apply to the capacity added last.
  DeviceB& Capacity(std::string name, std::string value) {
    caps_.emplace_back(std::move(name), api::DeviceCapacity{.value = Q(value)});
    return Caps();
  }
  DeviceB& Default(std::string value) {
    caps_.back().second.request_default = Q(value);
    return Caps();
  }
  DeviceB& ValidValues(std::vector<std::string> values) {
    for (auto& v : values) caps_.back().second.request_valid_values.push_back(Q(v));
    return Caps();
  }
  DeviceB& ValidRange(std::string min, std::string step, std::string max = "") {
    api::CapacityRange range{.min = Q(min), .max = std::nullopt, .step = std::nullopt};
    if (!step.empty()) range.step = Q(step);
    if (!max.empty()) range.max = Q(max);
    caps_.back().second.request_valid_range = range;
    return Caps();
  }
  static api::Quantity Q(const std::string& s) { return *api::Quantity::Parse(s); }
  api::Device Obj() const { return d_; }
  operator api::Device() const { return d_; }  // NOLINT: lets lists of builders read as devices

 private:
  DeviceB& Caps() {
    d_.capacity = api::Map<api::DeviceCapacity>(caps_);
    return *this;
  }
  api::Device d_;
  std::vector<api::Map<api::DeviceAttribute>::Entry> attrs_;
  std::vector<api::Map<api::DeviceCapacity>::Entry> caps_;
};

class SliceB {
 public:
  // A slice of one pool on one node (node "" leaves placement to the other setters).
  SliceB(std::string name, std::string node, std::string pool) {
    s_.metadata.name = std::move(name);
    s_.driver = kDriver;
    s_.pool_name = std::move(pool);
    s_.pool_generation = 1;
    s_.pool_resource_slice_count = 1;
    if (!node.empty()) s_.node_name = std::move(node);
  }
  SliceB& Driver(std::string d) { return Set(s_.driver, std::move(d)); }
  SliceB& Generation(int64_t g) { return Set(s_.pool_generation, g); }
  SliceB& SliceCount(int64_t n) { return Set(s_.pool_resource_slice_count, n); }
  SliceB& AllNodes() { return Set(s_.all_nodes, std::optional<bool>(true)); }
  SliceB& PerDeviceNodeSelection() {
    return Set(s_.per_device_node_selection, std::optional<bool>(true));
  }
  SliceB& Selector(std::string key, std::string value) {
    api::NodeSelector sel;
    sel.terms.push_back(
        {.match_expressions = {{.key = std::move(key), .op = "In", .values = {std::move(value)}}},
         .match_fields = {}});
    return Set(s_.node_selector, std::optional<api::NodeSelector>(std::move(sel)));
  }
  SliceB& Devices(std::vector<api::Device> devices) { return Set(s_.devices, std::move(devices)); }
  SliceB& Counters(std::string set, std::string counter, int64_t value) {
    s_.shared_counters.push_back({.name = std::move(set),
                                  .counters = api::Map<api::Counter>(
                                      {{std::move(counter), {api::Quantity::FromValue(value)}}})});
    return *this;
  }
  ResourceSlicePtr Obj() const { return std::make_shared<api::ResourceSlice>(s_); }

 private:
  template <typename F, typename V>
  SliceB& Set(F& field, V&& value) {
    field = std::forward<V>(value);
    return *this;
  }
  api::ResourceSlice s_;
};

inline api::DeviceRequest Request(std::string name, int64_t count = 1,
                                  std::vector<std::string> selectors = {},
                                  std::string device_class = kClass) {
  api::ExactDeviceRequest exact{.device_class_name = std::move(device_class),
                                .selectors = std::move(selectors),
                                .allocation_mode = "ExactCount",
                                .count = count};
  return {.name = std::move(name), .exactly = std::move(exact), .first_available = {}};
}

// A request for count devices that takes value of capacity name from each.
inline api::DeviceRequest RequestCapacity(std::string request, std::string name, std::string value,
                                          int64_t count = 1) {
  api::DeviceRequest r = Request(std::move(request), count);
  r.exactly->capacity_requests =
      api::ResourceList({{std::move(name), *api::Quantity::Parse(value)}});
  return r;
}

inline api::DeviceRequest RequestAll(std::string name, std::vector<std::string> selectors = {}) {
  api::DeviceRequest r = Request(std::move(name), 0, std::move(selectors));
  r.exactly->allocation_mode = "All";
  return r;
}

inline api::DeviceSubRequest Sub(std::string name, int64_t count,
                                 std::vector<std::string> selectors = {}) {
  return {.name = std::move(name),
          .device_class_name = kClass,
          .selectors = std::move(selectors),
          .allocation_mode = "ExactCount",
          .count = count};
}

inline api::DeviceRequest FirstAvailable(std::string name,
                                         std::vector<api::DeviceSubRequest> subs) {
  return {.name = std::move(name), .exactly = std::nullopt, .first_available = std::move(subs)};
}

inline api::DeviceConstraint MatchAttribute(std::string attr,
                                            std::vector<std::string> requests = {}) {
  return {.requests = std::move(requests), .match_attribute = std::move(attr)};
}

inline api::DeviceConstraint DistinctAttribute(std::string attr,
                                               std::vector<std::string> requests = {}) {
  return {.requests = std::move(requests), .distinct_attribute = std::move(attr)};
}

inline ResourceClaimPtr Claim(std::string name, std::vector<api::DeviceRequest> requests,
                              std::vector<api::DeviceConstraint> constraints = {}) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.name = std::move(name);
  c->metadata.namespace_ = "default";
  c->devices.requests = std::move(requests);
  c->devices.constraints = std::move(constraints);
  return c;
}

inline DeviceClassPtr Class(std::string name, std::vector<std::string> selectors = {}) {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = std::move(name);
  c->selectors = std::move(selectors);
  return c;
}

inline api::Node Node(std::string name, std::vector<api::StringMap::Entry> labels = {}) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = api::StringMap(std::move(labels));
  return n;
}

inline DeviceId Id(std::string pool, std::string device) {
  return {kDriver, std::move(pool), std::move(device)};
}

}  // namespace stowage::dra::testing
