// A TEST DOUBLE standing in for a CEL engine: it understands a few fixed expression shapes only.
//
//   true | false
//   device.driver == "x"
//   device.attributes["domain"].name == "v"   (also == 7 and == true; the domain may be the
//                                              driver's, then bare attribute names match too)
//   compile-error            Compile fails
//   runtime-error            Matches fails
//
// Anything else fails to compile. Thread-compatible only; tests use it from one thread.
#pragma once

#include <atomic>
#include <memory>
#include <regex>
#include <string>

#include "pkg/dra/selector.h"

namespace stowage::dra::testing {

class FakeSelector : public DeviceSelector {
 public:
  enum class Kind { kConst, kDriver, kAttribute, kRuntimeError };
  Kind kind = Kind::kConst;
  bool constant = false;
  std::string domain, name, value;  // value as written: "\"v\"", "7", "true"
  // Matches calls of every FakeSelector, for tests of what the allocator keeps.
  static inline std::atomic<int> evaluations = 0;

  StatusOr<bool> Matches(const DeviceView& view) const override {
    ++evaluations;
    switch (kind) {
      case Kind::kConst: return constant;
      case Kind::kDriver: return std::string(view.driver) == Unquote(value);
      case Kind::kRuntimeError: return InvalidArgumentError("no such key: boom");
      case Kind::kAttribute: break;
    }
    const api::DeviceAttribute* attr = view.device.attributes.Get(domain + "/" + name);
    if (attr == nullptr && domain == view.driver) attr = view.device.attributes.Get(name);
    if (attr == nullptr) return InvalidArgumentError("no such key: " + name);
    if (attr->string_value) return value == "\"" + *attr->string_value + "\"";
    if (attr->int_value) return value == std::to_string(*attr->int_value);
    if (attr->bool_value) return value == (*attr->bool_value ? "true" : "false");
    if (attr->version_value) return value == "\"" + *attr->version_value + "\"";
    return false;
  }

 private:
  static std::string Unquote(const std::string& s) { return s.substr(1, s.size() - 2); }
};

class FakeSelectorCompiler : public SelectorCompiler {
 public:
  StatusOr<DeviceSelectorPtr> Compile(std::string_view expression) const override {
    ++compiles;
    auto s = std::make_shared<FakeSelector>();
    const std::string e(expression);
    std::smatch m;
    if (e == "true" || e == "false") {
      s->constant = e == "true";
    } else if (e == "runtime-error") {
      s->kind = FakeSelector::Kind::kRuntimeError;
    } else if (std::regex_match(e, m, std::regex(R"re(device\.driver == ("[^"]*"))re"))) {
      s->kind = FakeSelector::Kind::kDriver;
      s->value = m[1];
    } else if (std::regex_match(
                   e, m,
                   std::regex(R"re(device\.attributes\["([^"]+)"\]\.(\w+) == ("[^"]*"|\w+))re"))) {
      s->kind = FakeSelector::Kind::kAttribute;
      s->domain = m[1];
      s->name = m[2];
      s->value = m[3];
    } else {
      return InvalidArgumentError("ERROR: <input>:1:1: Syntax error: " + e);
    }
    return DeviceSelectorPtr(s);
  }
  mutable int compiles = 0;
};

}  // namespace stowage::dra::testing
