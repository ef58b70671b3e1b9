// stowage-demo: shows stowage's client and informers working against a real cluster. It creates
// a few nodes and pods, lists them through shared informers, then changes the cluster and
// prints each change as the informers deliver it.
//   stowage-demo --kubeconfig FILE
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/informer/informer_factory.h"

namespace stowage {
namespace {

std::mutex g_print_mu;

std::string Req(const api::Pod& p, const char* r) {
  const api::Quantity* q =
      p.spec.containers.empty() ? nullptr : p.spec.containers[0].resources.requests.Get(r);
  return q ? q->String() : "-";
}

void PrintEvent(const char* what, const api::Pod& p) {
  std::lock_guard<std::mutex> l(g_print_mu);
  std::printf("  watch: %-8s pod %-14s node=%-8s rv=%s\n", what, p.metadata.name.c_str(),
              p.spec.node_name.empty() ? "-" : p.spec.node_name.c_str(),
              p.metadata.resource_version.c_str());
}

std::string NodeJson(int i) {
  std::string zone = i % 2 ? "zone-b" : "zone-a";
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"demo-node-)" + std::to_string(i) +
         R"(","labels":{"topology.kubernetes.io/zone":")" + zone + R"("}},)" +
         (i == 3 ? R"("spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},)"
                 : "") +
         R"("status":{"capacity":{"cpu":"4","memory":"32Gi","pods":"110"},)"
         R"("allocatable":{"cpu":"4","memory":"32Gi","pods":"110"},)"
         R"("conditions":[{"type":"Ready","status":"True"}]}})";
}

std::string PodJson(int i) {
  const char* cpu[] = {"100m", "250m", "1", "1500m", "2"};
  const char* mem[] = {"128Mi", "500Mi", "1Gi", "1.5Gi", "2Gi"};
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"demo-pod-)" + std::to_string(i) +
         R"(","namespace":"demo","labels":{"app":"demo"}},"spec":{"containers":[{"name":"c",)"
         R"("image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":")" +
         cpu[i % 5] + R"(","memory":")" + mem[i % 5] + R"("}}}]}})";
}

int Run(const std::string& kubeconfig) {
  auto cfg = client::LoadKubeconfig(kubeconfig);
  if (!cfg.ok()) return std::fprintf(stderr, "error: %s\n", cfg.status().ToString().c_str()), 1;
  auto c = client::RestClient::New(*cfg);
  if (!c.ok()) return std::fprintf(stderr, "error: %s\n", c.status().ToString().c_str()), 1;
  client::RestClient& api = **c;

  std::printf("creating 4 nodes and 10 pods through the API (%s)\n", cfg->server.c_str());
  auto check = [](const Status& s) {
    if (!s.ok() && !client::IsAlreadyExists(s)) {
      std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  };
  check(api.Post("/api/v1/namespaces", R"({"metadata":{"name":"demo"}})").status());
  for (int i = 1; i <= 4; ++i) check(api.Post("/api/v1/nodes", NodeJson(i)).status());
  for (int i = 1; i <= 10; ++i) {
    check(api.Post("/api/v1/namespaces/demo/pods", PodJson(i)).status());
  }

  informer::InformerFactory factory(api);
  auto& nodes = factory.For<api::Node>();
  auto& pods = factory.For<api::Pod>(informer::Filter{.namespace_ = "demo"});
  auto handler = std::make_shared<informer::FuncHandler<api::Pod>>();
  handler->add = [](const auto& p, bool initial) {
    if (!initial) PrintEvent("ADDED", *p);
  };
  handler->update = [](const auto&, const auto& p) { PrintEvent("MODIFIED", *p); };
  handler->del = [](const auto& p, bool) { PrintEvent("DELETED", *p); };
  pods.AddEventHandler(handler);
  factory.Start();
  if (!factory.WaitForCacheSync(std::chrono::seconds(30))) {
    std::fprintf(stderr, "error: informers did not sync within 30s\n");
    return 1;
  }

  std::printf("\nnodes in stowage's informer cache (resourceVersion %s):\n",
              nodes.LastResourceVersion().c_str());
  std::printf("  %-12s %-5s %-7s %-8s %s\n", "NAME", "CPU", "MEMORY", "ZONE", "TAINTS");
  auto by_name = [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; };
  auto node_list = nodes.store().List();
  std::sort(node_list.begin(), node_list.end(), by_name);
  for (const auto& n : node_list) {
    if (n->metadata.name.rfind("demo-node-", 0) != 0) continue;
    const auto* zone = n->metadata.labels.Get("topology.kubernetes.io/zone");
    std::string taints;
    for (const auto& t : n->spec.taints) taints += t.key + "=" + t.value + ":" + t.effect;
    std::printf("  %-12s %-5s %-7s %-8s %s\n", n->metadata.name.c_str(),
                n->status.allocatable.Get("cpu")->String().c_str(),
                n->status.allocatable.Get("memory")->String().c_str(), zone ? zone->c_str() : "-",
                taints.empty() ? "-" : taints.c_str());
  }
  std::printf("\npods in namespace demo (%zu):\n", pods.store().Size());
  std::printf("  %-12s %-8s %-8s %s\n", "NAME", "CPU", "MEMORY", "NODE");
  auto pod_list = pods.store().List();
  std::sort(pod_list.begin(), pod_list.end(), [](const auto& a, const auto& b) {
    return a->metadata.name.size() != b->metadata.name.size()
               ? a->metadata.name.size() < b->metadata.name.size()
               : a->metadata.name < b->metadata.name;
  });
  for (const auto& p : pod_list) {
    std::printf("  %-12s %-8s %-8s %s\n", p->metadata.name.c_str(), Req(*p, "cpu").c_str(),
                Req(*p, "memory").c_str(), p->spec.node_name.empty() ? "<unscheduled>" : p->spec.node_name.c_str());
  }

  std::printf("\nchanging the cluster; the informer reports each change:\n");
  auto pod1 = client::GetObject<api::Pod>(api, "demo", "demo-pod-1");
  if (pod1.ok()) check(client::BindPod(api, pod1->metadata, "demo-node-1"));
  check(api.Post("/api/v1/namespaces/demo/pods", PodJson(11)).status());
  check(api.Delete("/api/v1/namespaces/demo/pods/demo-pod-2").status());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::printf("\ncache now holds %zu pods; a binding of an already bound pod is refused:\n",
              pods.store().Size());
  if (pod1.ok()) {
    Status again = client::BindPod(api, pod1->metadata, "demo-node-2");
    std::printf("  %s\n", again.ToString().c_str());
  }
  factory.Stop();
  return 0;
}

}  // namespace
}  // namespace stowage

int main(int argc, char** argv) {
  std::string kubeconfig;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--kubeconfig") == 0 && i + 1 < argc) {
      kubeconfig = argv[++i];
    } else if (std::strncmp(argv[i], "--kubeconfig=", 13) == 0) {
      kubeconfig = argv[i] + 13;
    } else {
      std::fprintf(stderr, "usage: stowage-demo --kubeconfig FILE\n");
      return 2;
    }
  }
  if (kubeconfig.empty()) {
    std::fprintf(stderr, "usage: stowage-demo --kubeconfig FILE\n");
    return 2;
  }
  stowage::logging::Init(0);
  return stowage::Run(kubeconfig);
}
