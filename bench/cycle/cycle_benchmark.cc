// bench_cycle: the scheduling cycle alone, without the apiserver. The default-plugin profile
// (an empty KubeSchedulerConfiguration, defaulted, built by scheduler::NewFrameworks) runs
// scheduler::Algorithm::SchedulePod on a synthetic cluster of scheduler_perf nodes (4 CPU /
// 32Gi / 110 pods, hostname, zone, region and os labels); each chosen pod is assumed into the
// cache so the snapshot fills as in a real run. One benchmark iteration is one pod through
// UpdateSnapshot + SchedulePod + AssumePod, so the reported time is per pod.
//
// Arguments: {nodes, parallelism}. Parallelism 16 is kube-scheduler's default (what the binary
// runs with); 1 shows the single-threaded cost, and is what scripts/profile-cycle counts (under
// valgrind the threads' interleaving decides how many nodes a parallel search visits, so a count
// at 16 moves between runs of one binary). BM_SchedulePod times scheduler_perf's default
// pod; BM_BoundVolume a pod with a bound claim; BM_DraClaim a pod with a ResourceClaim of one
// device, over nodes of 8 devices each, and BM_DraClaimHeld over nodes of 10, half of them held
// by allocated claims; BM_PodAffinity, BM_RequiredPodAffinity,
// BM_PodAntiAffinityNSSelector, BM_TopologySpread, BM_CombinedConstraints and
// BM_CombinedConstraintsRequired time pods with
// inter-pod affinity terms and with spread constraints over nodes already holding pods those
// terms match, so InterPodAffinity's and PodTopologySpread's PreFilter, Filter, PreScore and
// Score are in the time (when the in-tree registry has them; otherwise the label names them as
// missing). The counter
// process_cpu_ns_per_pod is the CPU of every thread of the process (getrusage) per pod, since the
// worker pool's threads do most of the work and Google Benchmark's cpu_time counts only the
// benchmark thread; the counters update_snapshot_ns, schedule_pod_ns and assume_pod_ns split the
// wall time per pod by step.
//
// Not a test: nothing asserts a time. Run: build/bench/bench_cycle (scripts/bench runs it).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pkg/cache/cache.h"
#include "pkg/cache/snapshot.h"
#include "pkg/common/logging.h"
#include "pkg/config/defaults.h"
#include "pkg/framework/runtime/parallelize.h"
#include "pkg/framework/runtime/runtime.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/algorithm.h"
#include "pkg/scheduler/setup.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_lister.h"

namespace stowage::bench {
namespace {

// A lister indexed by namespace and name, as the informer's store is (FakeLister searches
// linearly, which at thousands of objects would time the fake instead of the plugin).
template <typename T>
class IndexedLister final : public framework::Lister<T>, public framework::ChangeFeed<T> {
 public:
  using typename framework::Lister<T>::Ptr;
  using typename framework::ChangeFeed<T>::Change;
  void Add(T object) {
    std::string key = object.metadata.namespace_ + "/" + object.metadata.name;
    auto ptr = std::make_shared<const T>(std::move(object));
    objects_.push_back(ptr);
    by_key_[std::move(key)] = std::move(ptr);
  }
  std::vector<Ptr> List() const override { return objects_; }
  std::vector<Ptr> List(std::string_view ns) const override {
    std::vector<Ptr> out;
    for (const Ptr& o : objects_) {
      if (o->metadata.namespace_ == ns) out.push_back(o);
    }
    return out;
  }
  Ptr Get(std::string_view ns, std::string_view name) const override {
    std::string key;
    key.reserve(ns.size() + name.size() + 1);
    key.append(ns).append("/").append(name);
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : it->second;
  }
  std::optional<uint64_t> Version() const override { return objects_.size(); }
  // Objects are only added, so the writes since a version are the objects after it, as the
  // informer's store reports them.
  bool ChangesSince(uint64_t since, std::vector<Change>& out, uint64_t& now) const override {
    now = objects_.size();
    if (since > now) return false;
    for (size_t i = since; i < now; ++i) out.push_back(Change{nullptr, objects_[i]});
    return true;
  }

