// Wiring of the stowage process: configuration -> client -> informers -> cache, queue and
// profiles -> the scheduling loop, until SIGTERM or SIGINT (upstream cmd/kube-scheduler/app
// server.go Run).
#pragma once

#include <string>

#include "pkg/config/types.h"

namespace stowage::app {

struct RunOptions {
  std::string master;  // --master, overrides the kubeconfig's server
};

// Runs the scheduler with a defaulted, validated configuration; returns the exit code.
int RunScheduler(const config::KubeSchedulerConfiguration& cfg, const RunOptions& opts);

}  // namespace stowage::app
