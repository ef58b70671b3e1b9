// stowage-demo: creates a sample workload in a cluster where stowage is running, waits until
// every pod is either bound or reported unschedulable, and prints where each pod went and, for
// pods left pending, the scheduler's reason. The workload includes a StatefulSet whose volume
// claims wait for their first consumer, so the report shows each replica's node beside the
// volume provisioned for it (the cluster must run the storage flow: tests/cluster/up --storage).
// It watches through stowage's own informers.
//
// With --create-only it creates the same objects, waits until the StatefulSet's controller has
// made the replicas' claims and pods (all 12 + 3 pods exist), and exits 0 without waiting for
// scheduling and without the report: a test takes a snapshot of that cluster before any
// scheduler runs (tests/integration/simulate/demo_test.cc). With --dra it then adds two pods that
// want a GPU, by a claim template and by an extended resource (gpu.cc; the cluster must run the
// DRA flow too: tests/cluster/up --dra).
//   stowage-demo --kubeconfig FILE [--scheduler-name NAME] [--create-only] [--dra]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "cmd/stowage-demo/gpu.h"
#include "pkg/client/errors.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/informer/informer_factory.h"
#include "stowage/framework/types.h"

namespace stowage {
namespace {

struct NodeSpec {
  const char* name;
  const char* zone;
  const char* cpu;
  const char* memory;
  const char* extra;  // spec fields, or ""
};

const NodeSpec kNodes[] = {
    {"demo-a1", "zone-a", "4", "16Gi", ""},
    {"demo-a2", "zone-a", "2", "8Gi", ""},
    {"demo-b1", "zone-b", "8", "32Gi", ""},
    {"demo-b2", "zone-b", "4", "16Gi",
     R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"},
    {"demo-c1", "zone-c", "4", "16Gi", R"("unschedulable":true)"},
};

struct PodSpec {
  const char* name;
  const char* cpu;
  const char* memory;
  const char* extra;  // extra pod spec fields, or ""
};

const PodSpec kPods[] = {
    {"web-1", "500m", "512Mi", ""},
    {"web-2", "500m", "512Mi", ""},
    {"web-3", "500m", "512Mi", ""},
    {"api-1", "1", "2Gi", ""},
    {"api-2", "1", "2Gi", ""},
    {"batch-1", "2", "4Gi", ""},
    {"batch-2", "2", "4Gi", ""},
    {"zone-a-only", "250m", "256Mi",
     R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-a"]}]}]}}})"},
    {"gpu-job", "1", "1Gi",
     R"("tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}],"nodeSelector":{"kubernetes.io/hostname":"demo-b2"})"},
    {"cache-1", "100m", "128Mi", ""},
    {"too-big", "16", "8Gi", ""},
    {"zone-x-only", "100m", "128Mi", R"("nodeSelector":{"topology.kubernetes.io/zone":"zone-x"})"},
};

// A StatefulSet of three replicas, each with a claim of a WaitForFirstConsumer class that the
// test provisioner serves; Parallel, because no kubelet ever makes a replica Ready.
constexpr int kReplicas = 3;
constexpr const char* kStorageClass =
    R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"demo-local"},)"
    R"("provisioner":"stowage.dev/test-provisioner","volumeBindingMode":"WaitForFirstConsumer"})";

std::string StatefulSetJson(const std::string& scheduler) {
  return std::string(R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},)") +
         R"("spec":{"replicas":)" + std::to_string(kReplicas) +
         R"(,"podManagementPolicy":"Parallel","serviceName":"db",)"
         R"("selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},)"
         R"("spec":{"schedulerName":")" +
         scheduler +
         R"(","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10",)"
         R"("resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}]}},)"
         R"("volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":)"
         R"(["ReadWriteOnce"],"storageClassName":"demo-local",)"
         R"("resources":{"requests":{"storage":"1Gi"}}}}]}})";
}

