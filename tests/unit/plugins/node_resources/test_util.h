// Shared helpers of the node_resources tests: upstream's newResourcePod / makeNode shapes and a
// runner that scores every node the way the framework does (PreScore once, then Score per node).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "stowage/framework/cycle_state.h"
#include "stowage/framework/interface.h"
#include "stowage/framework/types.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugins::node_resources::testutil {

// One container's requests, as upstream's framework.Resource literals in fit_test.go.
struct Usage {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  std::vector<std::pair<std::string, int64_t>> scalar = {};
  int64_t ephemeral_storage = 0;
};

// newResourcePod's container: cpu, memory, pods and ephemeral-storage always present (maybe 0),
// plus the scalar resources.
inline api::Container UsageContainer(const Usage& u) {
  std::vector<api::ResourceList::Entry> list = {
      {"cpu", api::Quantity::FromMilli(u.milli_cpu)},
      {"memory", api::Quantity::FromValue(u.memory, api::Quantity::Format::kBinarySI)},
      {"pods", api::Quantity::FromValue(0)},
      {"ephemeral-storage",
       api::Quantity::FromValue(u.ephemeral_storage, api::Quantity::Format::kBinarySI)},
  };
  for (const auto& [name, v] : u.scalar) list.emplace_back(name, api::Quantity::FromValue(v));
  api::Container c;
  c.resources.requests = api::ResourceList(std::move(list));
  return c;
}

// newResourcePod(containers...) with newResourceInitPod(init...).
inline api::PodPtr ResourcePod(const std::vector<Usage>& containers,
                               const std::vector<Usage>& init = {}) {
  auto pod = std::make_shared<api::Pod>();
  pod->metadata.name = "pod";
  for (const Usage& u : containers) pod->spec.containers.push_back(UsageContainer(u));
  for (const Usage& u : init) pod->spec.init_containers.push_back(UsageContainer(u));
  return pod;
}

// util_test.go makeNode: cpu in millicores, memory in bytes, extended resources; no pod count.
inline api::NodePtr MakeNode(std::string name, int64_t milli_cpu, int64_t memory,
                             const std::vector<std::pair<std::string, int64_t>>& extended = {}) {
  std::vector<api::ResourceList::Entry> list = {
      {"cpu", api::Quantity::FromMilli(milli_cpu)},
      {"memory", api::Quantity::FromValue(memory, api::Quantity::Format::kBinarySI)},
  };
  for (const auto& [n, v] : extended) list.emplace_back(n, api::Quantity::FromValue(v));
  auto node = std::make_shared<api::Node>();
  node->metadata.name = std::move(name);
  node->status.allocatable = api::ResourceList(std::move(list));
  return node;
}

struct ScoreRun {
  framework::Status pre_score;
  std::vector<framework::Status> statuses;  // one per node, when Score ran
  std::vector<int64_t> scores;
};

// Builds the snapshot (existing pods go to the node their spec.nodeName names), runs PreScore
// unless told not to, and scores every node in order. Stops after a PreScore that is not
// Success.
inline ScoreRun RunScore(framework::Plugin& plugin, const api::PodPtr& pod,
                         const std::vector<api::NodePtr>& nodes,
                         const std::vector<api::PodPtr>& existing, bool run_pre_score = true) {
  ScoreRun run;
  auto infos = stowage::testing::MakeNodeInfos(nodes, existing);
  framework::PodInfoPtr info = framework::NewPodInfo(pod);
  framework::CycleState state;
  if (run_pre_score) {
    run.pre_score = dynamic_cast<framework::PreScorePlugin&>(plugin).PreScore(
        state, *info, stowage::testing::Pointers(infos));
    if (!run.pre_score.IsSuccess()) return run;
  }
  auto& scorer = dynamic_cast<framework::ScorePlugin&>(plugin);
  for (const auto& node : infos) {
    int64_t score = -1;
    run.statuses.push_back(scorer.Score(state, *info, *node, score));
    run.scores.push_back(score);
  }
  return run;
}

}  // namespace stowage::plugins::node_resources::testutil
