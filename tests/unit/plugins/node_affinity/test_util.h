// Shared helpers of the NodeAffinity tests: node selector builders and a plugin factory call.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/plugins/node_affinity/node_affinity.h"
#include "stowage/plugin_config/args.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::node_affinity::testutil {

using stowage::testing::BuildNode;
using stowage::testing::BuildPod;

inline api::NodeSelectorRequirement R(std::string key, std::string op,
                                      std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}
inline api::NodeSelectorTerm Expr(std::vector<api::NodeSelectorRequirement> reqs) {
  return {std::move(reqs), {}};
}
inline api::NodeSelectorTerm Fields(std::vector<api::NodeSelectorRequirement> reqs) {
  return {{}, std::move(reqs)};
}
inline api::NodeAffinity Required(std::vector<api::NodeSelectorTerm> terms) {
  api::NodeAffinity a;
  a.required = api::NodeSelector{std::move(terms)};
  return a;
}
inline api::NodeAffinity Preferred(std::vector<api::PreferredSchedulingTerm> terms) {
  api::NodeAffinity a;
  a.preferred = std::move(terms);
  return a;
}
inline api::PodPtr PodRequiring(std::vector<api::NodeSelectorTerm> terms) {
  return BuildPod().Name("p").NodeAffinity(Required(std::move(terms))).Obj();
}

// The plugin keeps its handle: one that outlives every test of the binary (no nodes).
inline std::unique_ptr<framework::Plugin> MakePlugin(std::optional<api::NodeAffinity> added) {
  static stowage::testing::FakeHandle& handle = *new stowage::testing::FakeHandle();
  auto plugin = New(config::NodeAffinityArgs{std::move(added)}, handle, {});
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  return std::move(plugin).value();
}

}  // namespace stowage::plugins::node_affinity::testutil