 private:
  std::vector<Ptr> objects_;
  std::unordered_map<std::string, Ptr> by_key_;
};

constexpr std::string_view kCSIDriver = "ebs.csi.aws.com";

// The Handle plugins get: the benchmark's snapshot and pool; binding never happens here.
class BenchHandle : public framework::Handle, public framework::PodWriter {
 public:
  BenchHandle(const cache::Snapshot& snapshot, framework::Parallelizer& pool)
      : snapshot_(snapshot), pool_(pool) {
    pvs_.Add(BoundVolume());
    pvcs_.Add(BoundClaim("data", "pv-data"));
  }
  const framework::NodeInfoLister& SnapshotSharedLister() const override { return snapshot_; }
  framework::Parallelizer& parallelizer() override { return pool_; }
  const framework::Lister<api::Namespace>& namespaces() override { return namespaces_; }
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override { return pvs_; }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return pvcs_;
  }
  const framework::Lister<api::CSINode>& csi_nodes() override { return csi_nodes_; }
  const framework::Lister<api::ResourceClaim>& resource_claims() override { return claims_; }
  const framework::Lister<api::ResourceSlice>& resource_slices() override { return slices_; }
  const framework::Lister<api::DeviceClass>& device_classes() override { return classes_; }
  framework::PodWriter& pod_writer() override { return *this; }
  Status Bind(const api::Pod&, std::string_view) override {
    return InternalError("bench_cycle: the scheduling cycle never binds");
  }
  Status PatchPodStatus(const api::Pod&, const api::PodStatus&) override {
    return InternalError("bench_cycle: the scheduling cycle never writes a status");
  }
  Status DeletePod(const api::Pod&) override {
    return InternalError("bench_cycle: the scheduling cycle never deletes a pod");
  }

  // BM_CSIVolumes' objects: a CSINode allowing 39 volumes of kCSIDriver on each node, as
  // scheduler_perf's SchedulingCSIPVs makes them, and the claim "<name>" bound to the CSI
  // volume "pv-<name>" for each name in claims.
  // BM_DraClaim's objects: the class "gpu" (no selector, so no CEL) and on each node one
  // ResourceSlice of `devices` devices of the driver gpu.example.com, in a pool named after the
  // node, with the two capacities of scheduler_perf's resourceslice-basic-devices.yaml (its
  // attributes are left out: a class without selectors reads none).
  void AddDraObjects(int nodes, int devices) {
    api::DeviceClass cls;
    cls.metadata.name = "gpu";
    classes_.Add(std::move(cls));
    for (int i = 0; i < nodes; ++i) {
      api::ResourceSlice slice;
      const std::string node = "scheduler-perf-" + std::to_string(i);
      slice.metadata.name = node + "-gpu";
      slice.driver = "gpu.example.com";
      slice.pool_name = node;
      slice.pool_generation = 1;
      slice.pool_resource_slice_count = 1;
      slice.node_name = node;
      for (int d = 0; d < devices; ++d) {
        api::Device device{.name = "gpu-" + std::to_string(d)};
        device.capacity =
            api::Map<api::DeviceCapacity>({{"memory", {.value = *api::Quantity::Parse("24480Mi")}},
                                           {"millicores", {.value = *api::Quantity::Parse("1k")}}});
        slice.devices.push_back(std::move(device));
      }
      slices_.Add(std::move(slice));
    }
  }
  // The claim "claim-<i>" of pod i: one device of class gpu, not allocated yet.
  void AddPodClaim(int64_t i) {
    api::ResourceClaim claim;
    claim.metadata.namespace_ = "bench";
    claim.metadata.name = "claim-" + std::to_string(i);
    claim.metadata.uid = "claim-uid-" + std::to_string(i);
    claim.metadata.resource_version = "1";
    api::DeviceRequest r{
        .name = "gpu", .exactly = api::ExactDeviceRequest{}, .first_available = {}};
    r.exactly->device_class_name = "gpu";
    r.exactly->allocation_mode = "ExactCount";
    r.exactly->count = 1;
    claim.devices.requests.push_back(std::move(r));
    claims_.Add(std::move(claim));
  }

