#include "cmd/stowage/app/server.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include "cmd/stowage/app/endpoints.h"
#include "cmd/stowage/app/secure_port.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/common/logging.h"
#include "pkg/common/mutex.h"
#include "pkg/common/sdnotify.h"
#include "pkg/common/thread_annotations.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/leaderelection/leader_elector.h"
#include "pkg/metrics/component.h"
#include "pkg/metrics/metrics.h"
#include "pkg/plugin_loader/plugin_loader.h"
#include "pkg/plugins/registry.h"
#include "pkg/sandbox/sandbox.h"
#include "pkg/scheduler/resource_metrics.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/scheduler/setup.h"
#include "pkg/server/https_server.h"

namespace stowage::app {
namespace {

// Turns SIGTERM/SIGINT into a stop request, and runs the cache debugger on SIGUSR2 as
// kube-scheduler does. The signals are blocked in every thread (the mask is set before any
// thread starts) and taken synchronously here.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&sigs_);
    sigaddset(&sigs_, SIGTERM);
    sigaddset(&sigs_, SIGINT);
    sigaddset(&sigs_, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &sigs_, nullptr);
    thread_ = std::thread([this] {
      for (;;) {
        int sig = 0;
        sigwait(&sigs_, &sig);
        if (sig == SIGUSR2) {
          std::function<void()> debug;
          {
            MutexLock l(mu_);
            debug = on_debug_;
          }
          if (debug) {
            debug();
          } else {
            LOG_INFO("received {} before the caches synced; no cache to compare yet",
                     strsignal(sig));
          }
          continue;
        }
        LOG_INFO("received {}, shutting down", strsignal(sig));
        stop_.request_stop();
        return;
      }
    });
    thread_.detach();  // blocked in sigwait until a signal; the process exit ends it
  }
  std::stop_token token() const { return stop_.get_token(); }
  // What SIGUSR2 runs from now on.
  void OnDebugSignal(std::function<void()> debug) {
    MutexLock l(mu_);
    on_debug_ = std::move(debug);
  }

 private:
  sigset_t sigs_;
  std::stop_source stop_;
  std::thread thread_;
  Mutex mu_;
  std::function<void()> on_debug_ GUARDED_BY(mu_);
};

// What the sandbox must leave reachable: every file stowage reads again once running (the
// kubeconfigs and their token, the serving and client-CA certificates) and --cert-dir, where a
// self-signed pair may still be written.
sandbox::Policy SandboxPolicy(const Options& o, const config::KubeSchedulerConfiguration& cfg,
                              const client::RestConfig& rc) {
  sandbox::Policy p;
  p.read_files = {cfg.client_connection.kubeconfig,
                  rc.bearer_token_file,
                  "/var/run/secrets/kubernetes.io/serviceaccount/token",  // InClusterConfig's
                  o.secure_serving.tls_cert_file,
                  o.secure_serving.tls_private_key_file,
                  o.authentication.client_ca_file,
                  o.authentication.requestheader_client_ca_file,
                  o.authentication.remote_kubeconfig_file,
                  o.authorization.remote_kubeconfig_file};
  // Extenders read their TLS files when the scheduler is built, which is after this.
  for (const config::Extender& e : cfg.extenders) {
    if (!e.tls_config) continue;
    for (const std::string* f :
         {&e.tls_config->cert_file, &e.tls_config->key_file, &e.tls_config->ca_file}) {
      if (!f->empty()) p.read_files.push_back(*f);
    }
  }
  if (const std::string& dir = o.secure_serving.cert_directory; !dir.empty()) {
    ::mkdir(dir.c_str(), 0755);  // created here, while the parent may still be written
    p.write_dirs.push_back(dir);
  }
  return p;
}

