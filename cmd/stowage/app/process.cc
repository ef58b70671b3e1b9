#include "cmd/stowage/app/process.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "cmd/stowage/app/endpoints.h"
#include "pkg/cel/engine.h"
#include "pkg/common/heap_trimmer.h"
#include "pkg/common/logging.h"
#include "pkg/common/random.h"
#include "pkg/common/sdnotify.h"
#include "pkg/metrics/component.h"
#include "pkg/metrics/metrics.h"
#include "pkg/plugin_loader/plugin_loader.h"
#include "pkg/plugin_loader/root_owned_file.h"
#include "pkg/plugins/registry.h"
#include "pkg/sandbox/sandbox.h"
#include "pkg/scheduler/resource_metrics.h"
#include "pkg/scheduler/setup.h"
#include "pkg/simulate/simulate.h"
#include "pkg/simulate/take_snapshot.h"

namespace stowage::app {
namespace {

// What the sandbox must leave reachable: every file stowage reads again once running (the
// kubeconfigs and their token, the serving and client-CA certificates) and --cert-dir, where a
// self-signed pair may still be written.
sandbox::Policy SandboxPolicy(const Options& o, const config::KubeSchedulerConfiguration& cfg,
                              const client::RestConfig& rc, int cel_library_fd) {
  sandbox::Policy p;
  if (cel_library_fd >= 0) p.library_fds.push_back(cel_library_fd);
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

Process::Process(const Options& options, const config::KubeSchedulerConfiguration& cfg)
    : options_(options),
      cfg_(cfg),
      start_time_(RealClock().WallNow()),
      elect_(cfg.leader_election.leader_elect.value_or(true)),
      leading_(!elect_) {}

bool Process::BuildClientConfig() {
  auto rc = client::BuildConfig(options_.master, cfg_.client_connection.kubeconfig);
  if (!rc.ok()) {
    // Without --config the path is the flag's; with it, the file's (the flag is then ignored).
    const char* from =
        options_.config_file.empty() ? "--kubeconfig" : "clientConnection.kubeconfig";
    LOG_ERROR("{}", rc.status().WithPrefix(from).ToString());
    return false;
  }
  rc_ = std::move(*rc);
  return true;
}

bool Process::BuildRegistry(const framework::Registry& out_of_tree) {
  registry_ = plugins::NewInTreeRegistry();
  if (Status s = registry_.Merge(out_of_tree); !s.ok()) {
    LOG_ERROR("{}", s.ToString());
    return false;
  }
  if (auto loaded = plugin_loader::LoadPluginLibraries(options_.plugin_libraries, registry_);
      !loaded.ok()) {
    LOG_ERROR("{}", loaded.status().ToString());
    return false;
  }
  return true;
}

void Process::CheckCelLibrary() {
  const std::string path =
      options_.cel_library.empty() ? cel::Engine::DefaultLibraryPath() : options_.cel_library;
  auto fd = plugin_loader::OpenTrustedFile(path, {.what = "CEL library", .allow_own_uid = true});
  if (!fd.ok()) {
    LOG_WARN("{}; DRA device selectors cannot be evaluated until it is installed",
             fd.status().message());
    cel::Engine::UseCheckedLibrary(path, -1, fd.status());
    return;
  }
  cel_library_fd_ = fd->release();
  LOG_INFO("CEL library for DRA device selectors: {} (loaded at the first selector)", path);
  cel::Engine::UseCheckedLibrary(path, cel_library_fd_, OkStatus());
}

bool Process::EnterSandbox() {
  if (!options_.sandbox) return true;
  // Everything read later is read under the sandbox, as reloads are.
  auto entered = sandbox::Enter(SandboxPolicy(options_, cfg_, rc_, cel_library_fd_));
  if (!entered.ok()) {
    LOG_ERROR("{} (--sandbox=false turns the sandbox off)", entered.status().ToString());
    return false;
  }
  LOG_INFO("sandbox entered: seccomp allow-list, no capabilities, no_new_privs, {}",
           entered->landlock_abi > 0 ? "Landlock ABI " + std::to_string(entered->landlock_abi)
                                     : std::string("no Landlock in this kernel"));
  return true;
}

void Process::WatchSignals() {
  signals_.emplace();
  signal(SIGPIPE, SIG_IGN);  // a peer closing mid-write must not kill the process
  shutdown_ = signals_->token();
}

void Process::RegisterMetrics() {
  const FeatureGateOptions& gates = options_.feature_gates;
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
  for (const FeatureGateSpec& g : gates.Gates()) {
    metrics::SetFeatureEnabled(g.name, g.stage == "GA" ? "" : g.stage, gates.Enabled(g.name));
  }
  metrics::Registry::Global().SetDisabled(options_.metrics.disabled_metrics);
  // Validation accepts only the previous minor version, so any value shows the hidden families.
  metrics::Registry::Global().SetShowHidden(
      !options_.metrics.show_hidden_metrics_for_version.empty());
  scheduler::InstallApiClientMetrics();
}

bool Process::NewClients() {
  rc_.qps = cfg_.client_connection.qps;
  rc_.burst = cfg_.client_connection.burst;
  rc_.content_type = cfg_.client_connection.content_type;
  rc_.user_agent = "stowage";
  auto c = client::RestClient::New(rc_);
  if (!c.ok()) {
    LOG_ERROR("{}", c.status().ToString());
    return false;
  }
  api_ = std::move(*c);
  client::RestConfig event_rc = rc_;
  event_rc.user_agent = "stowage/events";
  auto event_client = client::RestClient::New(event_rc);
  if (!event_client.ok()) {
    LOG_ERROR("{}", event_client.status().ToString());
    return false;
  }
  event_client_ = std::move(*event_client);
  return true;
}

bool Process::NewScheduler() {
  if (options_.random_seed != 0) SetRandomSeed(static_cast<uint64_t>(options_.random_seed));
  informers_.emplace(*api_, "kube-scheduler");  // upstream's InformerName
  scheduler::Options so;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  so.instance = host;
  so.event_client = event_client_.get();
  // A leader binds only while its own clock says the lease is still its own.
  if (elect_) so.may_bind = [this] { return elector_ != nullptr && elector_->HoldsLease(); };
  auto built = scheduler::New(
      {.client = *api_,
       .informers = *informers_,
       .cfg = cfg_,
       .registry = registry_,
       .not_yet_implemented = plugins::NotYetImplemented(),
       .features = ConfigFeatures(options_),
       .options = std::move(so),
       .extender_max_response_bytes = static_cast<size_t>(options_.extender_max_response_bytes)});
  if (!built.ok()) {
    LOG_ERROR("{}", built.status().ToString());
    return false;
  }
  scheduler_ = std::move(built->scheduler);
  return true;
}

bool Process::NewElector() {
  if (!elect_) return true;
  leaderelection::Config lc = ElectionConfig(cfg_);
  auto ec =
      client::RestClient::New(leaderelection::LeaderElectionRestConfig(rc_, lc.renew_deadline));
  if (!ec.ok()) {
    LOG_ERROR("{}", ec.status().ToString());
    return false;
  }
  election_client_ = std::move(*ec);
  leaderelection::Callbacks cb;
  cb.on_started_leading = [this](std::stop_token stop) {
    leading_ = true;
    scheduler_->Run(stop);
  };
  cb.on_stopped_leading = [this] { leading_ = false; };
  cb.on_leader_status = [](bool leader) { metrics::SetLeader("kube-scheduler", leader); };
  cb.on_slow_path = [] { metrics::LeaderSlowpathExercised("kube-scheduler"); };
  cb.on_new_leader = [identity = lc.identity](const std::string& id) {
    if (id != identity) LOG_INFO("new leader elected: {}", id);
  };
  auto e = leaderelection::LeaderElector::New(*election_client_, lc, std::move(cb));
  if (!e.ok()) {
    LOG_ERROR("couldn't create leader elector: {}", e.status().ToString());
    return false;
  }
  elector_ = std::move(*e);
  return true;
}

bool Process::ServeSecurePort() {
  if (options_.secure_serving.bind_port == 0) return true;
  auto a = NewSecurePortAuth(options_);
  if (!a.ok()) {
    LOG_ERROR("{}", a.status().ToString());
    return false;
  }
  port_auth_ = std::move(*a);
  EndpointSources es;
  if (elector_) {
    server::HealthCheck watchdog =
        server::NamedHealthCheck("leaderElection", [this] { return elector_->Check(); });
    es.healthz_checks.push_back(watchdog);
    es.readyz_checks.push_back(watchdog);
  }
  es.readyz_checks.push_back(server::ShutdownHealthCheck([this] { return shutting_down_.load(); }));
  es.readyz_checks.push_back(server::NamedHealthCheck("sched-handler-sync", [this] {
    return handlers_synced_ ? OkStatus() : UnavailableError("handlers are not fully synchronized");
  }));
  es.metrics = [] { return metrics::Registry::Global().Render(); };
  // Only the leader reports the pods' resources, so a standby does not double them.
  es.resource_metrics = [this]() -> std::string {
    return leading_ ? scheduler::RenderPodResourceMetrics(*scheduler_) : std::string();
  };
  es.profiling = cfg_.debugging.enable_profiling.value_or(true);
  es.explain = [this](std::string_view pod, std::string_view output) {
    if (!handlers_synced_) {
      server::Response r;
      r.status = 503;
      r.body = "the scheduler's caches have not synced yet\n";
      return r;
    }
    return ExplainResponse(*scheduler_, pod,
                           ExplainOutputNamed(output).value_or(ExplainOutput::kTable));
  };
  es.options = &options_;
  es.config = &cfg_;
  es.start_time = start_time_;
  auto r = NewRouter(es, &slis_);
  if (!r.ok()) {
    LOG_ERROR("{}", r.status().ToString());
    return false;
  }
  router_ = std::move(*r);
  server::ServingOptions sv = ServingOptionsFrom(options_);
  sv.request_client_certs = true;
  auto srv = server::SecureServer::Start(sv, WithAuth(router_, port_auth_.auth));
  if (!srv.ok()) {
    LOG_ERROR("failed to start secure server: {}", srv.status().ToString());
    return false;
  }
  https_ = std::move(*srv);
  port_auth_.auth->Start();
  LOG_INFO("serving securely on {}", https_->address());
  return true;
}

void Process::SyncInformers() {
  LOG_INFO("starting stowage against {} ({}), {} profile(s)", rc_.server, rc_.source,
           cfg_.profiles.size());
  informers_->Start();
  // From here on pods come and go; freed pages go back to the kernel (heap_trimmer.h).
  heap_trimmer_ = StartHeapTrimmer(std::chrono::minutes(1));
  // Waited for in steps of a second so a SIGTERM is seen promptly; a stop before the caches
  // synced must not tell systemd the service is ready.
  for (int waited = 1; !informers_->WaitForCacheSync(std::chrono::seconds(1)); ++waited) {
    if (shutdown_.stop_requested()) break;
    if (waited % 10 == 0) LOG_INFO("waiting for the informer caches to sync");
  }
  if (shutdown_.stop_requested()) return;
  handlers_synced_ = true;
  LOG_INFO("caches synced: {} nodes", scheduler_->cache().NodeCount());
  signals_->OnDebugSignal([this] { scheduler_->DebugCache(); });
  sdnotify::Notify("READY=1");
}

int Process::Explain(const ExplainRequest& request) {
  if (!handlers_synced_) return 1;  // stopped before the caches synced
  auto e = scheduler_->Explain(request.ns, request.name);
  if (!e.ok()) {
    LOG_ERROR_ERR(e.status(), "explain failed");
    return 1;
  }
  const std::string out = RenderExplanation(*e, request.output);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int Process::Simulate(const simulate::Snapshot& snapshot, const SimulateRequest& request) {
  auto r = simulate::Run({.snapshot = snapshot,
                          .cfg = cfg_,
                          .registry = registry_,
                          .not_yet_implemented = plugins::NotYetImplemented(),
                          .features = ConfigFeatures(options_),
                          .options = {.seed = request.seed}});
  if (!r.ok()) {
    LOG_ERROR_ERR(r.status(), "simulate failed");
    return 1;
  }
  LOG_INFO("simulated {} pending pod(s) on {} node(s) in {:.2f} s", r->pods.size(), r->nodes,
           r->real_seconds);
  const std::string out = request.json ? simulate::RenderJson(*r) : simulate::RenderText(*r);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int Process::WriteSnapshot(int fd, const SnapshotRequest& request) {
  simulate::SnapshotCounts counts;
  auto text = simulate::TakeSnapshot(*api_, request.json, &counts);
  if (!text.ok()) {
    LOG_ERROR_ERR(text.status(), "snapshot failed");
    if (fd != STDOUT_FILENO) close(fd);
    return 1;
  }
  for (size_t done = 0; done < text->size();) {
    const ssize_t n = write(fd, text->data() + done, text->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      LOG_ERROR("snapshot: cannot write {}: {}", request.file, std::strerror(errno));
      return 1;
    }
    done += static_cast<size_t>(n);
  }
  if (fd != STDOUT_FILENO && close(fd) != 0) {
    LOG_ERROR("snapshot: cannot write {}: {}", request.file, std::strerror(errno));
    return 1;
  }
  LOG_INFO("snapshot: {} objects of {} kinds written to {}", counts.objects, counts.kinds,
           request.file == "-" ? "standard output" : request.file);
  return 0;
}

int Process::Schedule() {
  if (shutdown_.stop_requested()) return 0;
  if (!elector_) {
    scheduler_->Run(shutdown_);
    return 0;
  }
  int code = 0;
  elector_->Run(shutdown_);
  if (!shutdown_.stop_requested()) {
    LOG_ERROR("Leaderelection lost");
    code = 1;
  }
  elector_->FlushEvents(std::chrono::seconds(2));
  return code;
}

void Process::Exit(int code) {
  shutting_down_ = true;
  sdnotify::Notify("STOPPING=1");
  if (https_) {
    https_->Shutdown();
    LOG_INFO("[graceful-termination] secure server has stopped listening");
  }
  if (port_auth_.auth) port_auth_.auth->Stop();
  informers_->Stop();
  if (code == 0) LOG_INFO("Requested to terminate, exiting");
  // Exit now, as upstream's os.Exit: tearing down the scheduler would wait for bindings the
  // drain bound already gave up on.
  spdlog::default_logger()->flush();
  std::_Exit(code);
}

}  // namespace stowage::app