  // The claim "init-<i>" of each node i, allocated its devices gpu-0 to gpu-<held - 1>, as
  // scheduler_perf's init claims hold half of each node's devices in the DRA shapes.
  void AddHeldClaims(int nodes, int held) {
    for (int i = 0; i < nodes; ++i) {
      api::ResourceClaim claim;
      claim.metadata.namespace_ = "bench";
      claim.metadata.name = "init-" + std::to_string(i);
      claim.metadata.uid = "init-uid-" + std::to_string(i);
      claim.metadata.resource_version = "1";
      api::AllocationResult allocation;
      for (int d = 0; d < held; ++d) {
        allocation.results.push_back({.request = "gpu",
                                      .driver = "gpu.example.com",
                                      .pool = "scheduler-perf-" + std::to_string(i),
                                      .device = "gpu-" + std::to_string(d)});
      }
      claim.allocation = std::move(allocation);
      claims_.Add(std::move(claim));
    }
  }

  void AddCSIObjects(int nodes, const std::vector<std::string>& claims) {
    for (int i = 0; i < nodes; ++i) {
      api::CSINode csi_node;
      csi_node.metadata.name = "scheduler-perf-" + std::to_string(i);
      csi_node.drivers.push_back({std::string(kCSIDriver), "id", {}, 39});
      csi_nodes_.Add(std::move(csi_node));
    }
    for (const std::string& name : claims) {
      api::PersistentVolume pv;
      pv.metadata.name = "pv-" + name;
      pv.access_modes = {"ReadWriteMany"};
      pv.source = "csi";
      pv.csi_driver = kCSIDriver;
      pv.csi_volume_handle = "vol-" + name;
      pvs_.Add(std::move(pv));
      pvcs_.Add(BoundClaim(name, "pv-" + name));
    }
  }

 private:
  const cache::Snapshot& snapshot_;
  framework::Parallelizer& pool_;
  testing::FakeLister<api::Namespace> namespaces_ = BenchNamespaces();
  IndexedLister<api::PersistentVolume> pvs_;
  IndexedLister<api::PersistentVolumeClaim> pvcs_;
  IndexedLister<api::CSINode> csi_nodes_;
  IndexedLister<api::ResourceClaim> claims_;
  IndexedLister<api::ResourceSlice> slices_;
  IndexedLister<api::DeviceClass> classes_;

  // BM_BoundVolume's claim "data", bound by the PV controller to "pv-data", a volume reachable
  // from two of the three zones.
  static api::PersistentVolume BoundVolume() {
    api::PersistentVolume pv;
    pv.metadata.name = "pv-data";
    pv.access_modes = {"ReadWriteMany"};
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({"topology.kubernetes.io/zone", "In", {"zone-0", "zone-1"}});
    pv.node_affinity.emplace().terms.push_back(std::move(term));
    return pv;
  }
  static api::PersistentVolumeClaim BoundClaim(const std::string& name, const std::string& pv) {
    api::PersistentVolumeClaim pvc;
    pvc.metadata.name = name;
    pvc.metadata.namespace_ = "bench";
    pvc.metadata.annotations = testing::MakeStringMap({{"pv.kubernetes.io/bind-completed", "yes"}});
    pvc.access_modes = {"ReadWriteMany"};
    pvc.volume_name = pv;
    pvc.phase = "Bound";
    return pvc;
  }

  // scheduler_perf's namespaces of the NSSelector shape: sched-init-0..99 labelled team=devops,
  // and the measured pods' "bench".
  static testing::FakeLister<api::Namespace> BenchNamespaces() {
    testing::FakeLister<api::Namespace> out;
    for (int i = 0; i <= 100; ++i) {
      api::Namespace ns;
      ns.metadata.name = i < 100 ? "sched-init-" + std::to_string(i) : "bench";
      ns.metadata.labels = testing::MakeStringMap({{"team", "devops"}});
      out.Add(std::move(ns));
    }
    return out;
  }
};

[[noreturn]] void Die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "bench_cycle: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

api::NodePtr Node(int i) {
  std::string name = "scheduler-perf-" + std::to_string(i);
  return testing::BuildNode()
      .Name(name)
      .UID("node-uid-" + std::to_string(i))
      .Label("kubernetes.io/hostname", name)
      .Label("kubernetes.io/os", "linux")
      .Label("topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3))
      .Label("topology.kubernetes.io/region", "region-1")
      .Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}})
      .Condition("Ready", "True")
      .Obj();
}