leaderelection::Config ElectionConfig(const config::KubeSchedulerConfiguration& cfg) {
  const auto& le = cfg.leader_election;
  leaderelection::Config c;
  c.lock_namespace = le.resource_namespace;
  c.lock_name = le.resource_name;
  c.identity = leaderelection::LeaderElector::NewIdentity();
  c.lease_duration = le.lease_duration;
  c.renew_deadline = le.renew_deadline;
  c.retry_period = le.retry_period;
  c.release_on_cancel = true;
  c.name = "kube-scheduler";
  if (!cfg.profiles.empty() && cfg.profiles[0].scheduler_name) {
    c.event_source = *cfg.profiles[0].scheduler_name;
  }
  return c;
}

}  // namespace

logging::Config LoggingConfig(const LogsOptions& logs) {
  logging::Config c;
  c.verbosity = static_cast<int>(logs.verbosity);
  c.format = logs.format == "json" ? logging::Format::kJson : logging::Format::kText;
  for (const auto& m : logs.vmodule) {
    if (!c.vmodule.empty()) c.vmodule += ",";
    c.vmodule += m.file_pattern + "=" + std::to_string(m.verbosity);
  }
  c.split_stream =
      c.format == logging::Format::kJson ? logs.json_split_stream : logs.text_split_stream;
  return c;
}

