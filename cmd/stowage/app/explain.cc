#include "cmd/stowage/app/explain.h"

#include <algorithm>

#include "cmd/stowage/app/process.h"
#include "pkg/common/logging.h"

namespace stowage::app {

const char kExplainUsage[] =
    "Usage:\n"
    "  stowage explain NAMESPACE/POD [-o table|json] [flags]\n\n"
    "Runs the profile of a pending pod over every node, as one scheduling cycle would but without\n"
    "sampling or writing anything, and prints each node's verdict, each Score plugin's score and\n"
    "the node the scheduler would pick. POD alone means namespace \"default\". The flags are the\n"
    "scheduler's: --kubeconfig, --config, --feature-gates, --plugin-library and the rest.\n\n";

StatusOr<ExplainRequest> TakeExplainArgs(std::vector<std::string>& args) {
  ExplainRequest r;
  args.erase(args.begin());  // "explain"
  std::vector<std::string> rest;
  bool have_pod = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string output;
    if (a == "-o" || a == "--output") {
      if (i + 1 == args.size()) return InvalidArgumentError("explain: " + a + " needs a value");
      output = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.rfind("-o", 0) == 0 && a.size() > 2 && a[2] != '-') {
      output = a.substr(a[2] == '=' ? 3 : 2);
    } else if (i == 0 && !a.empty() && a[0] != '-') {
      const size_t slash = a.find('/');
      if (slash != std::string::npos) {
        r.ns = a.substr(0, slash);
        r.name = a.substr(slash + 1);
      } else {
        r.name = a;
      }
      if (r.ns.empty() || r.name.empty() || r.name.find('/') != std::string::npos) {
        return InvalidArgumentError("explain: \"" + a + "\" is not NAMESPACE/POD or POD");
      }
      have_pod = true;
      continue;
    } else {
      rest.push_back(a);
      continue;
    }
    if (output == "table") {
      r.output = ExplainOutput::kTable;
    } else if (output == "json") {
      r.output = ExplainOutput::kJson;
    } else {
      return InvalidArgumentError("explain: unknown output format \"" + output +
                                  "\" (table or json)");
    }
  }
  args = std::move(rest);
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                    std::find(args.begin(), args.end(), "-h") != args.end();
  if (!have_pod && !help) {
    return InvalidArgumentError("explain: the pod comes first: stowage explain NAMESPACE/POD");
  }
  return r;
}

int RunExplain(const Options& options, const config::KubeSchedulerConfiguration& cfg,
               const framework::Registry& out_of_tree, const ExplainRequest& request) {
  Process process(options, cfg);
  if (!process.BuildClientConfig() || !process.BuildRegistry(out_of_tree) ||
      !process.EnterSandbox()) {
    return 1;
  }
  process.WatchSignals();
  process.RegisterMetrics();
  if (!process.NewClients() || !process.NewScheduler()) return 1;
  process.SyncInformers();
  process.Exit(process.Explain(request));
}

}  // namespace stowage::app