// scheduler_perf's pod-default.yaml: requests = limits = 100m / 500Mi.
testing::PodWrapper PerfPod() {
  testing::PodWrapper pod;
  pod.Namespace("bench")
      .SchedulerName("default-scheduler")
      .Container("registry.k8s.io/pause:3.10.2")
      .Res({{"cpu", "100m"}, {"memory", "500Mi"}});
  return pod;
}

// Pod i: a copy of the template with its own name and UID (cheap next to a cycle).
api::PodPtr Pod(const api::Pod& tmpl, int64_t i) {
  auto pod = std::make_shared<api::Pod>(tmpl);
  pod->metadata.name = "pod-" + std::to_string(i);
  pod->metadata.uid = "pod-uid-" + std::to_string(i);
  return pod;
}

using Clock = std::chrono::steady_clock;

double ProcessCpuNs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

// Pods bound before the first measured one: count copies of tmpl, round-robin over the nodes
// from first_node on. With numbered_claims, copy j's claims are named "<claim>-<j>".
struct ExistingPods {
  api::PodPtr tmpl;
  int count = 0;
  int first_node = 0;
  bool numbered_claims = false;
};

// The benchmark loop shared by every case: measured pods from tmpl, over a cache that already
// holds the existing pods. Non-empty csi_claims adds CSINodes and those claims' CSI volumes.
// dra_devices > 0 adds a slice of that many devices to every node and gives measured pod i the
// claim "claim-<i>"; Reserve runs after each cycle, so the devices taken stay in flight and the
// nodes fill as the run goes. dra_held of each node's devices are held by allocated claims.
void RunCycles(benchmark::State& state, const api::PodPtr& tmpl,
               const std::vector<ExistingPods>& existing,
               const std::vector<std::string>& csi_claims = {}, int dra_devices = 0,
               int dra_held = 0) {
  const int nodes = static_cast<int>(state.range(0));
  const int parallelism = static_cast<int>(state.range(1));
  cache::Cache cache;
  for (int i = 0; i < nodes; ++i) cache.AddNode(Node(i));
  int64_t next = 0;
  for (const ExistingPods& group : existing) {
    for (int j = 0; j < group.count; ++j) {
      auto pod = std::make_shared<api::Pod>(*Pod(*group.tmpl, next++));
      pod->spec.node_name = "scheduler-perf-" + std::to_string((group.first_node + j) % nodes);
      for (api::Volume& v : pod->spec.volumes) {
        if (group.numbered_claims && !v.claim_name.empty()) v.claim_name += "-" + std::to_string(j);
      }
      if (Status s = cache.AddPod(std::move(pod)); !s.ok()) Die("adding an existing pod", s);
    }
  }
  cache::Snapshot snapshot;
  framework::WorkerPool pool(parallelism);
  BenchHandle handle(snapshot, pool);
  if (!csi_claims.empty()) handle.AddCSIObjects(nodes, csi_claims);
  if (dra_devices > 0) handle.AddDraObjects(nodes, dra_devices);
  if (dra_held > 0) handle.AddHeldClaims(nodes, dra_held);

  // Log (the missing plugins' warning) to stderr, as the binary does, so that
  // --benchmark_format=json on stdout stays parseable.
  logging::Init(0);
  config::KubeSchedulerConfiguration cfg;
  config::SetDefaults(cfg);
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto built = scheduler::NewFrameworks(cfg, registry, plugins::NotYetImplemented(), handle);
  if (!built.ok()) Die("building the default profile", built.status());
  framework::Framework* fw = built->frameworks.at(0).get();
  scheduler::Algorithm algorithm(snapshot, pool, std::nullopt);
  const scheduler::NominatedPods no_nominations;

  // The first update copies every node; the running scheduler did that once after its caches
  // synced, so it is not part of any pod's cost.
  if (Status s = cache.UpdateSnapshot(snapshot); !s.ok()) Die("initial UpdateSnapshot", s);
  int64_t unscheduled = 0;
  // Wall time of each step, summed, so the report says where a cycle's time goes.
  std::chrono::nanoseconds snapshot_time{0}, algorithm_time{0}, assume_time{0};
  const double cpu_start = ProcessCpuNs();
  for (auto _ : state) {
    api::PodPtr pod = Pod(*tmpl, next);
    if (dra_devices > 0) {
      state.PauseTiming();
      handle.AddPodClaim(next);
      auto own = std::make_shared<api::Pod>(*pod);
      own->spec.resource_claims = {
          {.name = "gpu", .resource_claim_name = "claim-" + std::to_string(next)}};
      pod = std::move(own);
      state.ResumeTiming();
    }
    ++next;
    auto t0 = Clock::now();
    if (Status s = cache.UpdateSnapshot(snapshot); !s.ok()) Die("UpdateSnapshot", s);
    auto t1 = Clock::now();
    framework::CycleState cycle;
    scheduler::ScheduleResult result;
    scheduler::FitError fit;
    framework::Status s =
        algorithm.SchedulePod(*fw, cycle, *framework::NewPodInfo(pod), no_nominations, result, fit);
    auto t2 = Clock::now();
    snapshot_time += t1 - t0;
    algorithm_time += t2 - t1;
    if (!s.IsSuccess()) {
      ++unscheduled;  // only once the cluster is full
      continue;
    }
    auto bound = std::make_shared<api::Pod>(*pod);
    bound->spec.node_name = result.host;
    if (Status as = cache.AssumePod(framework::NewPodInfo(bound)); !as.ok()) Die("AssumePod", as);
    if (dra_devices > 0) {
      framework::Status r = fw->RunReservePluginsReserve(cycle, *pod, result.host);
      if (!r.IsSuccess()) Die("Reserve", InternalError(std::string(r.Message())));
    }
    assume_time += Clock::now() - t2;
  }
  const double pods = static_cast<double>(state.iterations());
  state.counters["process_cpu_ns_per_pod"] =
      benchmark::Counter((ProcessCpuNs() - cpu_start) / pods);
  state.counters["update_snapshot_ns"] = benchmark::Counter(snapshot_time.count() / pods);
  state.counters["schedule_pod_ns"] = benchmark::Counter(algorithm_time.count() / pods);
  state.counters["assume_pod_ns"] = benchmark::Counter(assume_time.count() / pods);
  state.counters["unscheduled"] = benchmark::Counter(static_cast<double>(unscheduled));
  state.counters["pods_in_cache"] = benchmark::Counter(static_cast<double>(cache.PodCount()));
  // The default profile's plugins stowage lacks, if any, so a reader knows what was timed.
  for (const auto& w : built->warnings) state.SetLabel(w);
}

