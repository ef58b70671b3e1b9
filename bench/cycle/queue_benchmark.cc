// The scheduling queue's hot paths under the default profile (PrioritySort, SchedulingGates and
// every default plugin's queueing hints), with a backlog of pods already waiting:
//   BM_QueueAddPop          one pod added, popped and done, over a backlog in activeQ;
//   BM_QueueRejectAndDelete one pod added, popped, rejected by NodeResourcesFit (so it replays
//                           the in-flight log and lands in unschedulable) and deleted;
//   BM_QueueMoveAllSkipped  a node add every rejected pod's hint skips (the node is too small),
//                           over a backlog of rejected pods: the scan and the hint calls.
// Argument: the backlog. Uses only SchedulingQueue's public interface, so the same file times any
// version of the queue. Not a test: nothing asserts a time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "pkg/config/defaults.h"
#include "pkg/plugins/registry.h"
#include "pkg/queue/scheduling_queue.h"
#include "pkg/scheduler/setup.h"
#include "stowage/framework/events.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::bench {
namespace {

// The default profile's framework and a queue over it; no timer thread runs.
class QueueFixture {
 public:
  QueueFixture() {
    config::KubeSchedulerConfiguration cfg;
    config::SetDefaults(cfg);
    registry_ = plugins::NewInTreeRegistry();
    auto built = scheduler::NewFrameworks(cfg, registry_, plugins::NotYetImplemented(), handle_);
    if (!built.ok()) {
      std::fprintf(stderr, "bench_cycle: %s\n", built.status().ToString().c_str());
      std::exit(1);
    }
    frameworks_ = std::move(*built);
    framework::Framework* fw = frameworks_.frameworks.at(0).get();
    queue_ = std::make_unique<queue::SchedulingQueue>(
        std::map<std::string, framework::Framework*>{{"default-scheduler", fw}},
        queue::QueueOptions{});
  }
  queue::SchedulingQueue& queue() { return *queue_; }

  // Pod i of the default scheduler, requesting 100m / 500Mi as scheduler_perf's default pod.
  static api::PodPtr Pod(int64_t i) {
    return testing::BuildPod()
        .Namespace("bench")
        .Name("pod-" + std::to_string(i))
        .UID("pod-uid-" + std::to_string(i))
        .SchedulerName("default-scheduler")
        .Res({{"cpu", "100m"}, {"memory", "500Mi"}})
        .Obj();
  }

  // Adds pod i, pops it and reports it rejected by NodeResourcesFit.
  void Reject(int64_t i) {
    queue_->Add(Pod(i));
    queue::QueuedPodInfoPtr p = queue_->Pop();
    p->unschedulable_plugins = {"NodeResourcesFit"};
    queue_->AddUnschedulableIfNotPresent(std::move(p), /*error=*/false);
  }

 private:
  framework::Registry registry_;
  testing::FakeHandle handle_;
  scheduler::Frameworks frameworks_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
};

void BM_QueueAddPop(benchmark::State& state) {
  QueueFixture f;
  int64_t next = 0;
  for (; next < state.range(0); ++next) f.queue().Add(QueueFixture::Pod(next));
  for (auto _ : state) {
    f.queue().Add(QueueFixture::Pod(next++));
    queue::QueuedPodInfoPtr p = f.queue().Pop();
    f.queue().Done(p->pod());
  }
}

void BM_QueueRejectAndDelete(benchmark::State& state) {
  QueueFixture f;
  int64_t next = 0;
  for (; next < state.range(0); ++next) f.Reject(next);
  for (auto _ : state) {
    api::PodPtr pod = QueueFixture::Pod(next);
    f.Reject(next++);
    f.queue().Delete(*pod);
  }
}

void BM_QueueMoveAllSkipped(benchmark::State& state) {
  QueueFixture f;
  for (int64_t i = 0; i < state.range(0); ++i) f.Reject(i);
  const api::NodePtr small =
      testing::BuildNode().Name("small").Capacity({{"cpu", "10m"}, {"memory", "1Mi"}}).Obj();
  for (auto _ : state) {
    f.queue().MoveAllToActiveOrBackoffQueue(framework::kEventNodeAdd, {}, small);
  }
  if (f.queue().UnschedulableSize() != static_cast<size_t>(state.range(0))) {
    state.SkipWithError("a hint queued a pod the small node cannot hold");
  }
}

BENCHMARK(BM_QueueAddPop)->ArgName("backlog")->Arg(1000)->Arg(10000)->MinTime(1.0);
BENCHMARK(BM_QueueRejectAndDelete)->ArgName("backlog")->Arg(1000)->Arg(10000)->MinTime(1.0);
BENCHMARK(BM_QueueMoveAllSkipped)
    ->ArgName("backlog")
    ->Arg(1000)
    ->MinTime(1.0)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace stowage::bench
