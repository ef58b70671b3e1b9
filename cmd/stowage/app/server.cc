#include "cmd/stowage/app/server.h"

#include <string>

#include "cmd/stowage/app/process.h"
#include "pkg/common/logging.h"

namespace stowage::app {

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

// The composition root: each step is a Process method (process.h), run in upstream's order.
int RunScheduler(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                 const framework::Registry& out_of_tree) {
  Process process(options, cfg);
  if (!process.BuildClientConfig() || !process.BuildRegistry(out_of_tree)) return 1;
  process.CheckCelLibrary();
  if (!process.EnterSandbox()) return 1;
  process.WatchSignals();
  LOG_INFO("Starting stowage (kube-scheduler {} compatible), version {}", kKubeSchedulerVersion,
           StowageVersion());
  process.RegisterMetrics();
  if (!process.NewClients() || !process.NewScheduler() || !process.NewElector() ||
      !process.ServeSecurePort()) {
    return 1;
  }
  process.SyncInformers();
  process.Exit(process.Schedule());
}

}  // namespace stowage::app