void BM_SchedulePod(benchmark::State& state) { RunCycles(state, PerfPod().Obj(), {}); }

// scheduler_perf's anti-affinity and preferred affinity templates in one pod: a green pod keeps
// off nodes holding green pods (whose own terms say the same, so the symmetric check runs too)
// and prefers nodes holding red pods. 1000 green and 1000 red pods are there before the first.
void BM_PodAffinity(benchmark::State& state) {
  using testing::PodAffinityKind;
  const auto green = testing::BuildLabelSelector().Label("color", "green").Obj();
  const auto red = testing::BuildLabelSelector().Label("color", "red").Obj();
  testing::PodWrapper green_pod = PerfPod();
  green_pod.Label("color", "green")
      .PodAntiAffinity("kubernetes.io/hostname", green, PodAffinityKind::kRequired);
  api::PodPtr existing_green = green_pod.Obj();
  api::PodPtr existing_red = PerfPod().Label("color", "red").Obj();
  api::PodPtr measured =
      green_pod.PodAffinity("kubernetes.io/hostname", red, PodAffinityKind::kPreferred).Obj();
  RunCycles(state, measured, {{existing_green, 1000, 0}, {existing_red, 1000, 1000}});
}

// scheduler_perf's SchedulingPodAffinity pod: blue, with required affinity to blue pods in its
// zone, over 1000 blue pods already in every zone; every node fits, and a zone is a domain of
// a third of the nodes.
void BM_RequiredPodAffinity(benchmark::State& state) {
  using testing::PodAffinityKind;
  const auto blue = testing::BuildLabelSelector().Label("color", "blue").Obj();
  testing::PodWrapper blue_pod = PerfPod();
  api::PodPtr existing = blue_pod.Label("color", "blue").Obj();
  api::PodPtr measured =
      blue_pod.PodAffinity("topology.kubernetes.io/zone", blue, PodAffinityKind::kRequired).Obj();
  RunCycles(state, measured, {{existing, 1000, 0}});
}

