#include "cmd/stowage/app/simulate.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

#include "cmd/stowage/app/process.h"
#include "pkg/common/logging.h"
#include "pkg/simulate/snapshot.h"

namespace stowage::app {

const char kSimulateUsage[] =
    "Usage:\n"
    "  stowage simulate SNAPSHOT [--add FILE] [--remove node/NAME|pod/NS/NAME] [--cordon NODE]\n"
    "                   [--drain NODE] [-o table|json] [--seed N] [flags]\n\n"
    "Schedules the pending pods of SNAPSHOT (a file of API objects: `stowage snapshot`,\n"
    "`kubectl get -o yaml`) with the scheduler's queue, plugins, preemption and binding, in\n"
    "virtual time and with no API server, and prints where each pod went, what was preempted,\n"
    "why the rest are pending, and each node's requests before and after. The changes are\n"
    "applied first and may be repeated. --seed (default 1) breaks ties between nodes, so the\n"
    "same inputs give the same output. The flags are the scheduler's: --config,\n"
    "--feature-gates, --plugin-library and the rest.\n\n";

const char kSnapshotUsage[] =
    "Usage:\n"
    "  stowage snapshot [-o FILE] [--format yaml|json] [flags]\n\n"
    "Lists every kind of object the scheduler reads from the cluster (the pods, nodes,\n"
    "namespaces, disruption budgets, priority classes, volumes and claims) into one file that\n"
    "`stowage simulate` reads (a List, as `kubectl get -o yaml` writes one); standard output\n"
    "without -o. The flags are the scheduler's: --kubeconfig, --master and the rest.\n\n";

namespace {

// The value of flag `name` at args[i] (`--name V`, `--name=V`, or `-o V` / `-oV` for output):
// true when args[i] is that flag, with i moved past its value.
StatusOr<bool> FlagValue(const std::vector<std::string>& args, size_t& i, std::string_view name,
                         std::string& value) {
  const std::string& a = args[i];
  const std::string with_eq = std::string(name) + "=";
  if (a == name) {
    if (i + 1 == args.size()) return InvalidArgumentError(a + " needs a value");
    value = args[++i];
    return true;
  }
  if (a.rfind(with_eq, 0) == 0) {
    value = a.substr(with_eq.size());
    return true;
  }
  return false;
}

// Takes args[0] (the subcommand), the flags of `own` and a leading positional argument; the
// rest stay for the scheduler's flags.
Status TakeArgs(std::vector<std::string>& args,
                const std::map<std::string, std::function<Status(const std::string&)>>& own,
                std::string* positional) {
  const std::string command = args.front();
  args.erase(args.begin());
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == 0 && positional && !args[i].empty() && args[i][0] != '-') {
      *positional = args[i];
      continue;
    }
    bool taken = false;
    for (const auto& [name, take] : own) {
      std::string value;
      auto is = FlagValue(args, i, name, value);
      if (!is.ok()) return is.status().WithPrefix(command);
      if (!*is) continue;
      if (Status s = take(value); !s.ok()) return s.WithPrefix(command);
      taken = true;
      break;
    }
    if (!taken) rest.push_back(args[i]);
  }
  args = std::move(rest);
  return OkStatus();
}

bool WantsHelp(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() ||
         std::find(args.begin(), args.end(), "-h") != args.end();
}

// -o / --format: text (the command's own: table or yaml) or json.
Status Output(const std::string& value, bool& json, std::string_view text) {
  if (value != text && value != "json") {
    return InvalidArgumentError("unknown output format \"" + value + "\" (" + std::string(text) +
                                " or json)");
  }
  json = value == "json";
  return OkStatus();
}

}  // namespace

StatusOr<SimulateRequest> TakeSimulateArgs(std::vector<std::string>& args) {
  SimulateRequest r;
  auto append = [](std::vector<std::string>& to) {
    return [&to](const std::string& v) {
      to.push_back(v);
      return OkStatus();
    };
  };
  std::map<std::string, std::function<Status(const std::string&)>> own{
      {"--add", append(r.add)},
      {"--remove", append(r.remove)},
      {"--cordon", append(r.cordon)},
      {"--drain", append(r.drain)},
      {"-o", [&r](const std::string& v) { return Output(v, r.json, "table"); }},
      {"--output", [&r](const std::string& v) { return Output(v, r.json, "table"); }},
      {"--seed",
       [&r](const std::string& v) {
         char* end = nullptr;
         r.seed = std::strtoull(v.c_str(), &end, 10);
         if (v.empty() || *end != '\0') {
           return InvalidArgumentError("--seed \"" + v + "\" is not a whole number");
         }
         return OkStatus();
       }},
  };
  if (Status s = TakeArgs(args, own, &r.snapshot); !s.ok()) return s;
  if (r.snapshot.empty() && !WantsHelp(args)) {
    return InvalidArgumentError(
        "simulate: the snapshot comes first: stowage simulate SNAPSHOT [flags]");
  }
  return r;
}

StatusOr<SnapshotRequest> TakeSnapshotArgs(std::vector<std::string>& args) {
  SnapshotRequest r;
  auto file = [&r](const std::string& v) {
    r.file = v;
    return v.empty() ? InvalidArgumentError("-o needs a file name (- for standard output)")
                     : OkStatus();
  };
  std::map<std::string, std::function<Status(const std::string&)>> own{
      {"-o", file},
      {"--output", file},
      {"--format", [&r](const std::string& v) { return Output(v, r.json, "yaml"); }},
  };
  if (Status s = TakeArgs(args, own, nullptr); !s.ok()) return s;
  return r;
}

int RunSimulate(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                const framework::Registry& out_of_tree, const SimulateRequest& request) {
  Process process(options, cfg);
  if (!process.BuildRegistry(out_of_tree)) return 1;
  process.CheckCelLibrary();
  // Every file is read before the sandbox, which leaves the process no file to open.
  simulate::Snapshot snapshot;
  Status s = snapshot.Read(request.snapshot);
  for (size_t i = 0; s.ok() && i < request.add.size(); ++i) s = snapshot.Add(request.add[i]);
  for (size_t i = 0; s.ok() && i < request.remove.size(); ++i)
    s = snapshot.Remove(request.remove[i]);
  for (size_t i = 0; s.ok() && i < request.cordon.size(); ++i)
    s = snapshot.Cordon(request.cordon[i]);
  for (size_t i = 0; s.ok() && i < request.drain.size(); ++i) s = snapshot.Drain(request.drain[i]);
  if (!s.ok()) {
    LOG_ERROR_ERR(s, "simulate: cannot read the snapshot");
    return 1;
  }
  if (!process.EnterSandbox()) return 1;
  process.RegisterMetrics();
  return process.Simulate(snapshot, request);
}

int RunSnapshot(const Options& options, const config::KubeSchedulerConfiguration& cfg,
                const SnapshotRequest& request) {
  Process process(options, cfg);
  if (!process.BuildClientConfig()) return 1;
  int fd = STDOUT_FILENO;
  if (request.file != "-") {
    // Opened before the sandbox; O_NOFOLLOW so a planted link cannot redirect the write.
    fd = open(request.file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      LOG_ERROR("snapshot: cannot write {}: {}", request.file, std::strerror(errno));
      return 1;
    }
  }
  if (!process.EnterSandbox()) return 1;
  process.RegisterMetrics();
  if (!process.NewClients()) return 1;
  return process.WriteSnapshot(fd, request);
}

}  // namespace stowage::app
