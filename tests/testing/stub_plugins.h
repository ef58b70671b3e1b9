// What every framework under test needs but no test is about: a queue sort ("Sort") and a binder
// ("Bind") that do nothing, and a one-line registration of a plugin made by a lambda. Also a
// queue sort in PrioritySort's order, for the queue's parts, which take a QueueSort plugin alone.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "stowage/framework/interface.h"
#include "stowage/framework/registry.h"

namespace stowage::testing {

// Every pod ranks equal.
struct StubSort : framework::QueueSortPlugin {
  std::string_view Name() const override { return "Sort"; }
  bool Less(const framework::QueuedPodInfo&, const framework::QueuedPodInfo&) const override {
    return false;
  }
};

// Higher priority first, then the earlier timestamp: PrioritySort's order without its plugin.
struct StubPrioritySort : framework::QueueSortPlugin {
  std::string_view Name() const override { return "PrioritySort"; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    int32_t pa = a.pod().spec.priority.value_or(0), pb = b.pod().spec.priority.value_or(0);
    return pa != pb ? pa > pb : a.timestamp < b.timestamp;
  }
};

// Succeeds without writing anything.
struct StubBinder : framework::BindPlugin {
  std::string_view Name() const override { return "Bind"; }
  framework::Status Bind(framework::CycleState&, const api::Pod&, std::string_view) override {
    return {};
  }
};

// Registers name with a factory that ignores the plugin's arguments and the handle.
inline Status RegisterStub(framework::Registry& r, std::string name,
                           std::function<framework::Plugin*()> make) {
  return r.Register(
      std::move(name),
      [make = std::move(make)](
          const framework::PluginArgs&, framework::Handle&,
          const framework::Features&) -> StatusOr<std::unique_ptr<framework::Plugin>> {
        return std::unique_ptr<framework::Plugin>(make());
      });
}

// Registers "Sort" and "Bind".
inline Status RegisterSortAndBind(framework::Registry& r) {
  if (Status s = RegisterStub(r, "Sort", [] { return new StubSort; }); !s.ok()) return s;
  return RegisterStub(r, "Bind", [] { return new StubBinder; });
}

}  // namespace stowage::testing