// scheduler_perf's SchedulingRequiredPodAntiAffinityWithNSSelector pod: green, with required
// anti-affinity by hostname to green pods in the namespaces labelled team=devops, over 40 such
// pods in each of 100 namespaces; 1000 iterations leave every measured pod a free node.
void BM_PodAntiAffinityNSSelector(benchmark::State& state) {
  using testing::PodAffinityKind;
  const auto green = testing::BuildLabelSelector().Label("color", "green").Obj();
  api::Pod tmpl = *PerfPod()
                       .Label("color", "green")
                       .PodAntiAffinity("kubernetes.io/hostname", green, PodAffinityKind::kRequired)
                       .Obj();
  tmpl.spec.affinity->pod_anti_affinity->required.at(0).namespace_selector =
      testing::BuildLabelSelector().Label("team", "devops").Obj();
  std::vector<ExistingPods> existing;
  for (int i = 0; i < 100; ++i) {
    auto in_ns = std::make_shared<api::Pod>(tmpl);
    in_ns->metadata.namespace_ = "sched-init-" + std::to_string(i);
    existing.push_back({in_ns, 40, 40 * i});
  }
  RunCycles(state, std::make_shared<api::Pod>(tmpl), existing);
}

// scheduler_perf's TopologySpreading pod (zone, maxSkew 5, DoNotSchedule) plus a hostname
// constraint that only scores (ScheduleAnyway), over one matching pod already on every node.
void BM_TopologySpread(benchmark::State& state) {
  const auto blue = testing::BuildLabelSelector().Label("color", "blue").Obj();
  testing::PodWrapper blue_pod = PerfPod();
  api::PodPtr existing = blue_pod.Label("color", "blue").Obj();
  api::PodPtr measured =
      blue_pod.SpreadConstraint(5, "topology.kubernetes.io/zone", "DoNotSchedule", blue)
          .SpreadConstraint(1, "kubernetes.io/hostname", "ScheduleAnyway", blue)
          .Obj();
  const int nodes = static_cast<int>(state.range(0));
  RunCycles(state, measured, {{existing, nodes, 0}});
}

// Issue 27's combined shape, as a Deployment behind a Service commonly has it: a zone spread
// that only scores (ScheduleAnyway), a hostname spread that filters with a skew above 1
// (DoNotSchedule, maxSkew 2) and a preferred anti-affinity to its own pods by hostname, over one
// matching pod already on every node.
void BM_CombinedConstraints(benchmark::State& state) {
  using testing::PodAffinityKind;
  const auto app = testing::BuildLabelSelector().Label("app", "web").Obj();
  testing::PodWrapper web = PerfPod();
  api::PodPtr existing = web.Label("app", "web").Obj();
  api::PodPtr measured =
      web.SpreadConstraint(1, "topology.kubernetes.io/zone", "ScheduleAnyway", app)
          .SpreadConstraint(2, "kubernetes.io/hostname", "DoNotSchedule", app)
          .PodAntiAffinity("kubernetes.io/hostname", app, PodAffinityKind::kPreferred)
          .Obj();
  const int nodes = static_cast<int>(state.range(0));
  RunCycles(state, measured, {{existing, nodes, 0}});
}

