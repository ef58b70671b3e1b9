#include "cmd/stowage/app/server.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "pkg/client/kubeconfig.h"
#include "pkg/common/logging.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/plugins/registry.h"
#include "pkg/scheduler/profile.h"
#include "pkg/scheduler/scheduler.h"

namespace stowage::app {

int RunScheduler(const config::KubeSchedulerConfiguration& cfg, const RunOptions& opts) {
  // Termination signals are taken synchronously by a dedicated thread; block them everywhere.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  auto rc = client::BuildConfig(opts.master, cfg.client_connection.kubeconfig);
  if (!rc.ok()) {
    LOG_ERROR("{}", rc.status().ToString());
    return 1;
  }
  rc->qps = cfg.client_connection.qps;
  rc->burst = cfg.client_connection.burst;
  rc->user_agent = "stowage";
  auto c = client::RestClient::New(*rc);
  if (!c.ok()) {
    LOG_ERROR("{}", c.status().ToString());
    return 1;
  }
  if (cfg.leader_election.leader_elect.value_or(true)) {
    LOG_WARN("leader election is not implemented yet; this instance schedules as if it were the "
             "leader (run a single instance, or pass --leader-elect=false)");
  }
  informer::InformerFactory informers(**c);
  scheduler::Options so;
  so.parallelism = cfg.parallelism.value_or(16);
  so.percentage_of_nodes_to_score = cfg.percentage_of_nodes_to_score;
  so.queue.initial_backoff = std::chrono::seconds(cfg.pod_initial_backoff_seconds.value_or(1));
  so.queue.max_backoff = std::chrono::seconds(cfg.pod_max_backoff_seconds.value_or(10));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  so.instance = host;
  scheduler::Scheduler sched(**c, informers, so);
  framework::Registry registry = plugins::NewInTreeRegistry();
  auto built = scheduler::BuildProfiles(cfg, registry, sched, plugins::NotYetImplemented());
  if (!built.ok()) {
    LOG_ERROR("{}", built.status().ToString());
    return 1;
  }
  for (const auto& w : built->warnings) LOG_WARN("{}", w);
  if (auto s = sched.Init(registry, built->profiles); !s.ok()) {
    LOG_ERROR("{}", s.ToString());
    return 1;
  }
  LOG_INFO("starting stowage against {} ({}), {} profile(s)", rc->server, rc->source,
           built->profiles.size());
  informers.Start();
  while (!informers.WaitForCacheSync(std::chrono::seconds(10))) {
    LOG_INFO("waiting for the informer caches to sync");
  }
  LOG_INFO("caches synced: {} nodes", sched.cache().NodeCount());
  std::jthread loop([&](std::stop_token stop) { sched.Run(stop); });
  int sig = 0;
  sigwait(&sigs, &sig);
  LOG_INFO("received {}, shutting down", strsignal(sig));
  loop.request_stop();
  loop.join();
  informers.Stop();
  return 0;
}

}  // namespace stowage::app