int RunScheduler(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                 const framework::Registry& out_of_tree) {
  const WallTime start_time = RealClock().WallNow();
  auto rc = client::BuildConfig(options.master, cfg.client_connection.kubeconfig);
  if (!rc.ok()) {
    // Without --config the path is the flag's; with it, the file's (the flag is then ignored).
    const char* from = options.config_file.empty() ? "--kubeconfig" : "clientConnection.kubeconfig";
    LOG_ERROR("{}", rc.status().WithPrefix(from).ToString());
    return 1;
  }
  // Plugin libraries are opened and mapped while files may still be opened, before the sandbox.
  // The binary's own out-of-tree plugins (app::Run) first, so a library cannot take their names.
  framework::Registry registry = plugins::NewInTreeRegistry();
  if (Status s = registry.Merge(out_of_tree); !s.ok()) {
    LOG_ERROR("{}", s.ToString());
    return 1;
  }
  if (auto loaded = plugin_loader::LoadPluginLibraries(options.plugin_libraries, registry);
      !loaded.ok()) {
    LOG_ERROR("{}", loaded.status().ToString());
    return 1;
  }
  // Entered before the first thread starts, as capabilities and Landlock bind only the calling
  // thread and those it creates; everything read later is read under it, as reloads are.
  if (options.sandbox) {
    auto entered = sandbox::Enter(SandboxPolicy(options, cfg, *rc));
    if (!entered.ok()) {
      LOG_ERROR("{} (--sandbox=false turns the sandbox off)", entered.status().ToString());
      return 1;
    }
    LOG_INFO("sandbox entered: seccomp allow-list, no capabilities, no_new_privs, {}",
             entered->landlock_abi > 0 ? "Landlock ABI " + std::to_string(entered->landlock_abi)
                                       : std::string("no Landlock in this kernel"));
  }
  SignalWatcher signals;
  signal(SIGPIPE, SIG_IGN);  // a peer closing mid-write must not kill the process
  std::stop_token shutdown = signals.token();
  LOG_INFO("Starting stowage (kube-scheduler {} compatible), version {}", kKubeSchedulerVersion,
           StowageVersion());

  // Metrics first, so every client and the scheduler report from their first request.
  const FeatureGateOptions& gates = options.feature_gates;
  metrics::Register({
      .scheduler_async_preemption = gates.Enabled("SchedulerAsyncPreemption"),
      .scheduler_async_api_calls = gates.Enabled("SchedulerAsyncAPICalls"),
      .dra_extended_resource = gates.Enabled("DRAExtendedResource"),
      .generic_workload = gates.Enabled("GenericWorkload"),
      .topology_aware_workload_scheduling = gates.Enabled("TopologyAwareWorkloadScheduling"),
      .dra_device_binding_conditions = gates.Enabled("DRADeviceBindingConditions"),
  });
  metrics::RegisterComponentMetrics();
  metrics::SetBuildInfo(metrics::BuildInfo{});
  metrics::SetVersionInfo({.binary = std::string(kKubeSchedulerVersion.substr(1)),
                           .emulation = gates.emulation.String(),
                           .min_compat = gates.min_compatibility.String()});
  for (const FeatureGateSpec& g : options.feature_gates.Gates()) {
    metrics::SetFeatureEnabled(g.name, g.stage == "GA" ? "" : g.stage,
                               options.feature_gates.Enabled(g.name));
  }
  metrics::Registry::Global().SetDisabled(options.metrics.disabled_metrics);
  // Validation accepts only the previous minor version, so any value shows the hidden families.
  metrics::Registry::Global().SetShowHidden(
      !options.metrics.show_hidden_metrics_for_version.empty());
  scheduler::InstallApiClientMetrics();

  rc->qps = cfg.client_connection.qps;
  rc->burst = cfg.client_connection.burst;
  rc->content_type = cfg.client_connection.content_type;
  rc->user_agent = "stowage";
  auto c = client::RestClient::New(*rc);
  if (!c.ok()) {
    LOG_ERROR("{}", c.status().ToString());
    return 1;
  }
  client::RestClient& api = **c;
  // Events get a client (and so a rate limiter) of their own, as upstream's event broadcaster.
  client::RestConfig event_rc = *rc;
  event_rc.user_agent = "stowage/events";
  auto event_client = client::RestClient::New(event_rc);
  if (!event_client.ok()) {
    LOG_ERROR("{}", event_client.status().ToString());
    return 1;
  }

  informer::InformerFactory informers(api, "kube-scheduler");  // upstream's InformerName
  scheduler::Options so;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  so.instance = host;
  so.event_client = event_client->get();
  const bool elect = cfg.leader_election.leader_elect.value_or(true);
  std::unique_ptr<leaderelection::LeaderElector> elector;  // set below when electing
  // A leader binds only while its own clock says the lease is still its own.
  if (elect) so.may_bind = [&elector] { return elector != nullptr && elector->HoldsLease(); };
  auto built = scheduler::New({.client = api,
                               .informers = informers,
                               .cfg = cfg,
                               .registry = registry,
                               .not_yet_implemented = plugins::NotYetImplemented(),
                               .features = ConfigFeatures(options),
                               .options = std::move(so)});
  if (!built.ok()) {
    LOG_ERROR("{}", built.status().ToString());
    return 1;
  }
  scheduler::Scheduler& sched = *built->scheduler;

  std::unique_ptr<client::RestClient> election_client;
  std::atomic<bool> leading{!elect};
  if (elect) {
    leaderelection::Config lc = ElectionConfig(cfg);
    auto ec =
        client::RestClient::New(leaderelection::LeaderElectionRestConfig(*rc, lc.renew_deadline));
    if (!ec.ok()) {
      LOG_ERROR("{}", ec.status().ToString());
      return 1;
    }
    election_client = std::move(*ec);
    leaderelection::Callbacks cb;
    cb.on_started_leading = [&](std::stop_token stop) {
      leading = true;
      sched.Run(stop);
    };
    cb.on_stopped_leading = [&] { leading = false; };
    cb.on_leader_status = [](bool leader) { metrics::SetLeader("kube-scheduler", leader); };
    cb.on_slow_path = [] { metrics::LeaderSlowpathExercised("kube-scheduler"); };
    cb.on_new_leader = [&](const std::string& id) {
      if (id != lc.identity) LOG_INFO("new leader elected: {}", id);
    };
    auto e = leaderelection::LeaderElector::New(*election_client, lc, std::move(cb));
    if (!e.ok()) {
      LOG_ERROR("couldn't create leader elector: {}", e.status().ToString());
      return 1;
    }
    elector = std::move(*e);
  }

  // The secure port starts before the election, so a standby answers probes and scrapes.
  std::atomic<bool> handlers_synced{false};
  std::atomic<bool> shutting_down{false};
  server::HealthCheckMetrics slis;
  std::shared_ptr<server::Router> router;
  std::unique_ptr<server::SecureServer> https;
  SecurePortAuth port_auth;
  if (options.secure_serving.bind_port != 0) {
    auto a = NewSecurePortAuth(options);
    if (!a.ok()) {
      LOG_ERROR("{}", a.status().ToString());
      return 1;
    }
    port_auth = std::move(*a);
    EndpointSources es;
    if (elector) {
      server::HealthCheck watchdog =
          server::NamedHealthCheck("leaderElection", [&] { return elector->Check(); });
      es.healthz_checks.push_back(watchdog);
      es.readyz_checks.push_back(watchdog);
    }
    es.readyz_checks.push_back(server::ShutdownHealthCheck([&] { return shutting_down.load(); }));
    es.readyz_checks.push_back(server::NamedHealthCheck("sched-handler-sync", [&] {
      return handlers_synced ? OkStatus() : UnavailableError("handlers are not fully synchronized");
    }));
    es.metrics = [] { return metrics::Registry::Global().Render(); };
    // Only the leader reports the pods' resources, so a standby does not double them.
    es.resource_metrics = [&]() -> std::string {
      return leading ? scheduler::RenderPodResourceMetrics(sched) : std::string();
    };
    es.profiling = cfg.debugging.enable_profiling.value_or(true);
    es.options = &options;
    es.config = &cfg;
    es.start_time = start_time;
    auto r = NewRouter(es, &slis);
    if (!r.ok()) {
      LOG_ERROR("{}", r.status().ToString());
      return 1;
    }
    router = std::move(*r);
    server::ServingOptions sv = ServingOptionsFrom(options);
    sv.request_client_certs = true;
    auto srv = server::SecureServer::Start(sv, WithAuth(router, port_auth.auth));
    if (!srv.ok()) {
      LOG_ERROR("failed to start secure server: {}", srv.status().ToString());
      return 1;
    }
    https = std::move(*srv);
    port_auth.auth->Start();
    LOG_INFO("serving securely on {}", https->address());
  }

  LOG_INFO("starting stowage against {} ({}), {} profile(s)", rc->server, rc->source,
           cfg.profiles.size());
  informers.Start();
  // Waited for in steps of a second so a SIGTERM is seen promptly; a stop before the caches
  // synced must not tell systemd the service is ready.
  for (int waited = 1; !informers.WaitForCacheSync(std::chrono::seconds(1)); ++waited) {
    if (shutdown.stop_requested()) break;
    if (waited % 10 == 0) LOG_INFO("waiting for the informer caches to sync");
  }
  if (!shutdown.stop_requested()) {
    handlers_synced = true;
    LOG_INFO("caches synced: {} nodes", sched.cache().NodeCount());
    signals.OnDebugSignal([&sched] { sched.DebugCache(); });
    sdnotify::Notify("READY=1");
  }

  int code = 0;
  if (!shutdown.stop_requested()) {
    if (elector) {
      elector->Run(shutdown);
      if (!shutdown.stop_requested()) {
        LOG_ERROR("Leaderelection lost");
        code = 1;
      }
      elector->FlushEvents(std::chrono::seconds(2));
    } else {
      sched.Run(shutdown);
    }
  }
  shutting_down = true;
  sdnotify::Notify("STOPPING=1");
  if (https) {
    https->Shutdown();
    LOG_INFO("[graceful-termination] secure server has stopped listening");
  }
  if (port_auth.auth) port_auth.auth->Stop();
  informers.Stop();
  if (code == 0) LOG_INFO("Requested to terminate, exiting");
  // Exit now, as upstream's os.Exit: tearing down the scheduler would wait for bindings the
  // drain bound already gave up on.
  spdlog::default_logger()->flush();
  std::_Exit(code);
}

}  // namespace stowage::app