// The mixed set's CombinedConstraintsRequired pod: a zone spread that filters (maxSkew 5), a
// hostname spread that only scores, required node affinity to two of the three zones and a
// preferred pod affinity to the blue pods of the zone, over one blue pod on every node.
void BM_CombinedConstraintsRequired(benchmark::State& state) {
  using testing::PodAffinityKind;
  const auto api_app = testing::BuildLabelSelector().Label("app", "api").Obj();
  const auto blue = testing::BuildLabelSelector().Label("color", "blue").Obj();
  api::PodPtr existing = PerfPod().Label("color", "blue").Obj();
  api::PodPtr measured =
      PerfPod()
          .Label("app", "api")
          .SpreadConstraint(5, "topology.kubernetes.io/zone", "DoNotSchedule", api_app)
          .SpreadConstraint(1, "kubernetes.io/hostname", "ScheduleAnyway", api_app)
          .NodeAffinityIn("topology.kubernetes.io/zone", {"zone-0", "zone-1"})
          .PodAffinity("topology.kubernetes.io/zone", blue, PodAffinityKind::kPreferred)
          .Obj();
  const int nodes = static_cast<int>(state.range(0));
  RunCycles(state, measured, {{existing, nodes, 0}});
}

// A pod whose claim is bound to a volume with node affinity (scheduler_perf's PV shapes have one
// such pair per pod): VolumeBinding's PreFilter reads the claim and compiles the volume's
// affinity, Filter matches it on every node, and a third of the nodes are out of its zones.
void BM_BoundVolume(benchmark::State& state) { RunCycles(state, PerfPod().PVC("data").Obj(), {}); }

// scheduler_perf's SchedulingWithResourceClaimTemplate pod, its claim made already: one device
// of a class every device matches, on nodes of 8 devices; 2000 pods take 2000 of them.
void BM_DraClaim(benchmark::State& state) {
  RunCycles(state, PerfPod().Obj(), {}, {}, /*dra_devices=*/8);
}

// The DRA cases' sizes: 2000 pods at 5000 and 500 nodes, at kube-scheduler's parallelism.
void DraSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "parallelism"})
      ->Args({5000, 16})
      ->Args({500, 16})
      ->Iterations(2000)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_DraClaim)->Apply(DraSizes);

// The same on nodes of 10 devices, 5 of them held by allocated claims the informer has, as in
// SchedulingWithResourceClaimTemplate's state: the search passes the held devices on every node.
void BM_DraClaimHeld(benchmark::State& state) {
  RunCycles(state, PerfPod().Obj(), {}, {}, /*dra_devices=*/10, /*dra_held=*/5);
}

BENCHMARK(BM_DraClaimHeld)->Apply(DraSizes);

BENCHMARK(BM_BoundVolume)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

// scheduler_perf's SchedulingCSIPVs after its init pods: every node has a CSINode allowing 39
// volumes of the driver and one pod holding a CSI volume of it; the measured pod's claim is bound
// to another such volume (one claim for all measured pods, so the cluster never fills), and
// NodeVolumeLimits counts the attached volumes of every node it filters.
void BM_CSIVolumes(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::vector<std::string> claims = {"csi-data"};
  for (int j = 0; j < nodes; ++j) claims.push_back("init-" + std::to_string(j));
  RunCycles(state, PerfPod().PVC("csi-data").Obj(),
            {{PerfPod().PVC("init").Obj(), nodes, 0, /*numbered_claims=*/true}}, claims);
}

BENCHMARK(BM_CSIVolumes)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_SchedulePod)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->Args({5000, 1})
    ->Args({15000, 16})
    ->Args({15000, 1})
    ->Args({100000, 16})
    ->Args({5000, 1})
    ->Args({15000, 1})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

// 3000 pods: with the 1000 green pods already there, green pods then hold 4000 of the 5000
// nodes, so every measured pod still has a node and the cases time the same cluster each run.
BENCHMARK(BM_PodAffinity)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->Iterations(3000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_RequiredPodAffinity)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_PodAntiAffinityNSSelector)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->Iterations(1000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_TopologySpread)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_CombinedConstraintsRequired)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->Args({5000, 1})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_CombinedConstraints)
    ->ArgNames({"nodes", "parallelism"})
    ->Args({5000, 16})
    ->Args({5000, 1})
    ->Args({15000, 16})
    ->Args({15000, 1})
    ->Args({100000, 16})
    ->UseRealTime()
    ->MinTime(2.0)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace stowage::bench

BENCHMARK_MAIN();
