// `stowage simulate SNAPSHOT [changes] [-o table|json] [--seed N] [scheduler flags]`: what the
// scheduler, with its own flags, configuration and plugin libraries, would do with a snapshot's
// pending pods, with no API server (pkg/simulate, docs/explain.md). `stowage snapshot [-o FILE]`
// writes such a snapshot from a live cluster, with the scheduler's kubeconfig flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cmd/stowage/app/options.h"
#include "pkg/config/types.h"
#include "stowage/common/status.h"
#include "stowage/framework/registry.h"

namespace stowage::app {

struct SimulateRequest {
  std::string snapshot;
  std::vector<std::string> add;     // --add FILE
  std::vector<std::string> remove;  // --remove node/NAME | pod/NAMESPACE/NAME
  std::vector<std::string> cordon;  // --cordon NODE
  std::vector<std::string> drain;   // --drain NODE
  bool json = false;                // -o json
  uint64_t seed = 1;                // --seed
};

struct SnapshotRequest {
  std::string file = "-";  // -o FILE; "-" is stdout
  bool json = false;       // --format json (default yaml)
};

// What `stowage simulate --help` and `stowage snapshot --help` print before the scheduler's flags.
extern const char kSimulateUsage[];
extern const char kSnapshotUsage[];

// Take the subcommand's own arguments out of args (which starts with the subcommand's name) and
// leave the scheduler's flags.
StatusOr<SimulateRequest> TakeSimulateArgs(std::vector<std::string>& args);
StatusOr<SnapshotRequest> TakeSnapshotArgs(std::vector<std::string>& args);

// Run the subcommand; the exit code.
int RunSimulate(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                const framework::Registry& out_of_tree, const SimulateRequest& request);
int RunSnapshot(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                const SnapshotRequest& request);

}  // namespace stowage::app
