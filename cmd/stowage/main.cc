// stowage: a Kubernetes scheduler. This build connects to the API server and keeps the informer
// caches the scheduler reads (nodes and non-terminal pods) in sync until SIGTERM; the scheduling
// cycle and kube-scheduler's full flag set are the next milestone (docs/architecture.md).
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "pkg/client/kubeconfig.h"
#include "pkg/common/logging.h"
#include "pkg/informer/informer_factory.h"

namespace {

constexpr char kUsage[] =
    "usage: stowage [--kubeconfig FILE] [--master URL] [-v N] [--version]\n";

int Run(const std::string& master, const std::string& kubeconfig) {
  using namespace stowage;
  auto cfg = client::BuildConfig(master, kubeconfig);
  if (!cfg.ok()) {
    LOG_ERROR("{}", cfg.status().ToString());
    return 1;
  }
  auto c = client::RestClient::New(*cfg);
  if (!c.ok()) {
    LOG_ERROR("{}", c.status().ToString());
    return 1;
  }
  // Block the termination signals so sigwait below receives them, in every thread.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  informer::InformerFactory factory(**c);
  auto& nodes = factory.For<api::Node>();
  // As kube-scheduler: terminal pods hold no resources and are not watched.
  auto& pods = factory.For<api::Pod>(
      informer::Filter{.field_selector = "status.phase!=Succeeded,status.phase!=Failed"});
  factory.Start();
  LOG_INFO("connecting to {} ({})", cfg->server, cfg->source);
  while (!factory.WaitForCacheSync(std::chrono::seconds(10))) {
    LOG_INFO("waiting for caches to sync");
  }
  LOG_INFO("caches synced: {} nodes, {} pods", nodes.store().Size(), pods.store().Size());
  int sig = 0;
  sigwait(&sigs, &sig);
  LOG_INFO("received {}, shutting down", strsignal(sig));
  factory.Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string master, kubeconfig;
  int verbosity = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& name) -> const char* {
      if (a.rfind(name + "=", 0) == 0) return argv[i] + name.size() + 1;
      if (a == name && i + 1 < argc) return argv[++i];
      return nullptr;
    };
    if (a == "--version") {
      std::printf("stowage v0.1.0\n");
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (const char* v = value("--kubeconfig")) {
      kubeconfig = v;
    } else if (const char* v = value("--master")) {
      master = v;
    } else if (const char* v = value("-v"); v || (v = value("--v"))) {
      verbosity = std::atoi(v);
    } else {
      std::fprintf(stderr, "stowage: unknown flag or missing value: %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  stowage::logging::Init(verbosity);
  return Run(master, kubeconfig);
}
