// What-if scheduling without a cluster (`stowage simulate`, docs/explain.md). Run builds the real
// scheduler (scheduler::New: the profiles, plugins, queue, preemption and binders of the
// configuration) over MemoryApi holding the snapshot, and schedules its pending pods in virtual
// time: the queue runs on a FakeClock that moves on only when the scheduler is quiet (nothing in
// activeQ, no cycle, binding, preemption or status write under way), to the next second a
// backoff may end, so a run takes the time its cycles take, not the backoffs'. It stops when
// nothing is left to try: every pod bound, or waiting in unschedulable for an event that will
// not come. Ties between nodes are broken by a random engine with a fixed seed, so the same
// inputs give the same placements.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/simulate/snapshot.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"
#include "stowage/framework/registry.h"
#include "stowage/plugin_config/features.h"

namespace stowage::simulate {

struct RunOptions {
  uint64_t seed = 1;
  // Bounds: a run stops there even if pods are still being retried (an error status backs a
  // pod off again and again), and says so.
  Duration max_virtual_time = std::chrono::hours(1);
  Duration max_real_time = std::chrono::minutes(10);
};

struct Input {
  const Snapshot& snapshot;
  const config::KubeSchedulerConfiguration& cfg;  // defaulted and validated
  const framework::Registry& registry;
  std::vector<std::string_view> not_yet_implemented;
  config::Features features;
  RunOptions options;
};

// One pod that was pending at the start.
struct PodOutcome {
  std::string pod;      // namespace/name
  std::string node;     // "" while pending
  double bound_at = 0;  // virtual seconds since the start
  std::string nominated_node;
  std::string reason;   // PodScheduled's reason while pending (Unschedulable, SchedulerError)
  std::string message;  // and its message: why it is pending, as the scheduler wrote it
};

// A pod deleted by preemption.
struct Preempted {
  std::string pod;
  std::string node;
  std::string message;  // the Preempted event's, naming the preemptor
  double at = 0;
};

// Requests on a node before and after the run, against its allocatable.
struct NodeUse {
  std::string node;
  bool unschedulable = false;
  size_t pods_before = 0, pods_after = 0;
  int64_t allocatable_milli_cpu = 0, milli_cpu_before = 0, milli_cpu_after = 0;
  int64_t allocatable_memory = 0, memory_before = 0, memory_after = 0;
  int64_t allocatable_pods = 0;
};

struct Result {
  uint64_t seed = 0;
  size_t nodes = 0;
  double virtual_seconds = 0;
  double real_seconds = 0;
  bool stopped_early = false;    // a bound of RunOptions ended the run
  std::vector<PodOutcome> pods;  // in the snapshot's order
  std::vector<Preempted> preempted;
  std::vector<Snapshot::Displaced> displaced;
  std::vector<NodeUse> utilisation;  // by node name
  std::vector<std::pair<std::string, size_t>> skipped;
  std::vector<std::string> warnings;  // from building the profiles
};

StatusOr<Result> Run(const Input& input);

// An aligned table for people; JSON (stable field order) for tools.
std::string RenderText(const Result& r);
std::string RenderJson(const Result& r);

}  // namespace stowage::simulate
