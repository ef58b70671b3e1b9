// Wiring of the stowage process, in upstream's order (cmd/kube-scheduler/app/server.go Run):
// configuration -> clients -> scheduler with its informers, cache, queue and profiles -> the
// secure port (health, metrics, z-pages behind delegated auth) -> informers synced (READY=1 to
// systemd) -> leader election, whose leader runs the scheduling loop -> on SIGTERM or SIGINT:
// stop scheduling, let bindings finish, release the lease, stop serving, exit 0. Losing the
// lease exits 1 at once, as upstream does.
#pragma once

#include "cmd/stowage/app/options.h"
#include "pkg/common/logging.h"
#include "pkg/config/types.h"
#include "stowage/framework/registry.h"

namespace stowage::app {

// The logger settings of --logging-format, -v, --vmodule and --log-*-split-stream.
logging::Config LoggingConfig(const LogsOptions& logs);

// Runs the scheduler with the parsed flags and the defaulted, validated configuration built from
// them, the plugins of out_of_tree beside the in-tree ones; returns the process exit code.
int RunScheduler(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                 const framework::Registry& out_of_tree);

}  // namespace stowage::app