// The node a provisioned volume is pinned to (its kubernetes.io/hostname affinity), or "".
std::string VolumeNode(const api::PersistentVolume& pv) {
  if (!pv.node_affinity) return "";
  for (const auto& term : pv.node_affinity->terms) {
    for (const auto& r : term.match_expressions) {
      if (r.key == "kubernetes.io/hostname" && !r.values.empty()) return r.values[0];
    }
  }
  return "";
}

std::string NodeJson(const NodeSpec& n) {
  std::string spec = std::strlen(n.extra) ? std::string(",\"spec\":{") + n.extra + "}" : "";
  return std::string(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")") + n.name +
         R"(","labels":{"topology.kubernetes.io/zone":")" + n.zone +
         R"(","kubernetes.io/hostname":")" + n.name + R"("}})" + spec +
         R"(,"status":{"capacity":{"cpu":")" + n.cpu + R"(","memory":")" + n.memory +
         R"(","pods":"110"},"allocatable":{"cpu":")" + n.cpu + R"(","memory":")" + n.memory +
         R"(","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})";
}

std::string PodJson(const PodSpec& p, const std::string& scheduler) {
  std::string extra = std::strlen(p.extra) ? std::string(",") + p.extra : "";
  return std::string(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")") + p.name +
         R"(","namespace":"demo"},"spec":{"schedulerName":")" + scheduler +
         R"(","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":")" +
         p.cpu + R"(","memory":")" + p.memory + R"("}}}])" + extra + "}}";
}

const api::Condition* Scheduled(const api::Pod& p) {
  for (const auto& c : p.status.conditions) {
    if (c.type == "PodScheduled") return &c;
  }
  return nullptr;
}

