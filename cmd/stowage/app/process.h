// Process: the parts of one running stowage and the named steps that build, run and stop them,
// in upstream's order (cmd/kube-scheduler/app/server.go). RunScheduler (server.cc) is the
// composition root that calls the steps in turn. A step that fails logs why at error level and
// returns false; the process then exits 1.
//
// The members are declared in the order the steps build them, so an early return tears them
// down in reverse, as the locals of one function would be. The callbacks handed to the
// scheduler, the elector and the secure port capture `this`: the Process outlives them, since a
// run that gets as far as scheduling ends in Exit (std::_Exit, no destructors).
//
// Thread-safety: the steps run one after the other on the main thread. Other threads run only
// the callbacks, which read the atomics and the parts built before the callback was handed out.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>
#include <thread>

#include "cmd/stowage/app/explain.h"
#include "cmd/stowage/app/options.h"
#include "cmd/stowage/app/secure_port.h"
#include "cmd/stowage/app/signal_watcher.h"
#include "cmd/stowage/app/simulate.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/config/types.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/leaderelection/leader_elector.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/server/https_server.h"
#include "pkg/server/router.h"
#include "pkg/server/slis.h"
#include "pkg/simulate/snapshot.h"
#include "stowage/common/clock.h"
#include "stowage/framework/registry.h"

namespace stowage::app {

class Process {
 public:
  Process(const Options& options, const config::KubeSchedulerConfiguration& cfg);

  // The client configuration, from --master and the kubeconfig.
  bool BuildClientConfig();
  // The in-tree plugins, then out_of_tree's, then --plugin-library's: opened and mapped while
  // files may still be opened, before the sandbox; a library cannot take an earlier name.
  bool BuildRegistry(const framework::Registry& out_of_tree);
  // The CEL library of DRA selectors (--cel-library): checked and opened while files may still
  // be opened; loaded through that descriptor at the first selector compiled. A missing or
  // refused library is logged once and is not fatal: only DRA selectors need it.
  void CheckCelLibrary();
  // --sandbox: entered before the first thread starts, as capabilities and Landlock bind only
  // the calling thread and those it creates.
  bool EnterSandbox();
  // SIGTERM/SIGINT request the stop, SIGUSR2 debugs the cache, SIGPIPE is ignored.
  void WatchSignals();
  // Every metric family and the build, version and feature gauges, first, so that every client
  // and the scheduler report from their first request.
  void RegisterMetrics();
  // The API client, and one of the events' own (and so a rate limiter of their own), as
  // upstream's event broadcaster.
  bool NewClients();
  // The scheduler with its informers, cache, queue and profiles.
  bool NewScheduler();
  // With leader election on: the elector, over a client of its own.
  bool NewElector();
  // The secure port (health, metrics, z-pages behind delegated auth), unless --secure-port=0;
  // started before the election, so a standby answers probes and scrapes.
  bool ServeSecurePort();
  // Starts the informers and waits for their caches (READY=1 to systemd once synced).
  void SyncInformers();
  // `stowage explain`: prints what a cycle would do with the pod (once the informers synced);
  // the exit code.
  int Explain(const ExplainRequest& request);
  // `stowage simulate`: the snapshot's pending pods through a scheduler of this configuration
  // and registry over an in-memory API server; prints the result; the exit code.
  int Simulate(const simulate::Snapshot& snapshot, const SimulateRequest& request);
  // `stowage snapshot`: lists the cluster into fd (closed after); the exit code.
  int WriteSnapshot(int fd, const SnapshotRequest& request);
  // Schedules until a stop signal or, when electing, the end of the lease; the exit code.
  int Schedule();
  // Stops serving, the delegated auth and the informers, and exits with code at once.
  [[noreturn]] void Exit(int code);

 private:
  const Options& options_;
  const config::KubeSchedulerConfiguration& cfg_;
  const WallTime start_time_;
  const bool elect_;
  client::RestConfig rc_;
  framework::Registry registry_;
  int cel_library_fd_ = -1;  // kept open for good once checked (cel::Engine::UseCheckedLibrary)
  std::optional<SignalWatcher> signals_;
  std::stop_token shutdown_;
  std::unique_ptr<client::RestClient> api_;
  std::unique_ptr<client::RestClient> event_client_;
  std::optional<informer::InformerFactory> informers_;
  std::unique_ptr<leaderelection::LeaderElector> elector_;  // set by NewElector when electing
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<client::RestClient> election_client_;
  std::atomic<bool> leading_;
  std::atomic<bool> handlers_synced_{false};
  std::atomic<bool> shutting_down_{false};
  server::HealthCheckMetrics slis_;
  std::shared_ptr<server::Router> router_;
  std::unique_ptr<server::SecureServer> https_;
  SecurePortAuth port_auth_;
  std::jthread heap_trimmer_;  // started with the informers
};

}  // namespace stowage::app
