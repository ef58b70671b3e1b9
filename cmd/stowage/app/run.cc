#include "stowage/app/run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "cmd/stowage/app/explain.h"
#include "cmd/stowage/app/options.h"
#include "cmd/stowage/app/server.h"
#include "cmd/stowage/app/simulate.h"
#include "pkg/common/logging.h"
#include "pkg/plugins/registry.h"

namespace stowage::app {

Option WithPlugin(std::string name, framework::PluginFactory factory) {
  return [name = std::move(name), factory = std::move(factory)](framework::Registry& r) {
    return r.Register(name, factory);
  };
}

StatusOr<framework::Registry> OutOfTreeRegistry(const std::vector<Option>& options) {
  framework::Registry out;
  for (const Option& add : options) {
    if (Status s = add(out); !s.ok()) return s.WithPrefix("registering out-of-tree plugins");
  }
  const framework::Registry in_tree = plugins::NewInTreeRegistry();
  const auto& later = plugins::NotYetImplemented();
  for (const auto& [name, factory] : out.factories()) {
    if (in_tree.Has(name) || std::find(later.begin(), later.end(), name) != later.end()) {
      return AlreadyExistsError("out-of-tree plugin \"" + name +
                                "\" has the name of an in-tree plugin; give it a name of its own");
    }
  }
  return out;
}

namespace {

// When args names the subcommand, takes its arguments into out; false (after saying why, under
// its usage) when they are wrong.
template <typename Request>
bool TakeSubcommand(std::vector<std::string>& args, std::string_view name,
                    StatusOr<Request> (*take)(std::vector<std::string>&), const char* usage,
                    std::optional<Request>& out) {
  if (args.empty() || args[0] != name) return true;
  auto request = take(args);
  if (!request.ok()) {
    std::fprintf(stderr, "%sError: %s\n", usage, std::string(request.status().message()).c_str());
    return false;
  }
  out = std::move(*request);
  return true;
}

}  // namespace

int Run(int argc, char** argv, const std::vector<Option>& plugin_options) {
  auto out_of_tree = OutOfTreeRegistry(plugin_options);
  if (!out_of_tree.ok()) {
    std::fprintf(stderr, "Error: %s\n", std::string(out_of_tree.status().message()).c_str());
    return 1;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  // `stowage explain POD ...` (explain.h), `stowage simulate SNAPSHOT ...` and `stowage
  // snapshot ...` (simulate.h): the subcommand's own arguments first, the rest are the
  // scheduler's flags.
  std::optional<ExplainRequest> explain;
  std::optional<SimulateRequest> simulate;
  std::optional<SnapshotRequest> snapshot;
  if (!TakeSubcommand(args, "explain", TakeExplainArgs, kExplainUsage, explain) ||
      !TakeSubcommand(args, "simulate", TakeSimulateArgs, kSimulateUsage, simulate) ||
      !TakeSubcommand(args, "snapshot", TakeSnapshotArgs, kSnapshotUsage, snapshot)) {
    return 1;
  }
  auto options = ParseCommandLine(args);
  if (!options.ok()) {
    std::fputs(ParseErrorText(options.status(), TerminalColumns(STDOUT_FILENO)).c_str(), stderr);
    return 1;
  }
  if (options->help) {
    if (explain) std::fputs(kExplainUsage, stdout);
    if (simulate) std::fputs(kSimulateUsage, stdout);
    if (snapshot) std::fputs(kSnapshotUsage, stdout);
    std::fputs(Help(TerminalColumns(STDOUT_FILENO)).c_str(), stdout);
    return 0;
  }
  // As component-base's cli.Run: once logging is up, errors are logged rather than printed.
  logging::Init(0);
  auto failed = [](const Status& s) {
    LOG_ERROR_ERR(s, "command failed");
    return 1;
  };
  if (Status s = ApplyFeatureGates(*options); !s.ok()) return failed(s);
  for (const auto& w : options->warnings) LOG_INFO("{}", w);
  if (options->version != VersionFlag::kFalse) {
    std::fputs(VersionText(*options).c_str(), stdout);
    return 0;
  }
  if (Status s = logging::Init(LoggingConfig(options->logs)); !s.ok()) return failed(s);
  auto cfg = BuildConfig(*options);
  if (!cfg.ok()) return failed(cfg.status());
  if (!options->write_config_to.empty()) {
    if (Status s = WriteConfigFile(options->write_config_to, *cfg); !s.ok()) return failed(s);
    LOG_INFO("wrote configuration to {}", options->write_config_to);
    return 0;
  }
  if (explain) return RunExplain(*options, *cfg, *out_of_tree, *explain);
  if (simulate) return RunSimulate(*options, *cfg, *out_of_tree, *simulate);
  if (snapshot) return RunSnapshot(*options, *cfg, *snapshot);
  return RunScheduler(*options, *cfg, *out_of_tree);
}

}  // namespace stowage::app
