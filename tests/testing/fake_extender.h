// A framework::Extender for unit tests of the code that calls extenders.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/framework/extender.h"

namespace stowage::testing {

// An extender answering from tables: nodes it rejects (with the reason), unresolvably or not,
// scores per node, and a failure for every call when set.
struct FakeExtender : framework::Extender {
  std::string name = "http://fake";
  bool ignorable = false;
  bool filter = true;
  int64_t weight_value = 1;
  std::map<std::string, std::string> reject, reject_unresolvable;
  std::map<std::string, int64_t> scores;
  std::string fail;
  std::string interested_in;  // a resource name; empty: every pod
  int calls = 0;

  const std::string& Name() const override { return name; }
  bool IsIgnorable() const override { return ignorable; }
  bool IsFilter() const override { return filter; }
  bool IsPrioritizer() const override { return !scores.empty(); }
  bool IsBinder() const override { return false; }
  bool SupportsPreemption() const override { return false; }
  int64_t weight() const override { return weight_value; }
  bool IsInterested(const api::Pod& pod) const override {
    if (interested_in.empty()) return true;
    for (const auto& c : pod.spec.containers) {
      if (c.resources.requests.Get(interested_in)) return true;
    }
    return false;
  }
  stowage::Status Filter(const api::Pod&, const std::vector<const framework::NodeInfo*>& nodes,
                         framework::ExtenderFilterResult& out) override {
    out = {};
    if (!filter) {  // as HttpExtender without a filter verb: no call
      out.feasible = nodes;
      return OkStatus();
    }
    ++calls;
    if (!fail.empty()) return UnavailableError(fail);
    for (const auto* n : nodes) {
      if (auto it = reject.find(n->name()); it != reject.end()) {
        out.failed.emplace_back(it->first, it->second);
      } else if (auto u = reject_unresolvable.find(n->name()); u != reject_unresolvable.end()) {
        out.failed_and_unresolvable.emplace_back(u->first, u->second);
      } else {
        out.feasible.push_back(n);
      }
    }
    return OkStatus();
  }
  stowage::Status Prioritize(const api::Pod&, const std::vector<const framework::NodeInfo*>& nodes,
                             std::vector<framework::HostPriority>& out) override {
    ++calls;
    out.clear();
    if (!fail.empty()) return UnavailableError(fail);
    for (const auto* n : nodes) {
      auto it = scores.find(n->name());
      out.push_back({n->name(), it == scores.end() ? 0 : it->second});
    }
    return OkStatus();
  }
  stowage::Status Bind(const api::Pod&, std::string_view) override { return OkStatus(); }
  stowage::Status ProcessPreemption(const api::Pod&, const framework::NodeToVictims&,
                                    const framework::NodeInfoLister&,
                                    framework::NodeToVictims&) override {
    return OkStatus();
  }
};

}  // namespace stowage::testing