int Run(const std::string& kubeconfig, const std::string& scheduler, bool create_only, bool dra) {
  auto cfg = client::LoadKubeconfig(kubeconfig);
  if (!cfg.ok()) return std::fprintf(stderr, "error: %s\n", cfg.status().ToString().c_str()), 1;
  auto c = client::RestClient::New(*cfg);
  if (!c.ok()) return std::fprintf(stderr, "error: %s\n", c.status().ToString().c_str()), 1;
  client::RestClient& api = **c;
  auto check = [](const Status& s) {
    if (!s.ok() && !client::IsAlreadyExists(s)) {
      std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  };
  std::printf(
      "creating %zu nodes, %zu pods and a StatefulSet of %d replicas with volume claims "
      "(schedulerName %s) through %s\n",
      std::size(kNodes), std::size(kPods), kReplicas, scheduler.c_str(), cfg->server.c_str());
  check(api.Post("/api/v1/namespaces", R"({"metadata":{"name":"demo"}})").status());
  for (const auto& n : kNodes) check(api.Post("/api/v1/nodes", NodeJson(n)).status());
  informer::InformerFactory factory(api);
  auto& pods = factory.For<api::Pod>(informer::Filter{.namespace_ = "demo"});
  auto& claims = factory.For<api::PersistentVolumeClaim>(informer::Filter{.namespace_ = "demo"});
  auto& volumes = factory.For<api::PersistentVolume>();
  factory.Start();
  factory.WaitForCacheSync(std::chrono::seconds(30));
  check(api.Post("/apis/storage.k8s.io/v1/storageclasses", kStorageClass).status());
  check(
      api.Post("/apis/apps/v1/namespaces/demo/statefulsets", StatefulSetJson(scheduler)).status());
  for (const auto& p : kPods) {
    check(api.Post("/api/v1/namespaces/demo/pods", PodJson(p, scheduler)).status());
  }

  if (create_only) {
    // The StatefulSet controller makes each replica's claim before its pod.
    auto created = [&] {
      return pods.store().List().size() == std::size(kPods) + kReplicas &&
             claims.store().List().size() == size_t{kReplicas};
    };
    for (int i = 0; i < 600 && !created(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const bool done = created();
    factory.Stop();
    if (!done) {
      std::fprintf(stderr,
                   "error: the StatefulSet's pods and claims did not all appear within a minute "
                   "(does the cluster run the storage flow?)\n");
      return 1;
    }
    std::printf("created\n");
    return 0;
  }

  // Every pod decided, and each replica's claim bound to its volume.
  auto settled = [&] {
    size_t done = 0;
    for (const auto& p : pods.store().List()) {
      const api::Condition* cond = Scheduled(*p);
      if (!p->spec.node_name.empty() || (cond && cond->status == "False")) ++done;
    }
    size_t bound = 0;
    for (const auto& c : claims.store().List()) bound += c->phase == "Bound";
    return done == std::size(kPods) + kReplicas && bound == size_t{kReplicas};
  };
  for (int i = 0; i < 600 && !settled(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  auto list = pods.store().List();
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
  std::printf("\n%-12s %-6s %-7s %s\n", "POD", "CPU", "MEMORY", "NODE / WHY PENDING");
  std::map<std::string, framework::Resource> used;
  for (const auto& p : list) {
    const auto& req = p->spec.containers[0].resources.requests;
    std::string where = p->spec.node_name;
    if (where.empty()) {
      const api::Condition* cond = Scheduled(*p);
      where = "pending: " + (cond ? cond->message : std::string("(no decision yet)"));
    } else {
      used[p->spec.node_name].Add(framework::ComputePodRequests(*p));
    }
    std::printf("%-12s %-6s %-7s %s\n", p->metadata.name.c_str(), req.Get("cpu")->String().c_str(),
                req.Get("memory")->String().c_str(), where.c_str());
  }
  std::printf("\n%-8s %-7s %-10s %s\n", "NODE", "ZONE", "CPU USED", "NOTE");
  for (const auto& n : kNodes) {
    auto u = used[n.name];
    std::string note = std::strstr(n.extra, "taints")          ? "tainted dedicated=gpu:NoSchedule"
                       : std::strstr(n.extra, "unschedulable") ? "cordoned"
                                                               : "";
    std::printf("%-8s %-7s %5lldm/%-4s %s\n", n.name, n.zone, static_cast<long long>(u.milli_cpu),
                n.cpu, note.c_str());
  }
  std::printf("\n%-6s %-8s %-10s %-42s %s\n", "POD", "NODE", "CLAIM", "VOLUME", "VOLUME'S NODE");
  for (int i = 0; i < kReplicas; ++i) {
    const std::string pod = "db-" + std::to_string(i), claim = "data-" + pod;
    auto p = pods.store().Get("demo/" + pod);
    auto c = claims.store().Get("demo/" + claim);
    auto v = c && !c->volume_name.empty() ? volumes.store().Get(c->volume_name) : nullptr;
    std::printf("%-6s %-8s %-10s %-42s %s\n", pod.c_str(),
                p && !p->spec.node_name.empty() ? p->spec.node_name.c_str() : "-", claim.c_str(),
                c && !c->volume_name.empty() ? c->volume_name.c_str() : "(not bound)",
                v ? VolumeNode(*v).c_str() : "-");
  }
  factory.Stop();
  const bool all_settled = settled();
  const int gpu = dra ? demo::RunGpu(api, scheduler) : 0;
  return all_settled && gpu == 0 ? 0 : 1;
}

}  // namespace
}  // namespace stowage

namespace {
constexpr char kUsage[] =
    "usage: stowage-demo --kubeconfig FILE [--scheduler-name NAME] [--create-only] [--dra]\n";
}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, scheduler = "default-scheduler";
  bool create_only = false, dra = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--kubeconfig" && i + 1 < argc) {
      kubeconfig = argv[++i];
    } else if (a.rfind("--kubeconfig=", 0) == 0) {
      kubeconfig = a.substr(13);
    } else if (a == "--scheduler-name" && i + 1 < argc) {
      scheduler = argv[++i];
    } else if (a == "--create-only") {
      create_only = true;
    } else if (a == "--dra") {
      dra = true;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (kubeconfig.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  stowage::logging::Init(0);
  return stowage::Run(kubeconfig, scheduler, create_only, dra);
}
