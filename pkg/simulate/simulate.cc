#include "pkg/simulate/simulate.h"

#include <atomic>
#include <functional>
#include <map>
#include <thread>

#include "pkg/api/decode.h"
#include "pkg/client/rest_client.h"
#include "pkg/common/random.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/setup.h"
#include "pkg/simulate/memory_api.h"

namespace stowage::simulate {
namespace {

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// The queue's clock: virtual time (base) plus a nanosecond per reading, as a real clock moves
// between two readings. The queue orders pods of equal priority by when they were added; on a
// frozen clock all the snapshot's pods would tie, where a live scheduler adds them in list order.
class TickingClock : public Clock {
 public:
  explicit TickingClock(FakeClock& base) : base_(base) {}
  MonoTime Now() const override {
    return base_.Now() + std::chrono::nanoseconds(ticks_.fetch_add(1) + 1);
  }
  WallTime WallNow() const override { return base_.WallNow(); }
  bool Sleep(Duration d, std::stop_token stop) override { return base_.Sleep(d, stop); }

 private:
  FakeClock& base_;
  mutable std::atomic<int64_t> ticks_{0};
};

// The requests on each node, from the scheduler's cache (what its plugins count).
std::map<std::string, framework::NodeInfo> NodeInfos(scheduler::Scheduler& s) {
  return s.cache().DumpAll().nodes;
}

// Whether done() holds and the API server has nothing in progress: looked at a few times a
// little apart with no request or delivery in between, as work hands over between threads.
bool Settled(const std::function<bool()>& done, const MemoryApi& api) {
  uint64_t seen = api.Activity();
  for (int i = 0; i < 3; ++i) {
    if (!done() || api.Busy()) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return api.Activity() == seen && done() && !api.Busy();
}

// Waits until Settled, at most limit (a pod waiting at Permit for pods not yet scheduled would
// otherwise wait for the very cycle that waits for it).
void AwaitSettled(const std::function<bool()>& done, const MemoryApi& api, Duration limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!Settled(done, api) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace

StatusOr<Result> Run(const Input& in) {
  const auto real_start = std::chrono::steady_clock::now();
  SetRandomSeed(in.options.seed);
  FakeClock clock;  // virtual time; MemoryApi stamps writes with it
  TickingClock queue_clock(clock);
  auto made = MemoryApi::New(in.snapshot.Objects(), clock);
  if (!made.ok()) return made.status();
  MemoryApi& api = **made;
  client::RestConfig rc;
  rc.source = "the simulated API server";
  rc.server = "https://simulated.invalid";
  rc.qps = 1e9;
  rc.burst = 1 << 30;
  rc.content_type = "application/json";
  rc.user_agent = "stowage/simulate";
  client::RestClient client(rc, std::move(*made));
  informer::InformerFactory informers(client);
  scheduler::Options so;
  so.instance = "stowage-simulate";
  so.queue_clock = &queue_clock;
  scheduler::Scheduler* running = nullptr;  // set once built; the hook runs only after Run starts
  so.before_cycle = [&running, &api] {
    AwaitSettled([&running] { return running->WritesDone(); }, api, std::chrono::seconds(1));
  };
  auto built = scheduler::New({.client = client,
                               .informers = informers,
                               .cfg = in.cfg,
                               .registry = in.registry,
                               .not_yet_implemented = in.not_yet_implemented,
                               .features = in.features,
                               .options = std::move(so)});
  if (!built.ok()) return built.status();
  scheduler::Scheduler& sched = *built->scheduler;
  running = &sched;

  Result r;
  r.seed = in.options.seed;
  r.nodes = in.snapshot.nodes();
  r.displaced = in.snapshot.displaced();
  r.skipped = in.snapshot.skipped();
  r.warnings = built->warnings;
  informers.Start();
  if (!informers.WaitForCacheSync(std::chrono::seconds(60))) {
    return DeadlineExceededError("the scheduler's informers did not sync from the snapshot");
  }
  const auto before = NodeInfos(sched);
  const MonoTime start = clock.Now();
  std::jthread loop([&sched](std::stop_token stop) { sched.Run(stop); });
  for (;;) {
    while (!Settled([&sched] { return sched.Quiet(); }, api)) {
      if (std::chrono::steady_clock::now() - real_start > in.options.max_real_time) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (std::chrono::steady_clock::now() - real_start > in.options.max_real_time ||
        clock.Now() - start >= in.options.max_virtual_time) {
      r.stopped_early = sched.queue().BackoffSize() > 0 || !sched.Quiet();
      break;
    }
    if (sched.queue().BackoffSize() == 0) break;
    // Quiet with pods backing off: the next second a backoff may end (the queue's timer ticks
    // on whole seconds too).
    clock.Advance(std::chrono::seconds(1));
    sched.queue().FlushBackoffQCompleted();
  }
  r.virtual_seconds = Seconds(clock.Now() - start);
  loop.request_stop();
  loop.join();
  informers.Stop();
  const auto after = NodeInfos(sched);

  std::map<std::string, Write> bound;
  for (const Write& w : api.Writes()) {
    if (w.kind == Write::Kind::kBind) bound[w.pod] = w;
  }
  std::map<std::string, api::PodPtr> pods;
  for (const std::string& text : api.List("/api/v1/pods")) {
    auto p = api::Decode<api::Pod>(text);
    if (!p.ok()) {
      r.warnings.push_back("a pod the run wrote cannot be read back: " +
                           std::string(p.status().message()));
      continue;
    }
    std::string key = api::NamespacedName(p->metadata);  // before *p is moved from
    pods[key] = std::make_shared<api::Pod>(std::move(*p));
  }
  for (const std::string& key : in.snapshot.PendingPods()) {
    PodOutcome o{.pod = key};
    if (auto w = bound.find(key); w != bound.end()) {
      o.node = w->second.node;
      o.bound_at = Seconds(w->second.at);
    } else if (auto p = pods.find(key); p != pods.end()) {
      o.nominated_node = p->second->status.nominated_node_name;
      for (const api::Condition& c : p->second->status.conditions) {
        if (c.type != "PodScheduled") continue;
        o.reason = c.reason;
        o.message = c.message;
      }
    } else {
      o.reason = "Deleted";
    }
    r.pods.push_back(std::move(o));
  }
  std::map<std::string, std::string> preempted_by;
  for (const RecordedEvent& e : api.Events()) {
    if (e.reason == "Preempted") preempted_by[e.object] = e.message;
  }
  for (const Write& w : api.Writes()) {
    if (w.kind != Write::Kind::kDelete) continue;
    r.preempted.push_back(Preempted{w.pod, w.node, preempted_by[w.pod], Seconds(w.at)});
  }
  for (const auto& [name, info] : after) {
    NodeUse u{.node = name};
    u.unschedulable = info.node() && info.node()->spec.unschedulable;
    u.pods_after = info.pods().size();
    u.allocatable_milli_cpu = info.allocatable().milli_cpu;
    u.allocatable_memory = info.allocatable().memory;
    u.allocatable_pods = info.allocatable().allowed_pod_number;
    u.milli_cpu_after = info.requested().milli_cpu;
    u.memory_after = info.requested().memory;
    if (auto b = before.find(name); b != before.end()) {
      u.pods_before = b->second.pods().size();
      u.milli_cpu_before = b->second.requested().milli_cpu;
      u.memory_before = b->second.requested().memory;
    }
    r.utilisation.push_back(u);
  }
  r.real_seconds = Seconds(std::chrono::steady_clock::now() - real_start);
  return r;
}

}  // namespace stowage::simulate
